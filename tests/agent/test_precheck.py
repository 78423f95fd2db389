"""The pre-check never skips a decision point where the gold rule acts: every policy input the
run time builds on the offline suites (rule policy, seed 0) is checked."""

from __future__ import annotations

import pytest

from pulse.agent.precheck import needs_decision
from pulse.agent.rule_policy import RulePolicy, rule_decision


class Recording(RulePolicy):
    def __init__(self):
        self.inputs = []

    def decide_batch(self, inputs):
        self.inputs += list(inputs)
        return super().decide_batch(inputs)


@pytest.mark.parametrize("benchmark", ["pibench_sim", "mcp_persona_sim", "independent_sim"])
def test_precheck_is_a_superset_of_where_the_gold_rule_acts(benchmark, tmp_path):
    from eval.agents.simulated import SimulatedAgent
    from eval.config import BenchmarkConfig, EmbedderConfig
    from eval.memory_backends import build_embedder
    from eval.methods.pulse_method import PulseMethod
    from eval.methods.seed import ChainSeed
    from eval.registry import BENCHMARKS

    bench = BENCHMARKS.get(benchmark)(BenchmarkConfig(name=benchmark))
    policy = Recording()
    method = PulseMethod("pulse_rule", "structured", policy, precheck=False)  # see every decision point
    emb = build_embedder(EmbedderConfig())
    for user, tasks in bench.chains().items():
        mem = method.open_chain(
            ChainSeed(
                user,
                tuple(t.project_id for t in tasks),
                bench.seed_history(user),
                tmp_path / user,
                emb,
                bench.tools(user),
            )
        )
        env = bench.open_env(user)
        try:
            for t in tasks:
                SimulatedAgent().run(
                    t, env, method.open_session(t, mem, False, tools=bench.tools(user)), 0, bench
                )
        finally:
            env.close()
            mem.close()
    acting = [i for i in policy.inputs if rule_decision(i).action != "silent"]
    assert len(policy.inputs) > 100 and acting
    missed = [i for i in acting if not needs_decision(i)]
    assert not missed, f"{len(missed)} of {len(acting)} acting points skipped"
    skipped = sum(not needs_decision(i) for i in policy.inputs)
    assert skipped > len(policy.inputs) // 3  # it saves calls, not just in theory


def test_a_read_only_call_runs_at_once_and_memory_reads_it_in_the_background(tmp_path):
    """Speculation: a read-only call is never held (nor waits for the memory agent); what memory has
    about it can only become a supplement for the next decision."""
    from pulse.agent import PulseAgent, PulseAgentConfig
    from pulse.agent.blind_policies import BlindPolicy
    from pulse.agent.call_kinds import CallKinds
    from pulse.core.records import Event, MemoryItem, Provenance
    from pulse.memory import open_memory

    mem = open_memory("structured", tmp_path / "m", "bm25")
    mem.create_user("u1")
    mem.add_items(
        [
            MemoryItem(
                "m1",
                "preference",
                "user:u1",
                "u1 prefers city Lisbon.",
                "city",
                "Lisbon",
                provenance=Provenance("user_statement"),
                valid_from="2025-01-01",
            )
        ]
    )
    agent = PulseAgent(
        mem,
        BlindPolicy("intervene_all"),
        PulseAgentConfig(
            "u1",
            concurrent=False,
            initial_personalization=False,
            precheck=False,
            call_kinds=CallKinds.build(read_only={"search_hotels"}),
        ),
    )
    agent.start(Event("request", 1, role="user", text="find me a hotel"))
    before = agent.stats.blocking_s
    gd = agent.decide_call(Event("candidate_call", 2, tool="search_hotels", args={"city": "Porto"}))
    assert gd.decision.action == "silent" and agent.stats.interventions == 0
    assert agent.stats.blocking_s == before  # the task agent did not wait
    notes = agent.take_supplements()
    assert notes and notes[0].items[0].item_id == "m1"  # the background decision became a supplement
    mem.close()


def _inp(*events, value="wandb"):
    from pulse.core.policy_io import PolicyInput
    from pulse.core.records import MemoryItem

    pref = MemoryItem("m1", "preference", "user:u1", f"u1 prefers tracker {value}.", "tracker", value)
    return PolicyInput(tuple(events), (pref,))


def test_a_value_the_user_stated_in_this_task_is_no_conflict():
    from pulse.core.gold import gold_decision
    from pulse.core.records import Event

    req = Event("request", 1, role="user", text="log it with mlflow", args={"tracker": "mlflow"})
    call = Event("candidate_call", 2, tool="log_experiment", args={"tracker": "mlflow"})
    inp = _inp(req, call)
    assert not needs_decision(inp) and gold_decision(inp.prefix, inp.snapshot).action == "silent"
    other = Event("candidate_call", 2, tool="log_experiment", args={"tracker": "tensorboard"})
    assert needs_decision(_inp(req, other))  # a value nobody stated that memory contradicts
    plan = Event("message", 2, role="agent", text="next: log with mlflow", args={"tracker": "mlflow"})
    assert not needs_decision(_inp(req, plan))


def test_usual_slot_is_a_decision_point_whatever_is_stated_and_a_result_only_when_it_leaves_it_open():
    from pulse.core.records import Event

    req = Event("request", 1, role="user", text="log it with my usual tracker", args={"tracker": "?"})
    plan = Event("message", 2, role="agent", text="next: log with mlflow", args={"tracker": "mlflow"})
    assert needs_decision(_inp(req, plan))  # "my usual" refers to memory: a plan naming another value
    done = Event("tool_result", 3, tool="log_experiment", args={"tracker": "mlflow"})
    assert not needs_decision(_inp(req, plan, done))  # the call has run: its value cannot change now
    open_ = Event("tool_result", 3, tool="search", args={"hits": "3"})
    assert needs_decision(_inp(req, open_))  # the usual tracker is still open for what comes next


def test_the_users_own_words_are_never_a_decision_point():
    from pulse.core.records import Event

    req = Event("request", 1, role="user", text="log it", args={"tracker": "mlflow"})
    msg = Event("message", 2, role="user", text="actually tensorboard", args={"tracker": "tensorboard"})
    assert not needs_decision(_inp(req, msg))


def test_a_call_that_can_no_longer_be_held_asks_only_about_what_memory_can_still_supplement():
    from pulse.core.records import Event

    req = Event("request", 1, role="user", text="log it", args={})
    call = Event("candidate_call", 2, tool="log_experiment", args={"tracker": "mlflow"})
    assert needs_decision(_inp(req, call)) and not needs_decision(_inp(req, call), can_hold=False)
    usual = Event("request", 1, role="user", text="log it with my usual tracker", args={"tracker": "?"})
    bare = Event("candidate_call", 2, tool="log_experiment", args={"seed": "1"})
    assert needs_decision(_inp(usual, bare), can_hold=False)  # the implicit slot can still be supplemented
