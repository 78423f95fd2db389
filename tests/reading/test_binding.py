"""Binding mechanisms of the offline reader: which argument one value goes to when several could hold
it, and how a withdrawal followed by a new value reads (examples written for these tests)."""

from __future__ import annotations

import pytest

from pulse.reading import Schema, make_reader

TOOLS = [
    {
        "name": "plan_call",
        "description": "Plan a video call.",
        "arguments": {
            "length_minutes": {"type": "integer", "description": "How long the call lasts, in minutes."},
            "alert": {
                "type": "string",
                "enum": ["none", "ten_minutes", "thirty_minutes", "one_day"],
                "description": "When to ping the participants beforehand.",
            },
            "slot": {
                "type": "string",
                "enum": ["morning", "afternoon", "evening"],
                "description": "Part of the day for the call.",
            },
            "platform": {
                "type": "string",
                "enum": ["zoom", "teams", "phone"],
                "description": "Where the call happens.",
            },
        },
    },
    {
        "name": "set_office_hours",
        "description": "Set office hours.",
        "arguments": {
            "opens_at": {"type": "string", "description": "Opening time of the office, HH:MM (24h)."},
        },
    },
]


@pytest.fixture(scope="module")
def reader():
    return make_reader("offline")


@pytest.fixture(scope="module")
def schema():
    return Schema.from_json_tools(TOOLS)


def _facts(reader, schema, text):
    return {(f.argument, f.value, f.polarity, f.withdraws, f.revises) for f in reader.read(text, schema)}


def test_amount_goes_to_the_number_the_clause_speaks_of(reader, schema):
    # "thirty minutes" is both an `alert` value and a `length_minutes` number: the clause speaks of
    # how long the call lasts, not of a ping
    got = {(a, v) for a, v, *_ in _facts(reader, schema, "Our calls normally last thirty minutes.")}
    assert ("alert", "thirty_minutes") not in got
    # ... and the enumerated value still binds where the clause speaks of its argument
    got = {(a, v) for a, v, *_ in _facts(reader, schema, "Ping everyone thirty minutes beforehand, please.")}
    assert ("alert", "thirty_minutes") in got


def test_clock_time_goes_to_the_time_argument_the_clause_names(reader, schema):
    got = {(a, v) for a, v, *_ in _facts(reader, schema, "The office opens at 08:15 from now on.")}
    assert ("opens_at", "08:15") in got
    assert not any(a == "slot" for a, _ in got)
    # a clock time with no time argument spoken of still names its part of the day
    got = {(a, v, p) for a, v, p, *_ in _facts(reader, schema, "Never any calls after six, please.")}
    assert ("slot", "evening", "avoid") in got


def test_withdrawal_then_new_value_in_later_clause_is_one_revision(reader, schema):
    got = _facts(reader, schema, "I've stopped taking calls on Teams; put them on Zoom instead.")
    assert ("platform", "zoom", "prefer", False, "teams") in got
    assert not any(v == "teams" for _, v, *_ in got)


def test_withdrawal_then_new_value_in_same_clause_is_one_revision(reader, schema):
    got = _facts(reader, schema, "I used to want the phone, now I want zoom.")
    assert got == {("platform", "zoom", "prefer", False, "phone")}
    # a plain withdrawal stays a withdrawal
    got = _facts(reader, schema, "I no longer want calls on the phone.")
    assert ("platform", "phone", "prefer", True, "") in got
