import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pulse.core.gold import context_values, task_slots, user_stated
from pulse.core.policy_io import (
    UNSHOWN,
    PolicyInput,
    gold_completion,
    parse_completion,
    parse_for,
    prompt_ids,
    render_compact,
    render_completion,
    render_prompt,
    render_rich,
)
from pulse.core.records import Decision, Event, MemoryItem


def _inp():
    mem = (
        MemoryItem("m1", "preference", "user:u", "wears 32x32", slot="size", value="32x32"),
        MemoryItem(
            "m2",
            "preference",
            "user:u",
            "used to wear 30x30",
            slot="size",
            value="30x30",
            valid_to="2026-01-01",
        ),
        MemoryItem("m3", "habit", "user:u", "often shops at kohls.com", slot="site", value="kohls.com"),
        MemoryItem("m4", "preference", "user:u", "likes thai", slot="cuisine", value="thai", topic="dining"),
    )
    prefix = (
        Event("request", 0, text="find chinos in my usual size", args={"size": "?", "site": "amazon.com"}),
        Event("candidate_call", 1, tool="search_products", args={"size": "30x30", "site": "amazon.com"}),
    )
    return PolicyInput(prefix, mem)


def test_compact_prompt_aligns_slots():
    text = render_compact(_inp())
    assert "now call search_products" in text
    lines = text.splitlines()
    assert lines[1:] == [
        "size preference cur 32x32 req=? ctx=? now=30x30 m1",
        "size preference old 30x30 req=? ctx=? now=30x30 m2",
        "site habit cur kohls.com req=amazon.com ctx=amazon.com now=amazon.com m3",
    ]
    assert "m4" not in text  # memory about slots the task has not touched is omitted


def test_prompt_carries_no_generator_label():
    # the policy input has no task level / topic / slot list: nothing but what the agent observed
    assert set(PolicyInput.__dataclass_fields__) == {"prefix", "snapshot"}
    text = render_compact(_inp())
    assert "apparel" not in text and "L1" not in text


def test_rich_prompt_has_system_and_memory():
    msgs = render_prompt(_inp(), "rich")
    assert msgs[0]["role"] == "system" and "PROPOSED CALL" in msgs[1]["content"]
    assert "superseded" in msgs[1]["content"]


def test_context_excludes_newest_event():
    prefix = _inp().prefix
    assert context_values(prefix[:-1]) == {"size": "?", "site": "amazon.com"}
    assert task_slots(prefix) == ("size", "site")


def test_user_stated_ignores_agent_and_memory_messages():
    prefix = (
        Event("request", 0, text="r", args={"size": "?"}),
        Event("message", 1, role="agent", text="a", args={"size": "30x30", "subgoal": "search"}),
        Event("message", 2, role="memory", text="m", args={"site": "kohls.com"}),
        Event("message", 3, role="user", text="u", args={"color": "navy"}),
    )
    assert user_stated(prefix) == {"size": "?", "color": "navy"}
    assert context_values(prefix) == {"size": "30x30", "site": "kohls.com", "color": "navy"}


def test_strict_parser_switch_reraises_internal_errors(monkeypatch):
    import pulse.core.policy_io as pio

    def boom(text):
        raise KeyError("bug")

    monkeypatch.setattr(pio, "_parse", boom)
    monkeypatch.setenv("PULSE_STRICT_PARSER", "1")
    with pytest.raises(KeyError):
        pio.parse_completion('{"action": "silent"}')
    monkeypatch.setenv("PULSE_STRICT_PARSER", "0")
    assert not pio.parse_completion('{"action": "silent"}').ok


def test_round_trip():
    for d in (Decision("silent"), Decision("supplement", ("m1",)), Decision("intervene", ("m1", "m3"))):
        assert parse_completion(render_completion(d)).decision == d


def test_strict_failures():
    bad = [
        '{"action": "silent|supplement|intervene"}',  # copies the schema text
        '{"action": "silent"} {"action": "intervene"}',  # several actions
        '{"action": "silent"} because',  # trailing text
        '{"action": "intervene", "evidence": ["m1"',  # cut off by the length cap
        "silent",
        "",
        "[]",
        '{"action": "silent", "why": 1}',
        '{"action": "intervene", "evidence": "m1"}',
        '{"action": "silent", "action": "intervene"}',  # a duplicate key names several actions
        '{"action": "intervene", "evidence": ["m1"], "evidence": []}',
    ]
    for text in bad:
        r = parse_completion(text)
        assert not r.ok and r.error, text
        assert r.decision_or_silent().action == "silent"


def test_think_block_and_conversational_input():
    r = parse_completion(
        [{"role": "assistant", "content": '<think>hmm</think>\n{"action": "supplement", "evidence": ["m1"]}'}]
    )
    assert r.ok and r.decision.action == "supplement"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.binary().map(lambda b: b.decode("latin-1")),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(),
            lambda c: st.lists(c) | st.dictionaries(st.text(), c),
            max_leaves=8,
        ).map(json.dumps),
        st.lists(st.dictionaries(st.text(), st.text())),
    )
)
def test_parser_never_raises(x):
    r = parse_completion(x)
    assert r.ok or r.error


def _store_ids(inp, ids):
    """The same input with other real ids (a run-time store names items w<hash>)."""
    mem = tuple(
        MemoryItem(
            new, m.kind, m.scope, m.text, slot=m.slot, value=m.value, topic=m.topic, valid_to=m.valid_to
        )
        for m, new in zip(inp.snapshot, ids)
    )
    return PolicyInput(inp.prefix, mem)


def test_prompt_ids_are_local_and_independent_of_store_ids():
    a, b = _inp(), _store_ids(_inp(), ("wa1b2", "m9", "wffff", "m1"))
    assert render_compact(a) == render_compact(b)  # the policy sees the same prompt whatever the store's ids
    assert prompt_ids(b) == {"m1": "wa1b2", "m2": "m9", "m3": "wffff"}  # line order; m4 not shown
    assert prompt_ids(b, "rich") == {"m1": "wa1b2", "m2": "m9", "m3": "wffff", "m4": "m1"}  # snapshot order
    assert "wa1b2" not in render_rich(b) and "- m2 (preference, superseded" in render_rich(b)


def test_gold_completion_round_trips_to_real_ids():
    inp = _store_ids(_inp(), ("wa1b2", "m9", "wffff", "m1"))
    gold = Decision("intervene", ("wa1b2",))
    text = gold_completion(inp, gold)
    assert json.loads(text) == {"action": "intervene", "evidence": ["m1"]}
    assert parse_for(text, inp).decision == gold
    assert parse_for(gold_completion(inp, gold, "rich"), inp, "rich").decision == gold


def test_unshown_prompt_id_never_resolves_to_a_real_id():
    inp = _store_ids(_inp(), ("m2", "m9", "m5", "m4"))
    # "m4" is a real id of an item the compact prompt leaves out, and not a prompt id: never evidence
    r = parse_for('{"action": "intervene", "evidence": ["m4"]}', inp)
    assert r.ok and r.decision.evidence == (UNSHOWN + "m4",)
    assert parse_for('{"action": "intervene", "evidence": ["m1"]}', inp).decision.evidence == ("m2",)
    assert not parse_for("nonsense", inp).ok
