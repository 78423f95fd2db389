"""Forms of everyday writing the offline reader must not misread (sentences written for these tests, not
taken from the annotated sets): thousands separators after "to", "one" as a pronoun, a number that
counts other things, possessives, "moved off X onto Y", a phrasal name's particle, a value's word used
as a phrasal verb, and a product's name in the possessive taken for a person."""

from __future__ import annotations

from pulse.reading import Schema, make_reader
from pulse.reading.offline import _INDIFFERENT
from pulse.reading.typed import clock_times, quantities
from pulse.reading.words import stem

READER = make_reader("offline")

STUDIO = Schema.from_json_tools(
    [
        {
            "name": "plan_training",
            "description": "Plan a week of training.",
            "arguments": {
                "session_minutes": {"type": "integer", "description": "Length of each session in minutes."},
                "weekly_budget": {"type": "integer", "description": "Spending limit per week in dollars."},
            },
        },
        {
            "name": "commit_code",
            "description": "Commit staged changes.",
            "arguments": {
                "linter": {"type": "string", "enum": ["pylint", "flake8", "ruff"], "description": "Linter."},
                "sign_off": {"type": "boolean", "description": "Add a Signed-off-by trailer."},
            },
        },
        {
            "name": "set_alerts",
            "description": "Route alerts and play music.",
            "arguments": {
                "station": {
                    "type": "string",
                    "enum": ["pop", "jazz", "classical"],
                    "description": "Radio station.",
                },
                "notify_via": {"type": "string", "enum": ["push", "email"], "description": "Alert channel."},
            },
        },
    ]
)


def _read(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, STUDIO)}


def test_a_number_with_thousands_separators_after_to_is_no_clock_time():
    assert clock_times("Raise the cap to 1,500 and then to 2.5 times that.") == []
    assert [c.value for c in clock_times("No calls until 6.")] == ["18:00"]


def test_one_after_a_determiner_is_a_pronoun():
    assert [q.value for q in quantities("Keep it a quick one, 25 minutes.")] == ["25"]
    assert [q.value for q in quantities("Book this one.")] == []
    assert [q.value for q in quantities("One reviewer is enough.")] == ["1"]


def test_a_number_that_counts_other_things_is_no_amount_of_the_arguments_unit():
    facts = _read("I want five hard interval sessions every week.")
    assert not any(arg == "session_minutes" for arg, _, _ in facts)
    assert ("session_minutes", "40", "prefer") in _read("I want my sessions to be 40 minutes.")


def test_a_possessive_is_folded_and_a_product_in_the_possessive_is_no_person():
    assert stem("marriott's") == "marriott"
    facts = READER.read("Always use Ruff's linter on my commits.", STUDIO)
    assert [(f.argument, f.value, f.holder) for f in facts if f.argument == "linter"] == [
        ("linter", "ruff", "user")
    ]


def test_moved_off_one_value_onto_another_revises_it():
    facts = [f for f in READER.read("We've moved off Pylint and onto Ruff for every repo.", STUDIO)]
    linters = {(f.value, f.polarity) for f in facts if f.argument == "linter"}
    assert ("ruff", "prefer") in linters and ("pylint", "prefer") not in linters
    assert not any(f.argument == "sign_off" for f in facts)  # "off" alone names no setting


def test_a_values_word_as_a_phrasal_verb_is_not_the_value():
    facts = _read("Alerts should pop up on my phone as push notifications.")
    assert ("notify_via", "push", "prefer") in facts
    assert not any(arg == "station" for arg, _, _ in facts)
    assert ("station", "pop", "prefer") in _read("Put the pop station on while I cook.")


PRINTS = Schema.from_json_tools(
    [
        {
            "name": "order_prints",
            "description": "Order photo prints and event tickets.",
            "arguments": {
                "print_size": {"type": "string", "enum": ["size_5x7", "size_8x10", "size_11x14"]},
                "finish": {"type": "string", "enum": ["glossy", "matte"], "description": "Paper finish."},
                "frame": {"type": "boolean", "description": "Add a frame."},
                "delivery": {
                    "type": "string",
                    "enum": ["mobile_wallet", "print_at_home", "will_call", "mailed"],
                    "description": "How the tickets are delivered.",
                },
                "slot_minutes": {"type": "integer", "description": "Length of the pickup slot in minutes."},
            },
        },
        {
            "name": "book_studio",
            "description": "Book studio time.",
            "arguments": {
                "day": {"type": "string", "enum": ["monday", "tuesday", "wednesday", "thursday", "friday"]},
                "time_of_day": {
                    "type": "string",
                    "enum": ["morning", "lunchtime", "evening"],
                    "description": "When the session is scheduled.",
                },
            },
        },
    ]
)


def _prints(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, PRINTS)}


def test_a_thing_judged_pointless_is_refused():
    assert ("frame", "false", "prefer") in _prints("Frames are pointless for me, the prints go in an album.")
    assert ("frame", "true", "prefer") not in _prints(
        "Frames are pointless for me, the prints go in an album."
    )


def test_go_from_one_amount_down_to_another_revises_it():
    facts = READER.read("Changed my mind on the pickup slot: go from 30 down to 15 minutes.", PRINTS)
    slots = {(f.value, f.revises) for f in facts if f.argument == "slot_minutes"}
    assert slots == {("15", "30")}


def test_a_code_value_is_named_by_its_code_and_a_teams_practice_by_its_verb():
    facts = READER.read("Our print club keeps every competition entry at 8x10, no exceptions.", PRINTS)
    assert [(f.argument, f.value, f.holder) for f in facts] == [
        ("print_size", "size_8x10", "team:print club")
    ]


def test_a_days_possessive_says_when_a_thing_is_not_a_wish_for_the_day():
    assert not any(arg == "day" for arg, _, _ in _prints("Get a bigger studio for Tuesday's shoot."))


def test_indifference_is_told_from_willingness():
    for text in (
        "I'm fine with whatever time.",
        "It doesn't matter to me",
        "I'm not fussy",
        "I don't mind which",
    ):
        assert _INDIFFERENT.search(text), text
    for text in ("I don't mind paying extra for the window", "I don't care to wait", "Mornings matter to me"):
        assert not _INDIFFERENT.search(text), text


ERRANDS = Schema.from_json_tools(
    [
        {
            "name": "schedule_errand",
            "description": "Schedule a delivery or a reminder.",
            "arguments": {
                "delivery_day": {"type": "string", "enum": ["weekdays", "weekends"]},
                "time_of_day": {"type": "string", "enum": ["morning", "lunchtime", "bedtime"]},
                "payment_method": {"type": "string", "enum": ["credit_card", "debit_card", "paypal"]},
            },
        }
    ]
)


def _errands(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, ERRANDS)}


def test_a_group_of_days_is_named_by_its_days():
    assert ("delivery_day", "weekends", "prefer") in _errands(
        "Deliver on Saturdays or Sundays, I'm at work otherwise."
    )
    assert ("delivery_day", "weekdays", "prefer") in _errands("Only Mon-Fri please.")
    assert not any(arg == "delivery_day" for arg, _, _ in _errands("Deliver it on Sunday."))


def test_a_credit_card_is_named_by_its_network_and_a_debit_card_stays_one():
    assert ("payment_method", "credit_card", "prefer") in _errands("Charge it to my Mastercard from now on.")
    facts = _errands("Always pay with my Visa debit card.")
    assert ("payment_method", "debit_card", "prefer") in facts
    assert ("payment_method", "credit_card", "prefer") not in facts


def test_a_compound_value_is_named_by_its_word_without_the_arguments_own():
    assert ("time_of_day", "bedtime", "prefer") in _errands("Send my pill reminder right before bed.")
    assert ("time_of_day", "lunchtime", "avoid") in _errands("Never schedule anything during lunch.")
    assert not any(
        arg == "delivery_day" for arg, _, _ in _errands("Once a week is plenty for the groceries.")
    )
