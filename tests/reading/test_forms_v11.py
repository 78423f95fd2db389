"""Reader v11: everyday forms found by talking to `pulse serve` in new words (a diet named by what it
leaves out, "I only ...", "X is easiest", a one-off's own time phrase, a withdrawal said first and the
new wish after a comma, whom a tool acts for). The sentences are written for these tests; each fails on
reader v10."""

from __future__ import annotations

import pytest

from pulse.reading import Schema, make_reader
from pulse.reading.clauses import split_clauses

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
            "cabin": {"type": "string", "enum": ["economy", "business"], "description": "Cabin class."},
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
            "payment_method": {
                "type": "string",
                "enum": ["credit_card", "paypal", "bank_transfer"],
                "description": "Where the money goes.",
            }
        },
    },
    {
        "name": "order_food",
        "description": "Order food for delivery.",
        "arguments": {
            "delivery": {"type": "string", "enum": ["door", "lobby", "pickup"], "description": "Hand-over."}
        },
    },
    {
        "name": "send_email",
        "description": "Send an email.",
        "arguments": {
            "tone": {"type": "string", "enum": ["formal", "casual"], "description": "Tone of the email."}
        },
    },
    {
        "name": "schedule_meeting",
        "description": "Schedule a meeting.",
        "arguments": {
            "location": {"type": "string", "enum": ["in_person", "video", "phone"], "description": "Where."}
        },
    },
]


@pytest.fixture(scope="module")
def read():
    schema = Schema.from_json_tools(TOOLS)
    reader = make_reader("offline")
    return lambda text: [
        (f.argument, f.value, f.polarity, f.kind, f.condition) for f in reader.read(text, schema)
    ]


def test_refusing_what_a_diet_leaves_out_states_the_diet(read):
    # v10 read "meat" as a paraphrase of vegetarian and refused it (an avoid of the one meal wanted)
    assert read("I don't eat meat.") == [("meal", "vegetarian", "prefer", "attribute", "")]
    assert [f[:3] for f in read("No animal products at all for me.")] == [("meal", "vegan", "prefer")]
    assert read("I eat meat.") == []  # the thing with no refusal over it says nothing of the diet


def test_i_only_is_a_rule_not_a_habit(read):
    assert read("i only fly business these days") == [("cabin", "business", "prefer", "preference", "")]
    assert [f[3] for f in read("I fly business these days.")] == ["habit"]
    assert [f[3] for f in read("I only ever end up in economy.")] == ["habit"]


def test_what_is_easiest_is_wanted(read):
    assert [f[:3] for f in read("Phone is easiest for me for meetings.")] == [("location", "phone", "prefer")]


def test_the_phrase_that_makes_a_one_off_is_no_condition(read):
    assert read("Only for today's lunch: pickup, I'll grab it.") == [
        ("delivery", "pickup", "prefer", "requirement", "")
    ]


def test_a_withdrawal_said_first_and_the_new_wish_after_a_comma_are_two_clauses(read):
    assert split_clauses("Forget PayPal, refunds go to my bank account now.") == [
        "Forget PayPal",
        "refunds go to my bank account now.",
    ]
    assert [f[:3] for f in read("Forget PayPal, refunds go to my bank account now.")] == [
        ("payment_method", "bank_transfer", "prefer")
    ]
    assert split_clauses("Forget PayPal, and gift cards too.") == ["Forget PayPal, and gift cards too."]


def test_whom_a_tool_acts_for_does_not_narrow_it(read):
    assert read("Keep it casual when you email people for me.") == [
        ("tone", "casual", "prefer", "preference", "")
    ]


def test_a_thing_scratched_is_withdrawn_and_the_choice_made_is_wanted(read):
    # v10 read nothing here; splitting after "Scratch ..." alone read PayPal as wanted
    assert [f[:3] for f in read("Scratch the PayPal thing, bank transfer it is.")] == [
        ("payment_method", "bank_transfer", "prefer")
    ]
    assert [f[:3] for f in read("Window it is!")] == [("seat", "window", "prefer")]
    assert read("It is what it is.") == []


def test_how_many_of_us_go_is_a_head_count():
    # v10 bound "four" to nothing: the clause never names the tickets
    tools = [
        {
            "name": "buy_tickets",
            "description": "Buy tickets for a show.",
            "arguments": {
                "ticket_count": {"type": "integer", "description": "Number of tickets."},
                "max_price_per_ticket": {
                    "type": "integer",
                    "description": "Maximum price per ticket in dollars.",
                },
            },
        }
    ]
    schema = Schema.from_json_tools(tools)
    reader = make_reader("offline")
    facts = reader.read("Please always book for four of us, me, my wife and the two boys.", schema)
    assert [(f.argument, f.value) for f in facts] == [("ticket_count", "4")]
    facts = reader.read("Book a table for a party of six, always.", schema)
    assert [(f.argument, f.value) for f in facts] == [("ticket_count", "6")]


def test_a_thing_judged_too_much_of_something_is_turned_down(read):
    # v10 read "middle is too tight" after the wish as a second wish
    assert [f[:3] for f in read("Aisle please, middle is too tight.")] == [
        ("seat", "aisle", "prefer"),
        ("seat", "middle", "avoid"),
    ]
    assert [f[:3] for f in read("I go for video, in person is too slow.")] == [
        ("location", "video", "prefer"),
        ("location", "in_person", "avoid"),
    ]
    assert [f[:3] for f in read("The middle seat is way too tight for me.")] == [("seat", "middle", "avoid")]
    assert [f[:3] for f in read("Economy is too cramped.")] == [("cabin", "economy", "avoid")]
    assert [f[:3] for f in read("That's too bad, economy is fine.")] == [("cabin", "economy", "prefer")]


def test_a_thing_ruled_out_in_so_many_words_is_turned_down(read):
    # v10 read nothing: no wish word in the clause
    assert [f[:3] for f in read("The middle seat is a no.")] == [("seat", "middle", "avoid")]
    assert [f[:3] for f in read("Window is off the table.")] == [("seat", "window", "avoid")]
    assert read("Is that a no?") == []
