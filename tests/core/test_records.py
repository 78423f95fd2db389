import pytest

from pulse.core.records import Decision, Event, MemoryItem, RecordError


def test_event_round_trip_and_errors():
    ev = Event("candidate_call", 2, tool="book", args={"class": "economy"})
    assert Event.from_dict(ev.to_dict()) == ev
    with pytest.raises(RecordError, match="row 7.*kind"):
        Event.from_dict({"kind": "shout", "step": 1}, where="row 7")
    with pytest.raises(RecordError, match="unknown field"):
        Event.from_dict({"kind": "request", "step": 0, "colour": "red"})
    with pytest.raises(RecordError, match="tool name"):
        Event("candidate_call", 1)


def test_memory_item_validity_and_round_trip():
    m = MemoryItem(
        "m1",
        "preference",
        "user:a",
        "x",
        slot="size",
        value="M",
        valid_from="2025-01-01",
        valid_to="2026-01-01",
        entities=("pants",),
    )
    assert MemoryItem.from_dict(m.to_dict()) == m
    assert m.is_valid_at("2025-06-01") and not m.is_valid_at("2026-02-01") and not m.is_current
    with pytest.raises(RecordError, match="scope"):
        MemoryItem("m2", "preference", "alice", "x")


def test_decision_validation():
    assert Decision.from_dict({"action": "intervene", "evidence": ["m1"]}).evidence == ("m1",)
    with pytest.raises(RecordError, match="action"):
        Decision.from_dict({"action": "shout"})
