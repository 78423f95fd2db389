"""`pulse gen-data source=runtime`: training data recorded on the run-time path (data_gen/runtime.py).

- training users, task groups, tools, arguments and values are disjoint from every evaluation
  suite's (pibench_sim, mcp_persona_sim, independent_sim), for the whole training vocabulary;
- every recorded decision point is the run time's own PolicyInput, labelled by the gold rule;
- the data holds what the issue says the generator's prefixes lack: plan messages stating the
  proposed value before an intervene label, project decisions in the snapshot, prefixes longer than
  the generator's six events, other domains;
- the mix knob and the card; the suite decision log reproduces the harness's run.
"""

from __future__ import annotations

from functools import cache

from data_gen.runtime import RuntimeParams, mix_splits, runtime_examples, train_suite
from pulse.core.gold import gold_decision
from pulse.core.statements import IMPLICIT

SMALL = RuntimeParams(n_personas=8)


@cache
def small_examples():
    return runtime_examples(0, SMALL)


def _suite_vocab(suite):
    tools, slots, values = set(), set(), set()
    for p in suite.personas:
        for t in p.tools:
            tools.add(t.name)
            for k, vs in t.params.items():
                slots.add(k)
                values.update(vs)
    for slot, forms in (suite.vocabulary or {}).items():
        slots.add(slot)
        for canon, surf in forms.items():
            values.add(canon)
            values.update(surf)
    return tools, slots, values


@cache
def eval_suites():
    from eval.suites import independent_sim, mcp_persona_sim, pibench_sim

    return [pibench_sim.generate(0), mcp_persona_sim.generate(0), independent_sim.generate(0)]


def test_training_vocabulary_disjoint_from_every_evaluation_suite():
    from data_gen.world.vocab_runtime import DECISION_TOOL, OTHER_SERVICES, web_services

    train_tools, train_slots, train_values = {DECISION_TOOL}, set(), set()
    for services in (OTHER_SERVICES, web_services()):
        for tools in services.values():
            for name, (_, params) in tools.items():
                train_tools.add(name)
                train_slots.update(params)
                for vs in params.values():
                    train_values.update(vs)
    norm = {v.lower() for v in train_values}
    for suite in eval_suites():
        tools, slots, values = _suite_vocab(suite)
        assert not train_tools & tools, (suite.name, train_tools & tools)
        assert not train_slots & slots, (suite.name, train_slots & slots)
        assert not norm & {v.lower() for v in values}, (suite.name, norm & {v.lower() for v in values})


def test_training_users_and_tasks_disjoint_from_every_evaluation_suite():
    for seed in (0, 1):
        train = train_suite(seed, RuntimeParams())
        users = {p.user_id for p in train.personas}
        tasks = {t.task_id for t in train.tasks}
        projects = {t.project_id for t in train.tasks if t.project_id}
        for suite in eval_suites():
            assert not users & {p.user_id for p in suite.personas}
            assert not tasks & {t.task_id for t in suite.tasks}
            assert not projects & {t.project_id for t in suite.tasks if t.project_id}
            tools, slots, values = _suite_vocab(suite)
            tt, ts, tv = _suite_vocab(train)
            assert not (tt & tools or ts & slots or {v.lower() for v in tv} & {v.lower() for v in values})


def test_examples_are_run_time_inputs_labelled_by_the_gold_rule_and_split_by_user():
    sp = small_examples()
    assert all(sp[s] for s in ("train", "validation", "test"))
    users = {s: {e.user_id for e in exs} for s, exs in sp.items()}
    assert not users["train"] & users["test"] and not users["train"] & users["validation"]
    for e in (e for exs in sp.values() for e in exs):
        assert e.gold == gold_decision(e.inp.prefix, e.inp.snapshot)
        assert e.case_type == f"rt_{e.inp.last_event.kind}_{e.gold.action}"
        assert not any(ev.kind == "message" and ev.role == "memory" for ev in e.inp.prefix)
        assert e.user_id.startswith("rt_0_")


def test_runtime_data_covers_what_the_generator_lacks():
    exs = [e for s in small_examples().values() for e in s]
    # an intervene label where an agent plan message just before the call states the proposed value
    stated_then_held = 0
    for e in exs:
        if e.gold.action != "intervene":
            continue
        call, before = e.inp.prefix[-1], e.inp.prefix[:-1]
        plans = [ev for ev in before if ev.kind == "message" and ev.role == "agent"]
        if plans and any(plans[-1].args.get(k) == v for k, v in call.args.items()):
            stated_then_held += 1
    assert stated_then_held >= 10
    # plan messages stating values that memory confirms (silent) too
    assert sum(e.gold.action == "silent" and e.inp.last_event.kind == "candidate_call" for e in exs) >= 10
    assert any(m.kind == "project_state" for e in exs for m in e.inp.snapshot)
    assert max(len(e.inp.prefix) for e in exs) > 6
    assert any(v == IMPLICIT for e in exs for v in e.inp.prefix[0].args.values())
    from data_gen.world.vocab_runtime import OTHER_SERVICES, web_services

    service_of = {t: svc for svcs in (OTHER_SERVICES, web_services()) for svc, ts in svcs.items() for t in ts}
    services = {
        service_of.get(e.inp.last_event.tool) for e in exs if e.inp.last_event.kind == "candidate_call"
    }
    assert len(services - {None}) >= 4 and any(s.startswith("web_") for s in services if s)


def test_mix_knob_sets_the_runtime_share():
    rt = {"train": list(range(30)), "test": list(range(4))}
    syn = {"train": [f"s{i}" for i in range(100)], "test": [f"s{i}" for i in range(2)]}
    out, counts = mix_splits(rt, syn, 0.25, 0)
    assert counts["train"] == {"runtime": 30, "synthetic": 90} and len(out["train"]) == 120
    assert counts["test"] == {"runtime": 4, "synthetic": 2}  # capped by what the generator has
    out, counts = mix_splits(rt, syn, 1.0, 0)
    assert counts["train"]["synthetic"] == 0


def test_suite_decision_log_reproduces_the_harness_run(tmp_path):
    """The logged run is the harness's run: the rule policy's interventions and policy calls equal
    `pulse eval method=pulse_rule`'s on the same suite and seed."""
    from eval.config import BenchmarkConfig, EvalConfig, MethodConfig
    from eval.harness import run_eval
    from eval.metrics import read_rows
    from eval.policy_decisions import run_logged, suite_decision_metrics
    from eval.registry import BENCHMARKS
    from pulse.agent.rule_policy import RulePolicy

    bcfg = BenchmarkConfig("pibench_sim", max_tasks=2)
    calls, episodes = run_logged(
        BENCHMARKS.get("pibench_sim")(bcfg), RulePolicy(), seed=1, root=tmp_path / "m"
    )
    m = suite_decision_metrics(calls, episodes)
    assert m["decision_accuracy"] == 1.0 and m["interventions"] == m["oracle_interventions"]
    run = run_eval(
        EvalConfig(
            out_dir=str(tmp_path / "run"),
            seed=1,
            benchmark=bcfg,
            method=MethodConfig("pulse_rule", policy="rule"),
            progress=False,
            resume=False,
        )
    )
    rows = read_rows(run / "episodes.jsonl")
    assert sum(r["policy_calls"] for r in rows) == len(calls)
    assert sum(r["interventions"] for r in rows) == m["harness_interventions"]
    assert [r["score"] for r in rows] == [e["score"] for e in episodes]
