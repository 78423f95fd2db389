"""Pulse runtime: gate semantics, supplements, concurrency, parse failures, writeback."""

from __future__ import annotations

import time

import pytest
from agent_helpers import notes_preference

from pulse.agent import PreCommitGate, PulseAgent, PulseAgentConfig
from pulse.agent.gate import GateDecision, ToolCallError
from pulse.agent.rule_policy import RulePolicy
from pulse.core.records import Decision, Event, MemoryItem, Provenance
from pulse.memory import StoreMemory, open_memory
from pulse.policy.base import outputs_from_texts

_ROOTS: list = []


@pytest.fixture(autouse=True)
def _memory_roots(tmp_path_factory):
    """Each test's stores live under pytest's tmp dirs (the real SQLite store, BM25 embedder)."""
    _ROOTS.append(tmp_path_factory)
    yield
    _ROOTS.pop()


def structured_memory() -> StoreMemory:
    mem = open_memory("structured", _ROOTS[-1].mktemp("mem"), "bm25")
    mem.create_user("u1")
    mem.create_project("p1")
    return mem


class ScriptedPolicy:
    """Returns a fixed completion text for every input (goes through the real parser)."""

    name = "scripted"

    def __init__(self, text: str, delay_s: float = 0.0):
        self.text, self.delay_s, self.calls = text, delay_s, 0

    def decide_batch(self, inputs):
        self.calls += len(inputs)
        time.sleep(self.delay_s)
        return outputs_from_texts([self.text] * len(inputs), inputs, "compact")


def memory_with_pref() -> StoreMemory:
    mem = structured_memory()
    mem.add_items([notes_preference()])
    return mem


def call(step=3, app="notion") -> Event:
    return Event("candidate_call", step, tool="create_note", args={"name": "n1", "notes_app": app})


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, tool, args):
        self.calls.append((tool, dict(args)))
        if tool == "boom":
            raise ToolCallError("unknown tool 'boom'")
        return {"status": "ok"}


def test_gate_never_executes_an_intervened_call():
    ex = Recorder()
    gate = PreCommitGate(
        ex, decide=lambda ev: GateDecision(Decision("intervene", ("m1",)), message="use obsidian")
    )
    for i in range(5):
        r = gate.call("create_note", {"name": f"n{i}", "notes_app": "notion"})
        assert r.intervened and not r.executed and r.evidence_text == "use obsidian"
    assert ex.calls == []


@pytest.mark.parametrize("action", ["silent", "supplement"])
def test_gate_always_executes_silent_and_supplement(action):
    ex = Recorder()
    gate = PreCommitGate(ex, decide=lambda ev: GateDecision(Decision(action)))
    for i in range(5):
        assert gate.call("create_note", {"name": f"n{i}"}).executed
    assert len(ex.calls) == 5


def test_gate_turns_tool_errors_into_results():
    r = PreCommitGate(Recorder()).call("boom", {})
    assert not r.executed and not r.intervened and "unknown tool" in r.error


def test_pulse_agent_gate_blocks_with_evidence_and_never_executes():
    agent = PulseAgent(memory_with_pref(), RulePolicy(), PulseAgentConfig("u1", concurrent=False))
    agent.start(Event("request", 0, text="make a note", args={"notes_app": "?"}))
    ex = Recorder()
    gate = PreCommitGate(ex, decide=agent.decide_call)
    r = gate.call("create_note", {"name": "n1", "notes_app": "notion"}, call())
    assert r.intervened and ex.calls == [] and [m.item_id for m in r.decision.evidence] == ["m1"]
    r2 = gate.call("create_note", {"name": "n1", "notes_app": "obsidian"}, call(4, "obsidian"))
    assert r2.executed and len(ex.calls) == 1
    assert agent.end().interventions == 1


def test_explicit_request_value_is_not_intervened_and_habits_never_are():
    mem = memory_with_pref()
    mem.add_items([MemoryItem("h1", "habit", "user:u1", "u1 often uses maps app amap.", "maps_app", "amap")])
    agent = PulseAgent(mem, RulePolicy(), PulseAgentConfig("u1", concurrent=False))
    agent.start(Event("request", 0, text="note in notion", args={"notes_app": "notion"}))
    assert agent.decide_call(call()).decision.action == "silent"
    ev = Event("candidate_call", 5, tool="plan_route", args={"name": "r", "maps_app": "google_maps"})
    assert agent.decide_call(ev).decision.action == "silent"


def test_supplement_reaches_the_next_decision():
    agent = PulseAgent(
        memory_with_pref(),
        ScriptedPolicy('{"action": "supplement", "evidence": ["m1"]}'),
        PulseAgentConfig("u1", concurrent=True, initial_personalization=False),
    )
    agent.start(Event("request", 0, text="hello"))
    agent.observe(
        Event(
            "message", 1, role="agent", text="next: a note", args={"subgoal": "write note", "notes_app": "?"}
        )
    )
    notes = agent.take_supplements(wait=True)
    assert len(notes) == 1 and notes[0].items[0].item_id == "m1" and "obsidian" in notes[0].message
    assert agent.take_supplements() == []  # delivered once
    stats = agent.end()
    assert stats.supplements == 1 and stats.retrieve_tokens > 0


def test_simulated_agent_uses_a_supplement_in_its_next_decision():
    from eval.agents.simulated import BehaviourParams, SimulatedAgent
    from eval.suites.schema import ArgSpec, Checkpoint, SimTask, StepSpec, ToolSpec
    from eval.suites.workspace import Workspace

    tool = ToolSpec("create_note", "notes", "", {"notes_app": ["notion", "obsidian"]})
    steps = tuple(
        StepSpec(
            f"t:{i}",
            "create_note",
            f"n{i}",
            "note",
            (ArgSpec("notes_app", "obsidian", "preference", "notion"),),
            "early",
        )
        for i in range(2)
    )
    task = SimTask(
        "t",
        "u1",
        "",
        "notes",
        1,
        "2025-06-01T00:00:00",
        2,
        "two notes",
        {},
        steps,
        tuple(Checkpoint(f"c{i}", f"n{i}", "notes_app", "obsidian", "early", "preference") for i in range(2)),
    )
    mem = memory_with_pref()
    # supplement-only Pulse whose policy supplements m1 at every event: step 1's call is already
    # emitted when the supplement arrives, step 2 must use it.
    agent = PulseAgent(
        mem,
        ScriptedPolicy('{"action": "supplement", "evidence": ["m1"]}'),
        PulseAgentConfig("u1", concurrent=False, initial_personalization=False),
    )
    env = Workspace([tool])
    SimulatedAgent(BehaviourParams(p_use_delivered=1.0, decay_per_step=0.0)).run(task, env, agent, seed=0)
    assert env.state["n1"]["notes_app"] == "obsidian"


def test_observe_does_not_block_but_gate_waits():
    pol = ScriptedPolicy('{"action": "silent"}', delay_s=0.3)
    agent = PulseAgent(
        memory_with_pref(), pol, PulseAgentConfig("u1", concurrent=True, initial_personalization=False)
    )
    agent.start(Event("request", 0, text="x"))
    t0 = time.perf_counter()
    agent.observe(
        Event("message", 1, role="agent", text="a", args={"subgoal": "write note", "notes_app": "?"})
    )
    assert time.perf_counter() - t0 < 0.1
    t0 = time.perf_counter()
    agent.decide_call(call())
    # drains the queued event (its own decision is skipped if not yet started), then decides
    assert time.perf_counter() - t0 >= 0.25
    assert agent.stats.decisions[-1].event_kind == "candidate_call"
    agent.end()


def test_parse_failure_is_counted_and_silent():
    agent = PulseAgent(
        memory_with_pref(), ScriptedPolicy("garbage {"), PulseAgentConfig("u1", concurrent=False)
    )
    agent.start(Event("request", 0, text="x"))
    assert agent.decide_call(call()).decision.action == "silent"
    assert agent.stats.parse_failures == 1


def test_intervene_outside_a_call_is_illegal_and_silent():
    agent = PulseAgent(
        memory_with_pref(),
        ScriptedPolicy('{"action": "intervene", "evidence": ["m1"]}'),
        PulseAgentConfig("u1", concurrent=False, initial_personalization=False),
    )
    agent.start(Event("request", 0, text="x"))
    agent.observe(Event("message", 1, role="agent", text="a", args={"subgoal": "s", "notes_app": "?"}))
    assert agent.stats.illegal_interventions == 1 and agent.take_supplements() == []


def test_supplement_only_mode_converts_interventions():
    agent = PulseAgent(
        memory_with_pref(), RulePolicy(), PulseAgentConfig("u1", concurrent=False, allow_intervene=False)
    )
    agent.start(Event("request", 0, text="x", args={"notes_app": "?"}))
    assert agent.decide_call(call()).decision.action == "supplement"


def test_writeback_commits_user_statements_and_decision_receipts_abort_discards():
    for completed in (True, False):
        mem = structured_memory()
        agent = PulseAgent(mem, RulePolicy(), PulseAgentConfig("u1", "p1", concurrent=False))
        agent.start(Event("request", 0, text="x", time="2025-01-01"))
        agent.observe(
            Event(
                "message",
                1,
                role="user",
                text="from now on my preferred tone is formal",
                args={"tone": "formal"},
                time="2025-01-01",
            )
        )
        agent.observe(
            Event("tool_result", 2, tool="approve_plan", args={"decision.template": "acl"}, time="2025-01-01")
        )
        stats = agent.end(completed)
        slots = {(m.kind, m.slot, m.value) for m in mem.snapshot("u1", "p1")}
        if completed:
            assert stats.committed_items >= 2
            assert {("preference", "tone", "formal"), ("project_state", "template", "acl")} <= slots
        else:
            assert stats.committed_items == 0 and slots == set()


def test_writeback_with_the_real_store(tmp_path):
    from pulse.memory import open_memory

    mem = open_memory("structured", tmp_path / "m", "bm25")
    mem.create_user("u1")
    mem.create_project("p1")
    agent = PulseAgent(
        mem, RulePolicy(), PulseAgentConfig("u1", "p1", concurrent=False, conversation_id="task-1")
    )
    agent.start(Event("request", 0, text="x", time="2025-01-01T00:00:00"))
    agent.observe(
        Event(
            "message",
            1,
            role="user",
            text="From now on, my preferred tone is formal.",
            args={"tone": "formal"},
            time="2025-01-01T00:00:00",
            event_id="e1",
        )
    )
    agent.observe(
        Event(
            "tool_result",
            2,
            tool="approve_plan",
            text="ok",
            args={"status": "ok", "decision.template": "acl"},
            time="2025-01-01T00:00:00",
            event_id="e2",
        )
    )
    stats = agent.end(True)
    assert stats.committed_items >= 2 and stats.store_tokens > 0
    slots = {(m.kind, m.slot, m.value) for m in mem.snapshot("u1", "p1")}
    assert ("project_state", "template", "acl") in slots
    assert any(k == "preference" and s == "tone" for k, s, _ in slots)


def test_listener_parses_text_and_writeback_stores_the_parsed_slot():
    """The memory agent reads slot values from text with the tools' vocabulary, replacing any args
    the caller attached, and writes a user's revision under the tool's slot name (a multi-word slot
    whose text form is "seed policy" must be stored as `seed_policy`)."""
    from pulse.core.statements import vocab_from_params

    mem = structured_memory()
    vocab = vocab_from_params(
        {"seed_policy": ["fixed", "three_seeds", "five_seeds"], "tracker": ["wandb", "mlflow"]}
    )
    agent = PulseAgent(mem, RulePolicy(), PulseAgentConfig("u1", "p1", concurrent=False, slot_vocab=vocab))
    agent.start(
        Event("request", 0, text="Log the run; use my usual tracker.", role="user", args={"tracker": "wandb"})
    )  # a suite's own parse is ignored
    assert agent.listener.prefix[0].args == {"tracker": "?"}
    agent.observe(
        Event("message", 1, role="user", text="From now on my preferred seed policy is five_seeds.")
    )
    agent.end(True)
    got = {(m.slot, m.value) for m in mem.snapshot("u1") if m.kind == "preference" and m.is_current}
    assert ("seed_policy", "five_seeds") in got


def _decision(item_id: str, project: str, slot: str, value: str, since: str, until: str = "") -> MemoryItem:
    return MemoryItem(
        item_id,
        "project_state",
        f"project:{project}",
        f"Project decision: {slot} = {value}.",
        slot,
        value,
        "decisions",
        provenance=Provenance("user_statement"),
        valid_from=since,
        valid_to=until,
    )


def test_the_start_of_task_delivery_leads_with_the_projects_current_decisions():
    """Inside a project its accepted decisions take precedence over general preferences (issue 29):
    the request's words retrieve the notes preference, the delivery still leads with the project's
    current style-guide decision; a superseded decision and another project's never come."""
    mem = memory_with_pref()
    mem.create_project("p2")
    mem.add_items(
        [
            _decision("d-old", "p1", "style_guide", "ap_style", "2024-01-01", until="2024-06-01"),
            _decision("d-new", "p1", "style_guide", "chicago", "2024-06-01"),
            _decision("d-other", "p2", "style_guide", "house_guide", "2024-07-01"),
        ]
    )
    agent = PulseAgent(mem, RulePolicy(), PulseAgentConfig("u1", project_id="p1", initial_k=2))
    delivery = agent.start(Event("request", 0, text="write a note in my notes app obsidian"))
    ids = [i.item_id for i in delivery.items]
    assert ids[0] == "d-new" and "d-old" not in ids and "d-other" not in ids
    assert "m1" in ids  # the retrieved preference still comes, after the decision
    agent.end()


def test_a_one_off_is_its_own_tasks_never_another_tasks():
    """A task-scoped item (a one-off: "just this time, Notion") is retrieved and snapshot by the task it
    was said in (its conversation id), never by another task: it holds nothing there, and no scope rule
    sees it."""
    from pulse.memory.interface import ItemMeta

    mem = structured_memory()
    one_off = MemoryItem(
        "t1",
        "preference",
        "user:u1",
        "u1 wants notes app notion for this task.",
        "notes_app",
        "notion",
        "notes",
        ("notes_app",),
        "",
        Provenance("user_statement"),
        "2025-01-02",
    )
    mem.add_items([one_off], meta={"t1": ItemMeta(task_id="task-A")})

    def held_in(task: str) -> bool:
        agent = PulseAgent(mem, RulePolicy(), PulseAgentConfig("u1", concurrent=False, conversation_id=task))
        agent.start(Event("request", 0, text="make a note", args={"notes_app": "?"}))
        snap = [m.item_id for m in agent.inputs.snapshot()]
        assert snap == (["t1"] if task == "task-A" else [])
        return agent.decide_call(call(app="obsidian")).decision.action == "intervene"

    assert held_in("task-A")
    assert not held_in("task-B")
