"""The offline reader on sentences people write: which argument and value, whose, what kind, when it
applies, lasting or one-off, withdrawn, revised or avoided; and what it must leave alone."""

from __future__ import annotations

import pytest

from pulse.reading import ReadingError, Schema, make_reader

TOOLS = [
    {
        "name": "book_flight",
        "description": "Book a flight.",
        "arguments": {
            "seat": {
                "type": "string",
                "enum": ["aisle", "window", "middle"],
                "description": "Seat position.",
            },
            "cabin": {
                "type": "string",
                "enum": ["economy", "premium_economy", "business"],
                "description": "Cabin class.",
            },
            "meal": {
                "type": "string",
                "enum": ["standard", "vegetarian", "vegan"],
                "description": "Special meal.",
            },
        },
    },
    {
        "name": "refund_order",
        "description": "Refund an order.",
        "arguments": {
            "payment_method": {"type": "string", "enum": ["credit_card", "gift_card", "paypal"]},
            "max_price": {"type": "integer", "description": "Budget in dollars"},
        },
    },
]


@pytest.fixture(scope="module")
def read():
    schema = Schema.from_json_tools(TOOLS)
    reader = make_reader("offline")
    return lambda text, **kw: [f for f in reader.read(text, schema, **kw)]


def facts(read, text):
    return {(f.argument, f.value, f.polarity) for f in read(text)}


def test_a_paraphrased_value_binds_its_argument(read):
    (f,) = read("I like a seat by the corridor.")
    assert (f.argument, f.value, f.holder, f.kind, f.lasting) == ("seat", "aisle", "user", "preference", True)


def test_a_negation_is_an_avoided_value_and_the_wish_beside_it_is_kept(read):
    assert facts(read, "Always refund to my credit card, never to a gift card.") == {
        ("payment_method", "credit_card", "prefer"),
        ("payment_method", "gift_card", "avoid"),
    }


def test_someone_elses_preference_is_theirs_even_beside_the_users_own(read):
    out = {
        f.value: f.holder
        for f in read("I'm into aisle seats, but my colleague Priya always wants a window seat.")
    }
    assert out == {"aisle": "user", "window": "person:Priya"}


def test_a_habit_is_not_a_preference(read):
    (f,) = read("I usually end up in economy, mostly out of habit.")
    assert (f.value, f.kind) == ("economy", "habit")


def test_a_leading_condition_is_kept_with_the_fact(read):
    (f,) = read("On flights over six hours I want business class.")
    assert (f.value, f.condition) == ("business", "On flights over six hours")


def test_a_trailing_condition_is_kept_with_the_fact(read):
    (f,) = read("I want business class when the flight is over six hours.")
    assert f.value == "business" and f.condition.startswith("when the flight")


def test_a_one_off_is_a_requirement_of_this_task(read):
    (f,) = read("Just this time, book me a window seat.")
    assert (f.value, f.kind, f.lasting) == ("window", "requirement", False)


def test_a_withdrawal_and_the_revision_that_follows(read):
    # one revision (the annotated set's convention: the new value revising the old), not a withdrawal
    # and a new wish; a withdrawal alone stays one
    out = read("I no longer want window seats; from now on it's aisle.")
    assert [(f.value, f.revises, f.withdraws) for f in out] == [("aisle", "window", False)]
    (f,) = read("I no longer want window seats.")
    assert (f.value, f.withdraws) == ("window", True)


def test_switched_from_names_the_old_value(read):
    (f,) = read("I switched from aisle to window.")
    assert (f.value, f.revises) == ("window", "aisle")


def test_an_attribute_binds_the_value_it_implies(read):
    (f,) = read("I'm vegetarian.")
    assert (f.argument, f.value, f.kind) == ("meal", "vegetarian", "attribute")


@pytest.mark.parametrize(
    "text",
    [
        "Use my usual seat.",  # a reference to memory, nothing stated
        "Is business class worth it?",  # a question
        "I wonder if a window seat would be nicer.",  # a hedge
        "Thanks for the help earlier.",  # small talk
    ],
)
def test_statements_without_a_fact_read_as_none(read, text):
    assert read(text) == []


def test_a_number_binds_the_argument_named_beside_it(read):
    (f,) = read("Keep the budget under 300 dollars, always.")
    assert (f.argument, f.value) == ("max_price", "300")


def test_a_team_decision_is_the_teams(read):
    (f,) = read("The design team decided on PayPal for refunds.")
    assert (f.value, f.holder, f.kind) == ("paypal", "team:design", "decision")


def test_a_self_introduction_makes_the_speaker_the_holder(read):
    (f,) = read("I'm Priya. For my own bookings I like a window seat.")
    assert f.holder == "person:Priya"


def test_a_tool_scope_value_is_not_read_as_a_statement():
    schema = Schema.from_json_tools(
        [
            {
                "name": "write_report",
                "description": "Write a report.",
                "arguments": {
                    "report_format": {"type": "string", "enum": ["doc", "sheet", "slides"]},
                    "memo_length": {"type": "string", "enum": ["short", "long"]},
                },
            },
        ]
    )
    out = make_reader("offline").read("For docs, my preferred memo length is short.", schema)
    assert [(f.argument, f.value) for f in out] == [("memo_length", "short")]


def test_schema_errors_name_the_tool():
    with pytest.raises(ReadingError, match="without a name"):
        Schema.from_json_tools([{"description": "x"}])
    with pytest.raises(ReadingError, match="arguments must be an object"):
        Schema.from_json_tools([{"name": "t", "arguments": ["a"]}])


def test_free_form_argument_learns_values_it_has_seen():
    schema = Schema.from_json_tools(
        [{"name": "refund", "arguments": {"payment_method_id": {"type": "string"}}}]
    ).with_values({"payment_method_id": ["credit_card_1111111", "gift_card_2222222"]})
    out = make_reader("offline").read("Refund it to my gift card this time.", schema)
    assert [(f.value, f.lasting) for f in out] == [("gift_card_2222222", False)]
