"""Reader v15: forms found by writing 40 more plain sentences against three annotated domains'
schemas (meetings, e-mail, orders): refusing an argument itself states its value "none" ("No emoji",
"Skip the greeting"), "prefer X to Y" before a phrase of where it applies, "'s easiest", "worth it",
and "not worth it" turns the thing down while "rarely worth it" judges without refusing. The
sentences are written for these tests; each new form has a test that fails on reader v14."""

from __future__ import annotations

import pytest

from pulse.reading import Schema

TOOLS = [
    {
        "name": "send_chat_message",
        "description": "Send a chat message.",
        "arguments": {
            "emoji": {
                "type": "string",
                "enum": ["none", "sparing", "liberal"],
                "description": "How many emoji.",
            },
            "greeting": {
                "type": "string",
                "enum": ["hi", "hello", "none"],
                "description": "Opening salutation.",
            },
        },
    },
    {
        "name": "schedule_meeting",
        "description": "Schedule a meeting.",
        "arguments": {
            "location": {
                "type": "string",
                "enum": ["zoom", "teams", "phone"],
                "description": "Where it happens.",
            }
        },
    },
    {
        "name": "place_order",
        "description": "Place an order.",
        "arguments": {
            "shipping_speed": {
                "type": "string",
                "enum": ["standard", "express", "next_day"],
                "description": "Shipping speed.",
            },
            "gift_wrap": {
                "type": "string",
                "enum": ["none", "basic", "premium"],
                "description": "Gift wrapping.",
            },
        },
    },
    {
        "name": "book_train",
        "description": "Book a train ticket.",
        "arguments": {
            "fare_class": {"type": "string", "enum": ["standard", "first"], "description": "Fare class."}
        },
    },
]
SCHEMA = Schema.from_json_tools(TOOLS)


def _read(reader, text):
    return {(f.argument, f.value, f.polarity) for f in reader.read(text, SCHEMA)}


@pytest.mark.parametrize(
    "text, fact",
    [
        ("No emoji in my messages.", ("emoji", "none", "prefer")),
        ("Skip the greeting, get straight to the point.", ("greeting", "none", "prefer")),
        ("No gift wrap, it's for me.", ("gift_wrap", "none", "prefer")),
        ("I'd prefer Teams to Zoom for client calls.", ("location", "teams", "prefer")),
        ("Zoom's easiest for me.", ("location", "zoom", "prefer")),
        ("Next-day shipping is worth it.", ("shipping_speed", "next_day", "prefer")),
        ("First class is not worth it.", ("fare_class", "first", "avoid")),
    ],
)
def test_everyday_forms_state_their_value(reader, text, fact):
    assert fact in _read(reader, text)


def test_the_thing_compared_against_is_not_wanted(reader):
    assert ("location", "zoom", "prefer") not in _read(reader, "I'd prefer Teams to Zoom for client calls.")


def test_an_argument_named_without_a_refusal_states_no_none(reader):
    assert not any(v == "none" for _, v, _ in _read(reader, "I love emoji in my messages."))


def test_rarely_worth_it_judges_without_refusing_or_wanting(reader):
    facts = _read(reader, "I generally sit in standard class; first is rarely worth it.")
    assert ("fare_class", "standard", "prefer") in facts
    assert not any(v == "first" for _, v, _ in facts)
