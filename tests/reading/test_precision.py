"""Precision of the offline reader: words that look like a value but state none (examples written for
these tests, not taken from the annotated set)."""

from __future__ import annotations

from pulse.reading import Schema, make_reader

TOOLS = [
    {
        "name": "pay_invoice",
        "description": "Pay a supplier invoice.",
        "arguments": {
            "account": {
                "type": "string",
                "enum": ["checking", "savings", "corporate"],
                "description": "The account the payment is drawn from.",
            },
            "limit": {"type": "number", "description": "The largest amount paid without review."},
        },
    },
]

SCHEMA = Schema.from_json_tools(TOOLS)
READER = make_reader("offline")


def _values(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, SCHEMA)}


def test_an_ing_value_after_a_verb_taking_preposition_is_a_verb() -> None:
    # "without checking with me" asks to be asked; it says nothing of the checking account
    read = _values("Never pay an invoice above 900 without checking with me.")
    assert not any(a == "account" for a, _, _ in read)
    # the same word as a noun is the value
    assert ("account", "checking", "prefer") in _values("Pay invoices from checking.")
    # after "is" an -ing value is the value ("my usual account is checking")
    assert ("account", "checking", "prefer") in _values("For invoices, my preferred account is checking.")


WRITING = Schema.from_json_tools(
    [
        {
            "name": "submit_piece",
            "description": "Submit a written piece for publication.",
            "arguments": {
                "spelling": {
                    "type": "string",
                    "enum": ["american", "british", "canadian"],
                    "description": "Spelling convention of the text.",
                },
                "outlet": {
                    "type": "string",
                    "enum": ["magazine", "newspaper", "blog"],
                    "description": "Where the piece is published.",
                },
                "image_format": {
                    "type": "string",
                    "enum": ["png", "svg", "tiff"],
                    "description": "File format of the images.",
                },
            },
        }
    ]
)


def _written(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, WRITING)}


def test_a_value_in_the_condition_leaves_the_main_clause_to_say_its_own() -> None:
    # "British magazine" only says when; the wish is the spelling, said as "English"
    read = _written("When an essay is going to a British magazine, use English spelling.")
    assert ("spelling", "british", "prefer") in read
    assert not any(a == "outlet" for a, _, _ in read)


def test_who_wants_is_not_the_value() -> None:
    # the magazine is who wants TIFF images, not an outlet the speaker asks for
    read = _written("For this essay the magazine wants TIFF images.")
    assert ("image_format", "tiff", "prefer") in read
    assert not any(a == "outlet" for a, _, _ in read)


def test_a_value_in_a_trailing_reason_is_not_wished() -> None:
    # the wish ("only drawings in vector form") matched no value; the newspaper is only the reason
    read = _written("We settled on vector drawings only because the newspaper prints them large.")
    assert not any(a == "outlet" for a, _, _ in read)


CALLS = Schema.from_json_tools(
    [
        {
            "name": "book_session",
            "description": "Book a coaching session.",
            "arguments": {
                "slot": {
                    "type": "string",
                    "enum": ["early_morning", "morning", "afternoon", "evening"],
                    "description": "Part of the day for the session.",
                },
            },
        }
    ]
)


def test_a_clock_time_names_the_part_of_the_day_that_is_its_word() -> None:
    # 10:30 is in the morning; early_morning only contains the word
    read = {(f.argument, f.value) for f in READER.read("Sessions at 10:30 suit me best.", CALLS)}
    assert ("slot", "morning") in read
    assert ("slot", "early_morning") not in read


REPLIES = Schema.from_json_tools(
    [
        {
            "name": "send_reply",
            "description": "Send a reply to a customer.",
            "arguments": {
                "tone": {
                    "type": "string",
                    "enum": ["formal", "friendly", "neutral", "casual"],
                    "description": "Tone of the reply.",
                }
            },
        }
    ]
)


def test_a_paraphrase_echo_after_a_team_decision_is_not_the_users() -> None:
    # "rude" only echoes the team's friendly tone; the speaker states nothing of their own
    text = "The front-desk team agreed that every reply stays friendly — even when a guest is rude."
    facts = READER.read(text, REPLIES)
    assert [(f.argument, f.value, f.holder) for f in facts] == [("tone", "friendly", "team:front-desk")]


def test_a_later_clause_without_its_own_cue_describes() -> None:
    # the second clause says when the speaker sleeps; only the first one asks for something
    read = {
        (f.argument, f.value)
        for f in READER.read("Sessions should be in the evening — the morning is when I sleep.", CALLS)
    }
    assert read == {("slot", "evening")}
    assert not READER.read("I do my best work late — the morning is when I sleep.", CALLS)


def test_negators_and_ever_name_no_value_by_meaning() -> None:
    # "don't ever" says whether, never what, and "honestly", "lol" nothing: no span of them may
    # paraphrase a value
    from pulse.reading.words import tokens

    text = "Honestly, don't ever pay from savings lol."
    scan = READER._scan(text, tokens(text), READER._space(SCHEMA), frozenset())
    assert [scan.toks[k].word for k in scan.content] == ["pay", "savings"]


def test_rather_than_a_value_guessed_by_meaning_is_no_avoid():
    # cabin values coach / premium / business: "economy" is a guess by meaning (it scores closest to
    # business), so turning it down must not become an avoid of business
    schema = Schema.from_json_tools(
        [
            {
                "name": "fly",
                "description": "Book a flight.",
                "arguments": {"cabin_class": {"type": "string", "enum": ["coach", "premium", "business"]}},
            }
        ]
    )
    facts = make_reader("offline").read("I now want a lie-flat cabin rather than economy.", schema)
    assert not [f for f in facts if f.polarity == "avoid"]
    said = make_reader("offline").read("Book business rather than coach.", schema)
    assert [(f.value, f.polarity) for f in said] == [("business", "prefer")]
