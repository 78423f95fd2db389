"""Schema-aware memory, typed values, call kinds, scoped facts and the per-call hold cap (no data needed)."""

from __future__ import annotations

import pytest

from pulse.agent.call_kinds import READ_ONLY, STATE_CHANGING, CallKinds, kind_from_annotations
from pulse.agent.rule_policy import RulePolicy
from pulse.agent.runtime import PulseAgent, PulseAgentConfig
from pulse.agent.schema import ArgMapper, SchemaTool, read_args, slot_vocab
from pulse.agent.writeback import scope_candidates, statement_context
from pulse.core.records import Event, MemoryItem, Provenance
from pulse.core.statements import parse_statement
from pulse.core.values import canonical, find_typed, same_value
from pulse.memory.factory import open_memory
from pulse.memory.interface import WriteCandidate

WEB = [
    {
        "type": "function",
        "function": {
            "name": "web_search",
            "description": "Search the web.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "search query"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "open_website",
            "description": "Open a website.",
            "parameters": {
                "type": "object",
                "properties": {"site": {"type": "string", "description": "the website (domain or URL)"}},
            },
        },
    },
]
NESTED = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string"},
        "address": {
            "type": "object",
            "properties": {
                "zip": {"type": "string", "description": "postal code"},
                "city": {"type": "string"},
            },
        },
        "item_ids": {"type": "array", "items": {"type": "string"}},
        "quantity": {"type": "integer"},
        "when": {"type": "string", "format": "date"},
        "size": {"type": "string", "enum": ["S", "M", "L"]},
        "email": {"type": "string"},
    },
}


def test_call_kinds_annotations_then_list_then_default():
    mcp = [
        {"name": "search", "annotations": {"readOnlyHint": True}},
        {"name": "delete", "annotations": {"destructiveHint": True}},
        {"name": "plain"},
    ]
    k = CallKinds.build(mcp, read_only={"lookup", "delete"})
    assert k.kind("search") == READ_ONLY and k.kind("lookup") == READ_ONLY
    assert k.kind("delete") == STATE_CHANGING  # the annotation wins over the list
    assert k.gated("plain") and k.gated("never_seen")
    assert kind_from_annotations({"readOnlyHint": False}) == STATE_CHANGING
    assert kind_from_annotations(None) is None
    with pytest.raises(ValueError):
        CallKinds.build(read_only={"x"}, state_changing={"x"})
    assert k.annotations("search") == {"readOnlyHint": True, "destructiveHint": False}


def test_schema_reads_nested_paths_types_and_enums():
    args = {a.path: a for a in read_args(NESTED)}
    assert set(args) == {
        "order_id",
        "address.zip",
        "address.city",
        "item_ids",
        "quantity",
        "when",
        "size",
        "email",
    }
    assert args["address.zip"].name == "zip" and args["address.zip"].description == "postal code"
    assert (args["item_ids"].kind, args["quantity"].kind, args["when"].kind) == ("set", "number", "date")
    assert args["size"].enum == ("S", "M", "L") and args["email"].kind == "email"
    site = SchemaTool.from_openai(WEB[1]).arg("site")
    assert site.kind == "domain"
    assert SchemaTool.from_openai(WEB[0], read_only={"web_search"}).call_kind == READ_ONLY


def test_values_compare_by_type():
    assert same_value("domain", "seatgeek.com", "https://www.SeatGeek.com/events/1")
    assert not same_value("domain", "seatgeek.com", "stubhub.com")
    assert same_value("number", "3.0", "3") and same_value("number", "$1,200", "1200")
    assert same_value("set", '["b", "a"]', "a, b")
    assert same_value("date", "2024-05-01T10:00", "2024-05-01")
    assert same_value("string", "New  York", "new york")
    assert same_value("text", "rating 4.5+", "Answer: hotels with Rating 4.5+ near the park")
    assert canonical("domain", "HTTPS://www.Kohls.com/x") == "kohls.com"
    assert find_typed("domain", "my preferred choice is J.Crew") == []  # not a top-level domain
    assert find_typed("domain", "At last.fm.com, check") == [(3, "last.fm.com")]


def test_listener_vocab_from_schemas_reads_typed_values():
    vocab = slot_vocab([SchemaTool.from_openai(t) for t in WEB])
    assert set(vocab) == {"site"}  # free text (query) is not a slot the listener reads
    assert parse_statement("At SeatGeek.com, find two seats", vocab) == {"site": "seatgeek.com"}
    assert parse_statement("use my usual site", vocab) == {"site": "?"}


def test_arg_mapper_by_name_then_meaning():
    tools = {t.name: t for t in (SchemaTool.from_openai(WEB[1]),)}
    m = ArgMapper(tools, threshold=0.3)
    assert m.arg_for("open_website", "site").name == "site"
    assert m.arg_for("open_website", "website").name == "site"  # by meaning (the description's words)
    assert m.arg_for("open_website", "shirt size") is None


def test_statement_context_and_scoped_candidates():
    assert statement_context("For concert tickets, my preferred site is seatgeek.com.") == "concert tickets"
    assert (
        statement_context("From now on, for find the latest ap u.s. history, my x is y.")
        == "find the latest ap u.s. history"
    )
    assert statement_context("My home city is Denver.") == ""
    item = MemoryItem(
        "p1",
        "preference",
        "user:u",
        "The user prefers site = x.com.",
        slot="site",
        value="x.com",
        provenance=Provenance("user_statement", "e1", "For shoes, my preferred site is x.com."),
    )
    bare = MemoryItem(
        "p2",
        "preference",
        "user:u",
        "The user prefers site = y.com.",
        slot="site",
        value="y.com",
        provenance=Provenance("user_statement", "e2", "Use y.com from now on."),
    )
    cur = [
        MemoryItem("c1", "preference", "user:u", "t", slot="site", value="z.com", conditions="shoes"),
        MemoryItem(
            "c2", "preference", "user:u", "t", slot="site", value="w.com", conditions="concert tickets"
        ),
    ]
    out = scope_candidates(
        [WriteCandidate(item), WriteCandidate(bare)], cur, "book concert tickets for friday"
    )
    assert out[0].item.conditions == "shoes"
    assert out[1].item.conditions == "concert tickets"  # inherits the context that matches the request


def _agent(tmp_path, facts, request, **kw):
    mem = open_memory("structured", tmp_path / "m", "hash", auto_create_scopes=True)
    mem.add_items(facts)
    tools = tuple(SchemaTool.from_openai(t, read_only={"web_search"}) for t in WEB)
    cfg = PulseAgentConfig(
        user_id="u", concurrent=False, writeback=False, slot_vocab=slot_vocab(tools), tool_schemas=tools, **kw
    )
    agent = PulseAgent(mem, RulePolicy(), cfg)
    agent.start(Event("request", 1, text=request, role="user"))
    return agent, mem


FACTS = [
    MemoryItem(
        "s1",
        "preference",
        "user:u",
        "For concert tickets, my preferred site is seatgeek.com.",
        slot="site",
        value="seatgeek.com",
        conditions="concert tickets",
    ),
    MemoryItem(
        "s2",
        "preference",
        "user:u",
        "For men's chinos, my preferred site is kohls.com.",
        slot="site",
        value="kohls.com",
        conditions="men's chinos",
    ),
]


def test_gate_weighs_only_the_request_scope_and_types(tmp_path):
    agent, mem = _agent(tmp_path, FACTS, "Find seats for concert tickets this friday")
    try:
        assert (
            agent.decide_call(
                Event("candidate_call", 2, tool="web_search", args={"query": "x"})
            ).decision.action
            == "silent"
        )  # read-only: not gated
        gd = agent.decide_call(
            Event("candidate_call", 3, tool="open_website", args={"site": "https://google.com"})
        )
        assert gd.decision.action == "intervene" and [m.item_id for m in gd.evidence] == ["s1"]
        ok = agent.decide_call(
            Event("candidate_call", 4, tool="open_website", args={"site": "https://www.seatgeek.com/tickets"})
        )
        assert ok.decision.action == "silent"  # same site by type, not by string
    finally:
        agent.end(True)
        mem.close()


def test_user_stated_value_wins_and_one_hold_per_call(tmp_path):
    agent, mem = _agent(tmp_path, FACTS, "On stubhub.com find seats for concert tickets")
    try:
        gd = agent.decide_call(Event("candidate_call", 2, tool="open_website", args={"site": "stubhub.com"}))
        assert gd.decision.action == "silent"  # the user named the site in this task
    finally:
        agent.end(True)
        mem.close()
    agent, mem = _agent(tmp_path / "b", FACTS, "Find seats for concert tickets")
    try:

        def call(step):
            return agent.decide_call(
                Event("candidate_call", step, tool="open_website", args={"site": "google.com"})
            )

        assert call(2).decision.action == "intervene"
        assert call(3).decision.action == "silent"  # the same held call proposed again passes
        assert agent.stats.interventions == 1
    finally:
        agent.end(True)
        mem.close()


def test_a_revised_held_call_is_not_held_twice_until_a_call_returns(tmp_path):
    agent, mem = _agent(tmp_path, FACTS, "Find seats for concert tickets")
    try:

        def call(step, site):
            return agent.decide_call(Event("candidate_call", step, tool="open_website", args={"site": site}))

        assert call(2, "google.com").decision.action == "intervene"
        # the revision still differs from memory: one hold per held call, so it passes -- without a
        # policy call (an intervention is the only thing a contradicted value calls for)
        calls = agent.stats.policy_calls
        revised = call(3, "bing.com")
        assert revised.decision.action == "silent"
        assert agent.stats.policy_calls == calls and not agent.stats.decisions[-1].policy_called
        # a call returned: the next open_website is a new call and may be held again
        agent.observe(Event("tool_result", 4, tool="open_website", text="ok"))
        assert call(5, "google.com").decision.action == "intervene"
        assert agent.stats.interventions == 2
    finally:
        agent.end(True)
        mem.close()
    agent, mem = _agent(tmp_path / "p", FACTS, "Find seats for concert tickets", precheck=False)
    try:  # asked anyway (no pre-check), the policy's second hold is converted and delivers nothing
        assert call(2, "google.com").decision.action == "intervene"
        delivered = len(agent.stats.deliveries)
        assert call(3, "bing.com").decision.action == "silent"
        assert agent.stats.decisions[-1].converted == "repeat_hold->silent"
        assert len(agent.stats.deliveries) == delivered and agent.stats.interventions == 1
    finally:
        agent.end(True)
        mem.close()
    agent, mem = _agent(tmp_path / "u", FACTS, "Find seats for concert tickets", max_holds_per_call=0)
    try:  # 0 = no limit: every revision that differs is held
        for step in (2, 3):
            gd = agent.decide_call(Event("candidate_call", step, tool="open_website", args={"site": "a.com"}))
            assert gd.decision.action == "intervene"
    finally:
        agent.end(True)
        mem.close()


def test_runtime_config_rejects_bad_knobs():
    with pytest.raises(ValueError, match="scope_threshold"):
        PulseAgentConfig(user_id="u", scope_threshold=1.5)
    with pytest.raises(ValueError, match="max_holds_per_call"):
        PulseAgentConfig(user_id="u", max_holds_per_call=-1)
