"""Pulse files what the reading layer reads (pulse/memory/extraction.py with `read`), through the real
write path (commit_events: extraction, source validation, merge): habits stay habits, other people's
words are not the user's, one-offs stay in the task, avoided values bind as "anything but", the
request's values are task parameters, and a plain paraphrase becomes a binding preference."""

from __future__ import annotations

import pytest
from memory_helpers import user_msg

from pulse.agent.writeback import commit_events
from pulse.core.records import Event
from pulse.memory import RetrievalQuery
from pulse.reading import BoundReader, Schema, make_reader

SCHEMA = Schema.from_json_tools(
    [
        {
            "name": "book_flight",
            "arguments": {
                "seat": {"type": "string", "enum": ["aisle", "window", "middle"]},
                "cabin": {"type": "string", "enum": ["economy", "business"]},
            },
        },
        {
            "name": "refund",
            "arguments": {"payment_method": {"type": "string", "enum": ["credit_card", "gift_card"]}},
        },
    ]
)


@pytest.fixture(scope="module")
def reading():
    return BoundReader(make_reader("offline"), SCHEMA)


def file(mem, reading, *events, conv="c1", project=""):
    mem.create_user("u1")
    return commit_events(mem, list(events), "u1", project, conv, read=reading.read)


def test_a_paraphrase_becomes_a_binding_preference(mem, reading):
    (item,) = file(mem, reading, user_msg("e1", "I like a seat by the corridor."))
    assert (item.kind, item.slot, item.value) == ("preference", "seat", "aisle")
    assert item.provenance.quote == "I like a seat by the corridor."


def test_a_habit_is_filed_as_a_habit(mem, reading):
    (item,) = file(mem, reading, user_msg("e1", "I usually end up in economy, mostly out of habit."))
    assert (item.kind, item.slot, item.value) == ("habit", "cabin", "economy")


def test_a_colleagues_preference_is_not_the_users(mem, reading):
    items = file(
        mem,
        reading,
        user_msg("e1", "I'm fine with aisle seats, but my colleague Priya always wants a window seat."),
    )
    assert [(m.slot, m.value) for m in items] == [("seat", "aisle")]


def test_an_avoided_value_binds_anything_but_it(mem, reading):
    items = file(mem, reading, user_msg("e1", "Never refund anything to a gift card."))
    assert [(m.slot, m.value, m.text) for m in items] == [
        ("payment_method", "not:gift_card", "The user avoids payment_method = gift_card.")
    ]


def test_several_avoided_values_of_one_slot_all_hold(mem, reading):
    # one statement refusing two values, then a later one refusing a third: one current record rejects
    # them all (before, each avoid superseded the last and only the newest was refused)
    file(mem, reading, user_msg("e1", "Never the middle seat, nor the window."))
    current = [m for m in mem.snapshot("u1") if m.is_current and m.slot == "seat"]
    assert [m.value for m in current] == ["not:middle|window"]
    file(mem, reading, user_msg("e2", "Don't put me on the aisle either."), conv="c2")
    current = [m for m in mem.snapshot("u1") if m.is_current and m.slot == "seat"]
    assert [m.value for m in current] == ["not:middle|window|aisle"]
    assert current[0].text == "The user avoids seat = middle or window or aisle."
    file(mem, reading, user_msg("e3", "I'd like an aisle seat."), conv="c3")
    current = [m for m in mem.snapshot("u1") if m.is_current and m.slot == "seat"]
    assert [m.value for m in current] == ["aisle"]  # a wanted value revises the refusals


def test_values_wanted_in_one_statement_are_all_accepted_and_a_later_wish_replaces_them(mem, reading):
    # before, the second value read from "aisle or window" superseded the first: aisle calls were held
    items = file(mem, reading, user_msg("e1", "I'm happy with an aisle or a window seat."))
    current = [m for m in mem.snapshot("u1") if m.is_current and m.slot == "seat"]
    assert [m.value for m in current] == ["any:aisle|window"] and len(items) == 2
    assert current[0].text == "The user prefers seat = aisle or window."
    file(mem, reading, user_msg("e2", "Actually I'd like the window seat."), conv="c2")
    current = [m for m in mem.snapshot("u1") if m.is_current and m.slot == "seat"]
    assert [m.value for m in current] == ["window"]


def test_a_one_off_stays_in_its_task(mem, reading):
    (item,) = file(mem, reading, user_msg("e1", "Just this time, book me a window seat."), conv="trip-7")
    assert dict(mem.snapshot_with_meta("u1"))[item].task_id == "trip-7"  # visible to that task only
    assert mem.retrieve(RetrievalQuery("u1", subgoal="seat window")) == []


def test_the_requests_values_are_task_parameters_unless_stated_as_lasting(mem, reading):
    request = Event("request", 0, role="user", text="Book me a window seat to Oslo.", event_id="r1")
    assert file(mem, reading, request) == []
    lasting = Event("request", 0, role="user", text="Book Oslo; always an aisle seat for me.", event_id="r2")
    assert [(m.slot, m.value) for m in file(mem, reading, lasting, conv="c2")] == [("seat", "aisle")]


def _current(mem, slot):
    return sorted(
        (m.kind, m.value) for m, _ in mem.snapshot_with_meta("u1") if m.slot == slot and m.is_current
    )


def test_a_withdrawal_ends_the_preference_it_withdraws_and_binds_nothing(mem, reading):
    t = "2025-0{}-01T00:00:00Z"
    file(mem, reading, user_msg("e1", "My standing choice for the seat is the aisle.", time=t.format(1)))
    assert _current(mem, "seat") == [("preference", "aisle")]
    file(mem, reading, user_msg("e2", "I no longer want the aisle seat.", time=t.format(2)), conv="c2")
    assert _current(mem, "seat") == [("withdrawal", "aisle")]  # not binding (pulse.core.gold)
    file(
        mem,
        reading,
        user_msg("e3", "From now on I'd like the aisle seat again.", time=t.format(3)),
        conv="c3",
    )
    assert _current(mem, "seat") == [("preference", "aisle")]  # stated again: binding again


def test_withdrawing_what_memory_does_not_hold_writes_nothing(mem, reading):
    file(mem, reading, user_msg("e1", "My standing choice for the seat is the aisle."))
    assert file(mem, reading, user_msg("e2", "I no longer want a window seat."), conv="c2") == []
    assert _current(mem, "seat") == [("preference", "aisle")]


def test_a_scope_phrase_in_other_words_is_not_a_condition(mem, reading):
    (item,) = file(mem, reading, user_msg("e1", "From now on I'd like business for the cabin class."))
    assert (item.slot, item.value, item.conditions) == ("cabin", "business", "")


def test_a_statement_the_reader_finds_nothing_in_goes_through_the_cue_rules(mem, reading):
    (item,) = file(mem, reading, user_msg("e1", "I prefer vegetarian restaurants."))
    assert item.kind == "preference" and not item.slot


def test_my_preferred_mention_is_not_reported_speech(mem):
    from pulse.memory.validation import _reported

    text = "my preferred mention is all"
    assert _reported(text, text.index("all"), len(text)) == ""
    assert _reported("priya said she wants all", 20, 23) != ""


def test_a_workflow_keeps_no_one_off_value_of_its_request():
    from pulse.memory.extraction import _workflow

    events = [
        Event("request", 0, role="user", text="Book a window seat to Oslo, then a taxi.", event_id="r"),
        Event("candidate_call", 1, tool="book_flight", args={"seat": "window", "destination": "Oslo"}),
        Event("tool_result", 2, tool="book_flight", args={"status": "ok"}, text="ok"),
        Event("candidate_call", 3, tool="ride", args={"kind": "taxi"}),
        Event("tool_result", 4, tool="ride", args={"status": "ok"}, text="ok"),
    ]
    text = _workflow(events, "c", "p", "2025-01-01T00:00:00").item.text
    assert "<seat>" in text and "<destination>" in text
    assert "window" not in text and "Oslo" not in text
