"""Reader v14: forms found by writing 55 new plain sentences against the gateway's schema
(tests/serve/fixtures/preferences_server.py): "prefer X to Y", "X is better than Y", "X's fine", an
adverb of manner ("formally"), a fragment with its reason after it ("Window so I can sleep"), "no X"
beside another clause, a relation's habit in the present ("My boss flies business"), and no meaning
read across a negator. The sentences are written for these tests; the positive ones fail on reader v13."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pulse.reading import Schema

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve" / "fixtures"))
from preferences_server import TOOLS  # noqa: E402

SCHEMA = Schema.from_json_tools(
    [{"name": n, "description": d, "arguments": a} for n, (d, a) in TOOLS.items()]
)


def _read(reader, text):
    return {(f.argument, f.value, f.polarity): f for f in reader.read(text, SCHEMA)}


@pytest.mark.parametrize(
    "text, wanted, replaced",
    [
        ("I prefer the aisle to the window.", ("seat", "aisle"), ("seat", "window")),
        ("I prefer video calls to meeting in person.", ("location", "video"), ("location", "in_person")),
        ("I'd rather have the aisle than the window.", ("seat", "aisle"), ("seat", "window")),
        ("Aisle is better than window.", ("seat", "aisle"), ("seat", "window")),
    ],
)
def test_what_is_preferred_to_another_is_wanted_and_the_other_is_not(reader, text, wanted, replaced):
    facts = _read(reader, text)
    assert (*wanted, "prefer") in facts
    assert (*replaced, "prefer") not in facts


def test_prefer_them_to_is_an_infinitive_not_a_comparison(reader):
    facts = _read(reader, "Jun prefers them to come in the morning.")
    assert facts[("time_of_day", "morning", "prefer")].holder == "person:Jun"


@pytest.mark.parametrize(
    "text, fact",
    [
        ("Economy's fine, I'm not fussy.", ("cabin", "economy", "prefer")),
        ("Window's best for me.", ("seat", "window", "prefer")),
        ("Write to clients formally.", ("tone", "formal", "prefer")),
        ("On overnight flights, window so I can sleep.", ("seat", "window", "prefer")),
        ("No evening meetings, I have kids.", ("time_of_day", "evening", "avoid")),
        ("Whatever you do, no middle seat.", ("seat", "middle", "avoid")),
    ],
)
def test_everyday_forms_state_their_value(reader, text, fact):
    assert fact in _read(reader, text)


def test_a_possessive_before_a_noun_is_not_is(reader):
    assert not _read(reader, "Thursday's workshop needs a projector.")


def test_a_relations_habit_in_the_present_is_theirs(reader):
    facts = _read(reader, "My boss flies business; I'm happy in economy.")
    assert facts[("cabin", "business", "prefer")].holder == "person:boss"
    assert facts[("cabin", "economy", "prefer")].holder == "user"


def test_a_relations_doing_before_so_and_an_instruction_is_the_speakers_reason(reader):
    facts = _read(reader, "My daughter flies with me, so book the window.")
    assert facts[("seat", "window", "prefer")].holder == "user"


def test_no_value_is_read_by_meaning_across_a_negator(reader):
    # the span "son hates spicy" named `hot` outside the refusal: a wanted hot dish for a child who hates it
    assert ("spice_level", "hot", "prefer") not in _read(reader, "My son hates spicy food.")
