import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pulse.core.policy_io import (PolicyInput, parse_completion, render_completion, render_compact, render_prompt,
                                  context_slot_values)
from pulse.core.records import Decision, Event, MemoryItem


def _inp():
    mem = (MemoryItem("m1", "preference", "user:u", "wears 32x32", slot="size", value="32x32"),
           MemoryItem("m2", "preference", "user:u", "used to wear 30x30", slot="size", value="30x30",
                      valid_to="2026-01-01", ),
           MemoryItem("m3", "habit", "user:u", "often shops at kohls.com", slot="site", value="kohls.com"),
           MemoryItem("m4", "preference", "user:u", "likes thai", slot="cuisine", value="thai", topic="dining"))
    prefix = (Event("request", 0, text="find chinos in my usual size", args={"size": "?", "site": "amazon.com"}),
              Event("candidate_call", 1, tool="search_products", args={"size": "30x30", "site": "amazon.com"}))
    return PolicyInput(prefix, mem, ("size", "site"), "apparel", 1)


def test_compact_prompt_aligns_slots():
    text = render_compact(_inp())
    assert "now call search_products" in text
    lines = text.splitlines()
    assert lines[2:] == ["size preference cur 32x32 req=? now=30x30 m1",
                         "size preference old 30x30 req=? now=30x30 m2",
                         "site habit cur kohls.com req=amazon.com now=amazon.com m3"]
    assert "m4" not in text  # memory about other slots is omitted


def test_rich_prompt_has_system_and_memory():
    msgs = render_prompt(_inp(), "rich")
    assert msgs[0]["role"] == "system" and "PROPOSED CALL" in msgs[1]["content"]
    assert "superseded" in msgs[1]["content"]


def test_context_excludes_newest_event():
    assert context_slot_values(_inp().prefix) == {"size": "?", "site": "amazon.com"}


def test_round_trip():
    for d in (Decision("silent"), Decision("supplement", ("m1",)), Decision("intervene", ("m1", "m3"))):
        assert parse_completion(render_completion(d)).decision == d


def test_strict_failures():
    bad = ['{"action": "silent|supplement|intervene"}',  # copies the schema text
           '{"action": "silent"} {"action": "intervene"}',  # several actions
           '{"action": "silent"} because',  # trailing text
           '{"action": "intervene", "evidence": ["m1"',  # cut off by the length cap
           'silent', '', '[]', '{"action": "silent", "why": 1}', '{"action": "intervene", "evidence": "m1"}']
    for text in bad:
        r = parse_completion(text)
        assert not r.ok and r.error, text
        assert r.decision_or_silent().action == "silent"


def test_think_block_and_conversational_input():
    r = parse_completion([{"role": "assistant", "content": '<think>hmm</think>\n{"action": "supplement", "evidence": ["m1"]}'}])
    assert r.ok and r.decision.action == "supplement"


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.binary().map(lambda b: b.decode("latin-1")),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                              lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=8).map(json.dumps),
                 st.lists(st.dictionaries(st.text(), st.text()))))
def test_parser_never_raises(x):
    r = parse_completion(x)
    assert r.ok or r.error
