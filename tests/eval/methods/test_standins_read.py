"""Equal footing: every method's fact-extraction stand-in reads through the run's reader, and the
Proactive Memory Agent links a requirement to the tool it means."""

from __future__ import annotations

import pytest

from eval.methods import standins
from eval.methods.pma_rules import tool_named
from pulse.core.records import Event
from pulse.reading import BoundReader, Schema, make_reader

SCHEMA = Schema.from_json_tools(
    [
        {
            "name": "reserve_flight",
            "description": "Book a flight.",
            "arguments": {"seat": {"type": "string", "enum": ["aisle", "window"]}},
        },
        {
            "name": "arrange_ride",
            "description": "Arrange ground transport from the airport.",
            "arguments": {"ride": {"type": "string", "enum": ["taxi", "train"]}},
        },
    ]
)


@pytest.fixture(scope="module")
def reading():
    return BoundReader(make_reader("offline"), SCHEMA)


def said(text):
    return Event("message", 1, role="user", text=text, time="2025-01-01T00:00:00")


def test_a_paraphrase_is_a_fact_for_every_method(reading):
    (f,) = standins.extract_facts([said("I like a seat by the corridor.")], "u", "", reading)
    assert (f.slot, f.value, f.scope, f.text) == ("seat", "aisle", "user:u", "User prefers seat aisle.")
    assert standins.extract_facts([said("I like a seat by the corridor.")], "u", "", None) == []  # rule


def test_someone_elses_words_and_one_offs_are_no_fact(reading):
    assert (
        standins.extract_facts([said("My colleague Priya always wants a window seat.")], "u", "", reading)
        == []
    )
    assert standins.extract_facts([said("Just this time, a window seat.")], "u", "", reading) == []


def test_a_habit_is_said_as_a_habit(reading):
    (f,) = standins.extract_facts([said("Out of habit I tend to get a window seat.")], "u", "", reading)
    assert f.text == "User usually has seat window (a habit)."


def test_the_pma_links_a_clause_to_the_tool_it_means(reading):
    tools = ["reserve_flight", "arrange_ride"]
    assert tool_named("arrange ride from the airport", tools) == "arrange_ride"  # named
    assert tool_named("book the flight for Friday", tools) == ""  # no reader: names only
    assert tool_named("book the flight for Friday", tools, reading) == "reserve_flight"
    assert tool_named("summarise yesterday's notes", tools, reading) == ""
