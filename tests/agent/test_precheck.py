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
        mem = method.open_chain(ChainSeed(user, tuple(t.project_id for t in tasks), bench.seed_history(user),
                                          tmp_path / user, emb, bench.tools(user)))
        env = bench.open_env(user)
        try:
            for t in tasks:
                SimulatedAgent().run(t, env, method.open_session(t, mem, False, tools=bench.tools(user)), 0, bench)
        finally:
            env.close()
            mem.close()
    acting = [i for i in policy.inputs if rule_decision(i).action != "silent"]
    assert len(policy.inputs) > 100 and acting
    missed = [i for i in acting if not needs_decision(i)]
    assert not missed, f"{len(missed)} of {len(acting)} acting points skipped"
    skipped = sum(not needs_decision(i) for i in policy.inputs)
    assert skipped > len(policy.inputs) // 3  # it saves calls, not just in theory
