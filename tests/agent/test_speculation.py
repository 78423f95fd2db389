"""Plan-time speculation: the call predictor, and that a gate decision made ahead is used only for an
exactly equal gate input (no sleeps, no timing asserts: the worker is drained with `flush`)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from agent_helpers import notes_preference

from pulse.agent import PulseAgent, PulseAgentConfig
from pulse.agent.listener import SUBGOAL_KEY, read_statement
from pulse.agent.schema import SchemaTool
from pulse.agent.speculation import CallSpec, announced_tool, call_specs_from, predict_call, same_input
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Event
from pulse.core.statements import vocab_from_params
from pulse.memory import open_memory
from pulse.policy.base import outputs_from_texts

SPECS = (
    CallSpec("create_note", ("notes_app", "tone"), "name"),
    CallSpec("send_update", ("tone",), "name"),
    CallSpec("log_experiment", ("tracker",), "name"),
)
VOCAB = vocab_from_params({"notes_app": ["notion", "obsidian"], "tone": ["formal", "casual"]})


def plan(text: str, step: int = 4, role: str = "agent", vocab=VOCAB) -> Event:
    """An agent message as the listener reads it (slot values parsed from its text)."""
    ev = Event(
        "message",
        step,
        time="2025-06-01",
        text=text,
        role=role,
        args={SUBGOAL_KEY: "x"},
        event_id=f"t#{step}",
    )
    return read_statement(ev, vocab)


# ---- the predictor ----------------------------------------------------------------------------------
def test_predicts_the_one_announced_tool_with_artifact_and_values():
    call = predict_call(plan("Next I will create note 'n-1' with notes app notion, tone formal."), SPECS)
    assert call is not None and call.kind == "candidate_call" and call.tool == "create_note"
    assert list(call.args.items()) == [("name", "n-1"), ("notes_app", "notion"), ("tone", "formal")]
    assert (call.step, call.time, call.event_id) == (5, "2025-06-01", "t#5")


def test_literal_tool_name_and_apostrophes_are_no_quotes():
    call = predict_call(
        plan("I'll call create_note on 'n2' using notes app obsidian and tone casual."), SPECS
    )
    assert call is not None and call.args == {"name": "n2", "notes_app": "obsidian", "tone": "casual"}


def test_the_artifact_name_does_not_count_as_a_tool_mention():
    # "log_experiment" inside the quoted artifact is not a second tool
    call = predict_call(plan("Next I will send update 'log_experiment-3' with tone formal."), SPECS)
    assert call is not None and call.tool == "send_update" and call.args["name"] == "log_experiment-3"


@pytest.mark.parametrize(
    "text",
    [
        "First create note 'a' then send update 'b' with tone formal.",  # two tools: ambiguous
        "Next I will think about 'a' with tone formal.",  # no tool
        "Next I will send update with tone formal.",  # no artifact
        "Next I will send update 'a' or 'b' with tone formal.",  # two artifacts
        "Next I will create note 'a' with notes app notion.",  # tone (a required argument) not stated
        "Next I will create note 'a' in my usual notes app, tone formal.",  # a reference is no value
    ],
)
def test_no_prediction_where_the_call_is_not_fully_announced(text):
    assert predict_call(plan(text), SPECS) is None


def test_only_agent_messages_announce_calls():
    assert predict_call(plan("Please send update 'a' with tone formal.", role="user"), SPECS) is None
    req = read_statement(Event("request", 0, text="send update 'a' with tone formal"), VOCAB)
    assert predict_call(req, SPECS) is None


def test_values_restricted_to_the_tools_parameters():
    call = predict_call(plan("Next I will send update 'u' with tone casual, notes app notion."), SPECS)
    assert call is not None and call.args == {"name": "u", "tone": "casual"}


def test_announced_tool_counts_distinct_tools():
    spec, quoted = announced_tool("create note 'x' (create_note)", SPECS)
    assert spec is not None and spec.name == "create_note" and quoted == ["x"]


def test_call_specs_from_suite_tools_and_json_schemas():
    from eval.suites.schema import ToolSpec

    specs = call_specs_from([ToolSpec("make_figure", "s", "", {"palette": ["a"], "figure_format": ["pdf"]})])
    assert specs == (CallSpec("make_figure", ("palette", "figure_format"), "name"),)
    assert specs[0].needed == ("name", "palette", "figure_format")
    schema = {
        "type": "function",
        "function": {
            "name": "book",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "cabin": {"type": "string", "enum": ["eco"]}},
                "required": ["order_id"],
            },
        },
    }
    (s,) = call_specs_from([SchemaTool.from_openai(schema)])
    assert s.name == "book" and s.artifact_param == "" and s.needed == ("order_id",)
    # a required id the text cannot state: never predicted
    vocab = vocab_from_params({"cabin": ["eco"]})
    assert predict_call(plan("Next I will book with cabin eco.", vocab=vocab), (s,)) is None


def test_same_input_is_exact_down_to_argument_order():
    a = Event("candidate_call", 3, tool="t", args={"x": "1", "y": "2"})
    b = Event("candidate_call", 3, tool="t", args={"y": "2", "x": "1"})
    assert a == b  # dict equality ignores order; a prompt does not
    assert same_input(PolicyInput((a,), ()), PolicyInput((a,), ()))
    assert not same_input(PolicyInput((a,), ()), PolicyInput((b,), ()))
    assert not same_input(PolicyInput((a,), ()), PolicyInput((replace(a, step=4),), ()))


# ---- the runtime --------------------------------------------------------------------------------------
class KindPolicy:
    """Silent at messages, intervenes citing m1 at candidate calls; counts every input it decides."""

    name = "kind"

    def __init__(self):
        self.inputs: list[PolicyInput] = []
        self.batches = 0

    def decide_batch(self, inputs):
        self.inputs += list(inputs)
        self.batches += 1
        texts = [
            '{"action": "intervene", "evidence": ["m1"]}'
            if inp.last_event.kind == "candidate_call"
            else '{"action": "silent"}'
            for inp in inputs
        ]
        return outputs_from_texts(texts, inputs, "compact")


@pytest.fixture
def memory(tmp_path):
    mem = open_memory("structured", tmp_path / "mem", "bm25")
    mem.create_user("u1")
    mem.create_project("p1")
    mem.add_items([notes_preference()])
    return mem


NOTE_SPECS = (CallSpec("create_note", ("notes_app",), "name"),)
NOTE_VOCAB = vocab_from_params({"notes_app": ["notion", "obsidian"]})
PLAN = "Next I will create note 'n1' with notes app notion."


def run(memory, calls, concurrent=True, speculate=True):
    """request, one announcing plan message, then `calls` at the gate; (agent, policy, gate decisions)."""
    policy = KindPolicy()
    agent = PulseAgent(
        memory,
        policy,
        PulseAgentConfig(
            "u1",
            "p1",
            concurrent=concurrent,
            initial_personalization=False,
            slot_vocab=NOTE_VOCAB,
            call_specs=NOTE_SPECS,
            speculate=speculate,
        ),
    )
    agent.start(Event("request", 1, text="make a note", event_id="t#1"))
    agent.observe(Event("message", 2, role="agent", text=PLAN, args={SUBGOAL_KEY: "note"}, event_id="t#2"))
    agent.flush()  # the worker has read the plan before the call comes (no race in a test)
    out = []
    for c in calls:
        gd = agent.decide_call(c)
        out.append((gd.decision.action, tuple(m.item_id for m in gd.evidence), gd.message))
    agent.end()
    return agent, policy, out


def announced(**kw) -> Event:
    base = dict(step=3, tool="create_note", args={"name": "n1", "notes_app": "notion"}, event_id="t#3")
    base.update(kw)
    return Event("candidate_call", base.pop("step"), **base)


def test_a_call_as_announced_takes_the_decision_made_ahead(memory):
    agent, policy, got = run(memory, [announced()])
    st = agent.stats
    assert got == [("intervene", ("m1",), got[0][2])] and "obsidian" in got[0][2]
    # one batch at the plan: the plan's own decision and the announced call's; none at the gate
    assert policy.batches == 1 and len(policy.inputs) == 2
    assert (st.policy_calls, st.speculative_calls, st.speculative_hits, st.speculative_misses) == (1, 1, 1, 0)
    gate = st.decisions[-1]
    assert gate.event_kind == "candidate_call" and gate.speculative and gate.policy_called
    assert gate.action == "intervene" and st.interventions == 1
    # exactly what the gate decides without speculation
    ref_agent, ref_policy, ref = run(memory, [announced()], speculate=False)
    assert ref == got and ref_agent.stats.policy_calls == 2 and ref_agent.stats.speculative_calls == 0
    assert same_input(policy.inputs[1], ref_policy.inputs[1])


@pytest.mark.parametrize(
    "real",
    [
        announced(args={"name": "n2", "notes_app": "notion"}),  # another artifact
        announced(args={"notes_app": "notion", "name": "n1"}),  # same arguments, another order
        announced(step=4, event_id="t#4"),  # not the next event
    ],
)
def test_a_call_unlike_the_announcement_is_decided_afresh(memory, real):
    agent, policy, got = run(memory, [real])
    ref_agent, _, ref = run(memory, [real], speculate=False)
    st = agent.stats
    assert got == ref  # the gate's decision is the one made for its own input
    assert len(policy.inputs) == 3 and policy.inputs[-1].last_event == real  # decided at the gate
    assert (st.policy_calls, st.speculative_calls, st.speculative_hits, st.speculative_misses) == (2, 1, 0, 1)
    assert not st.decisions[-1].speculative


def test_a_call_that_needs_no_decision_wastes_the_speculation(memory):
    agent, policy, got = run(memory, [announced(args={"name": "n1", "notes_app": "obsidian"})])
    st = agent.stats
    assert got[0][0] == "silent" and len(policy.inputs) == 2  # the pre-check settles the gate
    assert (st.speculative_calls, st.speculative_hits, st.speculative_misses) == (1, 0, 1)


def test_an_announcement_never_proposed_is_a_miss_at_task_end(memory):
    agent, _, _ = run(memory, [])
    st = agent.stats
    assert (st.speculative_calls, st.speculative_hits, st.speculative_misses) == (1, 0, 1)
    assert st.to_dict()["speculative_misses"] == 1


def test_the_second_proposal_after_a_hold_is_decided_at_the_gate(memory):
    agent, policy, got = run(memory, [announced(), announced(step=4, event_id="t#4")])
    st = agent.stats
    assert [g[0] for g in got] == ["intervene", "silent"]  # the repeat passes (max_holds_per_call=1)
    # its one hold is spent, so an intervention would pass anyway: no decision point (the pre-check)
    assert not st.decisions[-1].policy_called and not st.decisions[-1].speculative
    assert (st.policy_calls, st.speculative_hits, st.speculative_misses) == (1, 1, 0)


@pytest.mark.parametrize("concurrent,speculate", [(False, True), (True, False)])
def test_no_speculation_in_deterministic_runs_or_when_off(memory, concurrent, speculate):
    agent, policy, got = run(memory, [announced()], concurrent=concurrent, speculate=speculate)
    st = agent.stats
    assert (st.speculative_calls, st.speculative_hits, st.speculative_misses) == (0, 0, 0)
    assert st.policy_calls == 2 and len(policy.inputs) == 2 and policy.batches == 2
    assert got[0][:2] == ("intervene", ("m1",))


def test_deterministic_simulated_run_makes_no_speculative_call(memory):
    """The harness's path (simulated agent, concurrent=False): counts as without speculation."""
    from eval.agents.simulated import SimulatedAgent
    from eval.suites.schema import ArgSpec, Checkpoint, SimTask, StepSpec, ToolSpec
    from eval.suites.workspace import Workspace

    tool = ToolSpec("create_note", "notes", "", {"notes_app": ["notion", "obsidian"]})
    steps = tuple(
        StepSpec(
            f"t:{i}",
            "create_note",
            f"n{i}",
            f"create note 'n{i}'",
            (ArgSpec("notes_app", "obsidian", "preference", "notion"),),
            "early",
        )  # fmt: skip
        for i in range(2)
    )
    task = SimTask(
        "t", "u1", "p1", "notes", 1, "2025-06-01T00:00:00", 2, "two notes", {}, steps,
        tuple(Checkpoint(f"c{i}", f"n{i}", "notes_app", "obsidian", "early", "preference") for i in range(2)),
    )  # fmt: skip
    counts = []
    for speculate in (True, False):
        policy = KindPolicy()
        agent = PulseAgent(
            memory,
            policy,
            PulseAgentConfig(
                "u1",
                "p1",
                concurrent=False,
                writeback=False,
                initial_personalization=False,
                slot_vocab=NOTE_VOCAB,
                call_specs=call_specs_from([tool]),
                speculate=speculate,
            ),
        )
        SimulatedAgent().run(task, Workspace([tool]), agent, seed=0)
        st = agent.stats
        assert st.speculative_calls == 0
        counts.append((st.policy_calls, len(policy.inputs), [d.action for d in st.decisions]))
    assert counts[0] == counts[1] and counts[0][0] > 0
