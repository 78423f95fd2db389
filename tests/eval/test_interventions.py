"""Interruption success in the harness is the one definition of `pulse.core.correctness`.

An intervention is correct only when the held call conflicts with a current binding memory item
that holds the argument's true value *and* the evidence names it; it is misled when it turned a
right call into a wrong one.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache

from eval.agents.behaviour import BehaviourParams
from eval.agents.simulated import SimulatedAgent
from eval.memory_backends import open_chain_memory
from eval.methods.pulse_method import PulseMethod
from eval.suites import pibench_sim
from eval.suites.workspace import make_env
from pulse.agent.rule_policy import RulePolicy
from pulse.core.correctness import conflicts
from pulse.core.gold import BINDING_KINDS
from pulse.core.policy_io import parse_completion, render_completion
from pulse.core.records import Decision
from pulse.policy.base import PolicyOutput

PERSONAS = ("researcher", "law_trainee")


class ScriptedPolicy:
    """A policy given as a function of the PolicyInput (the same interface as a trained one)."""

    def __init__(self, fn):
        self.fn = fn

    def decide_batch(self, inputs):
        outs = []
        for inp in inputs:
            text = render_completion(self.fn(inp))
            parsed = parse_completion(text)
            outs.append(PolicyOutput(parsed.decision_or_silent(), parsed, text, 0))
        return outs


def always_intervene_made_up(inp):
    if inp.last_event.kind == "candidate_call":
        return Decision("intervene", ("m_made_up_1",))
    return Decision("silent")


def intervene_ignoring_the_user(inp):
    """Intervene on every call that disagrees with any current binding item, even where the user
    stated the argument explicitly (what a policy that never learned overrides would do)."""
    last = inp.last_event
    if last.kind != "candidate_call":
        return Decision("silent")
    hits = [m.item_id for m in inp.snapshot if conflicts(m, last.args)]
    return Decision("intervene", tuple(hits)) if hits else Decision("silent")


@lru_cache(maxsize=1)
def suite():
    return pibench_sim.generate(0)


def corrupt(items):
    """Every binding value replaced by another value of the same argument (a poisoned store)."""
    values = {}
    for p in suite().personas:
        for t in p.tools:
            for slot, vs in t.params.items():
                values.setdefault(slot, set()).update(vs)
    rng = random.Random(0)
    out = []
    for m in items:
        if m.kind in BINDING_KINDS and m.slot in values and len(values[m.slot]) > 1:
            other = rng.choice(sorted(values[m.slot] - {m.value}))
            m = replace(m, value=other, text=m.text.replace(m.value, other))
        out.append(m)
    return tuple(out)


def run_chains(policy, tmp_path, corrupted=False, precheck=True, behaviour=None):
    """Run each persona's chain with the simulated agent; returns every InterventionRecord.
    `precheck=False`: the policy is asked at every decision point (pulse/agent/precheck.py skips e.g. a
    value the user stated, where only a policy that ignores the user would intervene)."""
    records = []
    for persona in PERSONAS:
        s = suite()
        tasks = s.chains()[persona]
        p = s.persona(persona)
        items = corrupt(p.memory) if corrupted else p.memory
        mem = open_chain_memory(
            "structured", tmp_path / f"{persona}-{corrupted}", persona, [t.project_id for t in tasks], items
        )
        env = make_env(p.tools)
        method = PulseMethod("t", "structured", policy, precheck=precheck)
        try:
            for t in tasks:
                agent = SimulatedAgent(behaviour) if behaviour else SimulatedAgent()
                out = agent.run(t, env, method.open_session(t, mem, False, tools=p.tools), 0)
                records += out.interventions
        finally:
            mem.close()
    return records


def success(records):
    return sum(r.correct for r in records) / len(records)


def test_always_intervene_with_made_up_evidence_scores_zero(tmp_path):
    recs = run_chains(ScriptedPolicy(always_intervene_made_up), tmp_path)
    assert len(recs) > 20
    assert success(recs) == 0.0
    assert all(r.evidence == () for r in recs)  # a made-up id resolves to no memory item


def test_rule_policy_on_corrupted_memory_scores_below_true_memory(tmp_path):
    true = run_chains(RulePolicy(), tmp_path)
    bad = run_chains(RulePolicy(), tmp_path, corrupted=True)
    assert true and bad
    assert success(true) >= 0.8
    assert success(bad) < success(true) - 0.3


def test_wrong_intervention_on_an_explicit_argument_is_misled(tmp_path):
    # an agent that always takes the held call's evidence over what the user said: every wrong hold
    # against a stated argument misleads it (the default takes it 0.9 x 0.25 of the time)
    sure = BehaviourParams(p_follow_explicit=1.0, p_use_delivered=1.0, p_override_stated=1.0)
    recs = run_chains(ScriptedPolicy(intervene_ignoring_the_user), tmp_path, precheck=False, behaviour=sure)
    misled = [r for r in recs if r.misled]
    assert misled, "an intervention against an explicitly stated argument should mislead the agent"
    assert not any(r.correct for r in misled)
    assert not any(r.fixed for r in misled)


def test_rule_policy_interventions_fix_the_call(tmp_path):
    replan = BehaviourParams(p_hold_abandon=0.0, p_hold_repeat=0.0)  # a hold always re-plans here
    recs = run_chains(RulePolicy(), tmp_path, behaviour=replan)
    correct = [r for r in recs if r.correct]
    # the re-plan takes the evidence value with the one uptake model's fresh-delivery probability
    # (p_use_delivered 0.9); `fixed` also needs every other argument of the call right
    assert correct and sum(r.fixed for r in correct) / len(correct) >= 0.6
