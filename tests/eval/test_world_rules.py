"""The world's rules for every method (issue 30): plan and call are one step (a delivery after the
plan never changes the announced call; only a hold does, and it is counted), a Proactive Memory Agent
reminder reaches only the next call, common random numbers (the same deliveries give the same
episode, and one method's extra decisions do not shift another step's draws), and what a held call
makes the agent do."""

from __future__ import annotations

import pytest

from eval.agents.behaviour import BehaviourParams, Context, hold_response
from eval.agents.simulated import SimulatedAgent
from eval.suites.reader import ValueReader
from eval.suites.schema import ArgSpec, Checkpoint, SimTask, StepSpec, ToolSpec
from eval.suites.workspace import Workspace
from pulse.agent.gate import GateDecision
from pulse.agent.runtime import AgentStats, Delivery
from pulse.core.records import Decision, MemoryItem, Provenance

TOOL = ToolSpec("book", "travel", "", {"seat": ["middle", "aisle", "window"], "meal": ["none", "veg"]})
ITEM = MemoryItem(
    "m1", "preference", "user:u1", "My preferred seat is aisle.", "seat", "aisle",
    provenance=Provenance("user_statement"), valid_from="2024-01-01",
)  # fmt: skip
NOTE = "- [m1] My preferred seat is aisle."


def task(i: int, steps: int = 3) -> SimTask:
    specs = tuple(
        StepSpec(
            f"s{k}", "book", f"trip{i}_{k}", f"book flight {k}",
            (ArgSpec("seat", "aisle", "preference", "middle"), ArgSpec("meal", "none", "default", "none")),
            "early",
        )
        for k in range(steps)
    )  # fmt: skip
    checks = tuple(
        Checkpoint(f"c{k}", f"trip{i}_{k}", "seat", "aisle", "early", "preference") for k in range(steps)
    )
    return SimTask(f"t{i}", "u1", "", "travel", 1, "2025-01-01", 2, "Book my flights.", {}, specs, checks)


class Session:
    """A memory session for the tests: `after_plan` queues a note once the agent has announced its
    first call; `at_start` hands one before the first decision; `hold_first` holds the first call."""

    def __init__(self, at_start="", after_plan="", hold_first=False, transient=False, evidence=NOTE):
        self.stats = AgentStats()
        self.at_start, self.after_plan, self.hold_first = at_start, after_plan, hold_first
        self.transient, self.evidence = transient, evidence
        self.pending: list[Delivery] = []
        self.held = False
        self.seen = []  # what the memory agent observed

    def start(self, request):
        return None

    def observe(self, event):
        self.seen.append(event)
        if event.kind == "message" and event.role == "agent" and self.after_plan:
            self.pending.append(Delivery((ITEM,), self.after_plan, event.step, "supplement", self.transient))
            self.after_plan = ""

    def decide_call(self, event):
        if self.hold_first and not self.held:
            self.held = True
            return GateDecision(Decision("intervene", ("m1",)), (ITEM,), self.evidence)
        return None

    def take_supplements(self, wait=False):
        if self.at_start:
            self.pending.append(Delivery((ITEM,), self.at_start, 0, "supplement", self.transient))
            self.at_start = ""
        out, self.pending = self.pending, []
        return out

    def end(self, completed=True):
        return self.stats


DEFAULT = BehaviourParams()


def run(session, i=0, params=DEFAULT, steps=3):
    env = Workspace([TOOL])
    out = SimulatedAgent(params).run(task(i, steps), env, session, seed=0)
    return out, env


def calls(out):
    return [e for e in out.events if e["kind"] == "candidate_call"]


def announced(out):
    return [e["announced"] for e in out.events if "announced" in e]


# -- plan and call are one step --------------------------------------------------------------------
def test_a_delivery_after_the_plan_never_changes_the_announced_call_but_reaches_the_next():
    sure = BehaviourParams(p_use_delivered=1.0, decay_per_step=0.0)
    out, env = run(Session(after_plan=NOTE), params=sure)
    first = calls(out)[0]["args"]
    assert first["seat"] == announced(out)[0]["seat"] == "middle"  # the default, as announced
    assert not out.interventions
    assert env.state["trip0_1"]["seat"] == "aisle"  # the next decision took it


def _one_config_per_method() -> list[str]:
    """Every registered method by one config (Pulse by its rule and its blind intervene-all policy,
    which needs no checkpoint), so a method added later is covered too."""
    from method_configs import method_configs

    from eval.registry import METHODS

    impls = {name: c["impl"] for name, c in method_configs().items()}
    names = [n for n, impl in impls.items() if n == impl and impl != "pulse"]
    assert set(names) | {"pulse"} == set(METHODS.names())
    return sorted(names) + ["pulse_rule", "pulse_intervene_all"]


@pytest.mark.parametrize("method", _one_config_per_method())
def test_every_method_changes_an_announced_call_only_by_a_counted_hold(
    method, tmp_path, monkeypatch, eval_cfg
):
    """For every method on a generated suite: each step's first call is exactly what its plan
    announced, and a later call of the same step comes only after a hold, which is counted."""
    from eval.harness import run_eval

    episodes = []
    real_run = SimulatedAgent.run

    def recording(self, *a, **kw):
        out = real_run(self, *a, **kw)
        episodes.append(out)
        return out

    monkeypatch.setattr(SimulatedAgent, "run", recording)
    cfg = eval_cfg(tmp_path, method, "pibench_sim", ["benchmark.max_tasks=3"])
    run_eval(cfg)
    assert episodes
    for out in episodes:
        held = 0
        for ev in out.events:
            if "announced" in ev:
                plan, fresh = ev["announced"], True
            elif ev["kind"] == "intervened":
                held += 1
                fresh = False
            elif ev["kind"] == "candidate_call" and fresh:
                assert {k: v for k, v in ev["args"].items() if k != "name"} == plan, method
        assert held == len(out.interventions)


# -- the Proactive Memory Agent's reminder is for the next call only --------------------------------
def test_a_transient_reminder_reaches_the_next_call_only():
    sure = BehaviourParams(p_use_delivered=1.0, decay_per_step=0.0)
    out, env = run(Session(at_start=NOTE, transient=True), params=sure)
    assert env.state["trip0_0"]["seat"] == "aisle"
    assert env.state["trip0_1"]["seat"] == env.state["trip0_2"]["seat"] == "middle"
    out, env = run(Session(at_start=NOTE), params=sure)  # the same note, kept
    assert [env.state[f"trip0_{k}"]["seat"] for k in range(3)] == ["aisle"] * 3


def test_context_drops_a_transient_delivery_and_its_tokens():
    ctx = Context(ValueReader({"seat": {"aisle": ("aisle",)}}), "")
    ctx.receive(Delivery((), "My preferred seat is aisle.", 0, "supplement"), 1)
    kept = ctx.load
    ctx.receive(Delivery((), "Reminder: seat aisle.", 0, "supplement", True), 1)
    assert len(ctx.readings) == 2 and ctx.load > kept
    ctx.next_call()
    assert len(ctx.readings) == 1 and ctx.load == kept


def test_the_proactive_memory_agents_deliveries_are_transient_and_other_baselines_are_not():
    from eval.methods.mem0 import Mem0Session
    from eval.methods.pma import PMASession

    assert PMASession.transient_deliveries and not Mem0Session.transient_deliveries


# -- common random numbers ---------------------------------------------------------------------------
def test_the_same_deliveries_give_identical_episodes():
    for i in range(20):
        a, ea = run(Session(at_start=NOTE), i)
        b, eb = run(Session(at_start=NOTE), i)
        assert a.events == b.events and ea.state == eb.state


def test_another_methods_extra_decision_does_not_shift_later_draws():
    """A hold on step 0 adds decisions; with decay and load switched off, steps 1 and 2 are decided
    on the same draws as without it (draws are keyed by task, step, purpose and slot)."""
    flat = BehaviourParams(
        decay_per_step=0.0, load_penalty=0.0, p_use_delivered=0.5, p_hold_abandon=0.0, p_hold_repeat=0.0
    )
    for i in range(40):
        a, ea = run(Session(at_start=NOTE), i, flat)
        b, eb = run(Session(at_start=NOTE, hold_first=True, evidence="Nothing to add."), i, flat)
        assert b.llm_calls > a.llm_calls
        assert [ea.state[f"trip{i}_{k}"] for k in (1, 2)] == [eb.state[f"trip{i}_{k}"] for k in (1, 2)]


# -- what a held call makes the agent do -----------------------------------------------------------
def test_hold_responses_follow_their_shares():
    p = BehaviourParams(p_hold_abandon=0.2, p_hold_ask_user=0.3, p_hold_repeat=0.1)
    got = [hold_response(p, (i,)) for i in range(5000)]
    for name, share in (("abandon", 0.2), ("ask_user", 0.3), ("repeat", 0.1), ("replan", 0.4)):
        assert got.count(name) / len(got) == pytest.approx(share, abs=0.025)


def test_a_hold_can_make_the_agent_give_up_ask_or_repeat():
    def once(**knobs):
        session = Session(hold_first=True)
        hold = {"p_hold_abandon": 0.0, "p_hold_ask_user": 0.0, "p_hold_repeat": 0.0, **knobs}
        out, env = run(session, params=BehaviourParams(p_follow_explicit=1.0, **hold), steps=1)
        return out, env, session

    out, env, _ = once(p_hold_abandon=1.0)
    assert out.abandoned_steps == 1 and "trip0_0" not in env.state and out.interventions[0].misled is False
    out, env, session = once(p_hold_ask_user=1.0)
    assert env.state["trip0_0"]["seat"] == "aisle"  # the user said so
    said = [(e.role, e.text) for e in session.seen if e.kind == "message"]
    assert ("user", "Use seat aisle.") in said and any(r == "agent" and "?" in t for r, t in said)
    out, env, _ = once(p_hold_repeat=1.0)  # the same call again: the session lets it through this time
    assert len(calls(out)) == 2 and calls(out)[0]["args"] == calls(out)[1]["args"]
    assert out.hold_responses == {"repeat": 1}


def test_hold_shares_over_one_are_refused():
    from pulse.config.schema import ConfigError

    with pytest.raises(ConfigError, match="p_hold_abandon"):
        BehaviourParams(p_hold_abandon=0.6, p_hold_repeat=0.5)


# -- the upper bound -------------------------------------------------------------------------------
def test_the_upper_bound_holds_only_wrong_calls_and_beats_no_memory():
    from eval.methods.gold_facts import GoldFacts
    from eval.suites import mcp_persona_sim
    from eval.suites.scoring import check_task
    from eval.suites.workspace import make_env

    suite = mcp_persona_sim.generate(0, n_personas=2)
    replan = BehaviourParams(p_hold_abandon=0.0, p_hold_repeat=0.0)  # a hold always re-plans
    passed = {"gold_facts": 0, "none": 0}
    total = 0
    for t in suite.tasks:
        for name in passed:
            env = make_env(suite.persona(t.user_id).tools)
            session = GoldFacts().open_session(t, None, False) if name == "gold_facts" else Session()
            out = SimulatedAgent(replan).run(t, env, session, seed=0)
            checks = check_task(t, env.state)
            passed[name] += sum(c.passed for c in checks)
            total += len(checks) if name == "none" else 0
            if name == "gold_facts":
                assert all(r.correct and not r.misled for r in out.interventions)
    assert passed["gold_facts"] >= 0.95 * total > passed["none"]
