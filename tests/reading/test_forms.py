"""Forms of everyday writing the offline reader must not misread (sentences written for these tests, not
taken from the annotated sets): thousands separators after "to", "one" as a pronoun, a number that
counts other things, possessives, "moved off X onto Y", a phrasal name's particle, a value's word used
as a phrasal verb, and a product's name in the possessive taken for a person."""

from __future__ import annotations

from pulse.reading import Schema, make_reader
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
