"""Decision points where the policy runs: every policy call of a suite run, with the oracle's label.

`run_logged(bench, policy, seed=..., root=...)` runs a generated suite (eval/suites/benchmark.py)
the way the harness does (eval/harness.py `run_eval`: per persona chain, Pulse's memory built from
the rendered seed history through its own write path, `PulseMethod.open_session` per task, the
simulated task agent with its default behaviour, deterministic inline processing), with the policy
wrapped by `RecordingPolicy`: at every policy call the exact `PolicyInput` the run time built, the
policy's output and the gold rule's decision on that input (`pulse.core.gold.gold_decision`) are
recorded. The wrapper only observes; the run is the harness's run (same components, same seeds).

Used by `pulse gen-data source=runtime` (training data from the run-time path, data_gen/runtime.py)
and `pulse eval-policy source=suite` (decision metrics on logged suite decision points,
pulse/cli/eval_policy.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulse.core.examples import PolicyExample
from pulse.core.gold import gold_decision, task_slots
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Decision


@dataclass
class LoggedCall:
    """One logged policy call: the `PolicyInput`, the policy's output, the gold rule's decision and the task
    it came from. `example(id)` turns it into a `PolicyExample` labelled with the gold."""

    inp: PolicyInput
    output: Any  # pulse.policy.base.PolicyOutput
    gold: Decision
    user_id: str = ""
    task_id: str = ""
    level: int = 0
    benchmark: str = ""

    @property
    def case_type(self) -> str:
        return f"rt_{self.inp.last_event.kind}_{self.gold.action}"

    def example(self, example_id: str) -> PolicyExample:
        return PolicyExample(
            example_id,
            self.task_id,
            self.user_id,
            self.case_type,
            self.inp,
            self.gold,
            self.inp.last_event.time,
            task_slots(self.inp.prefix),
            self.benchmark,
            self.level,
        )


@dataclass
class RecordingPolicy:
    """Wraps a policy; records (input, output, gold) at every call. `context` names the current task."""

    inner: Any
    calls: list[LoggedCall] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return getattr(self.inner, "name", "policy")

    def decide_batch(self, inputs: Sequence[PolicyInput]):
        outs = self.inner.decide_batch(inputs)
        for inp, out in zip(inputs, outs):
            self.calls.append(LoggedCall(inp, out, gold_decision(inp.prefix, inp.snapshot), **self.context))
        return outs


def run_logged(
    bench,
    policy,
    *,
    seed: int,
    root: str | Path,
    memory_kind: str = "structured",
    embedder: str = "bm25",
    progress: bool = False,
    precheck: bool = True,
    reader: str = "offline",
) -> tuple[list[LoggedCall], list[dict[str, Any]]]:
    """Run every chain of `bench` with Pulse driven by `policy`; returns (logged calls, episode rows).
    `precheck=False` logs every triggering decision point, not only those the run-time pre-check
    (pulse/agent/precheck.py) passes to the policy. `reader`: the run's reading layer, as
    `pulse eval`'s `reader.name` (offline | rule)."""
    from eval.agents.simulated import SimulatedAgent
    from eval.config import EmbedderConfig
    from eval.memory_backends import build_embedder
    from eval.methods.base import task_view
    from eval.methods.pulse_method import PulseMethod
    from eval.methods.seed import ChainSeed

    rec = RecordingPolicy(policy)
    method = PulseMethod(name="pulse", memory_kind=memory_kind, policy=rec, precheck=precheck)
    agent = SimulatedAgent()
    emb = build_embedder(EmbedderConfig(name=embedder))
    from pulse.reading import make_reader

    read = make_reader(reader) if reader != "rule" else None
    episodes: list[dict[str, Any]] = []
    chains = bench.chains()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=sum(len(t) for t in chains.values()), desc=f"{bench.name} (logged)", unit="ep", leave=False
        )
    for user, tasks in chains.items():
        tools = bench.tools(user)
        memory = method.open_chain(
            ChainSeed(
                user,
                tuple(t.project_id for t in tasks),
                bench.seed_history(user),
                Path(root) / user,
                emb,
                tuple(tools),
                reader=read,
            )
        )
        env = bench.open_env(user, "direct")
        try:
            for task in tasks:
                env.begin(task)
                rec.context = {
                    "user_id": user,
                    "task_id": task.task_id,
                    "level": task.level,
                    "benchmark": bench.name,
                }
                session = method.open_session(task_view(task), memory, False, tools=tools)
                outcome = agent.run(task, env, session, seed, bench)
                episodes.append(_episode_row(bench, task, user, env, outcome))
                if bar:
                    bar.update(1)
        finally:
            env.close()
            memory.close()
    if bar:
        bar.close()
    return rec.calls, episodes


def _episode_row(bench, task, user: str, env, outcome) -> dict[str, Any]:
    """A logged episode's row: its score and what its interventions came to."""
    ivs = outcome.interventions
    return {
        "task_id": task.task_id,
        "user_id": user,
        "score": bench.score(task, env, outcome).score,
        "interventions": len(ivs),
        "interventions_correct": sum(i.correct for i in ivs),
        "interventions_fixed": sum(i.fixed for i in ivs),
        "interventions_misled": sum(i.misled for i in ivs),
    }


def suite_decision_metrics(calls: Sequence[LoggedCall], episodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Policy metrics on the logged decision points (`pulse.policy.evaluate.policy_metrics`: action and
    decision accuracy, per-action precision / recall, interruption success against the gold label,
    confusion), plus the oracle's intervention count on the same points and the run's own counters
    (suite score, harness-judged intervention outcomes)."""
    from pulse.policy.evaluate import policy_metrics

    examples = [c.example(f"d{i}") for i, c in enumerate(calls)]
    m = policy_metrics(examples, [c.output for c in calls]) if calls else {"n": 0}
    n_ep = len(episodes)
    harness_int = sum(e["interventions"] for e in episodes)
    m.update(
        oracle_interventions=sum(c.gold.action == "intervene" for c in calls),
        intervene_recall=(m.get("per_action") or {}).get("intervene", {}).get("recall"),
        episodes=n_ep,
        task_mean_score=sum(e["score"] for e in episodes) / n_ep
        if n_ep
        else None,  # mean per-task score (not COMP)
        harness_interventions=harness_int,
        harness_interventions_correct=sum(e["interventions_correct"] for e in episodes),
        harness_interventions_fixed=sum(e["interventions_fixed"] for e in episodes),
        harness_interventions_misled=sum(e["interventions_misled"] for e in episodes),
        harness_interruption_success=(
            sum(e["interventions_correct"] for e in episodes) / harness_int if harness_int else None
        ),
    )
    return m


def suite_decisions(
    policy,
    benchmarks,
    seed: int,
    suite_seed: int = 0,
    work_dir: str | Path | None = None,
    progress: bool = False,
) -> tuple[dict, list[dict]]:
    """{benchmark: metrics} and one row per policy call, for one policy on each offline suite."""
    import tempfile

    from eval.config import BenchmarkConfig
    from eval.registry import BENCHMARKS

    results, rows = {}, []
    for name in benchmarks:
        bench = BENCHMARKS.get(name)(BenchmarkConfig(name, seed=suite_seed))
        with tempfile.TemporaryDirectory(prefix="pulse-evalpol-", dir=work_dir) as root:
            calls, episodes = run_logged(bench, policy, seed=seed, root=root, progress=progress)
        results[name] = suite_decision_metrics(calls, episodes)
        rows += [
            {
                "benchmark": name,
                "task_id": c.task_id,
                "step": c.inp.last_event.step,
                "event": c.inp.last_event.kind,
                "gold": c.gold.to_dict(),
                "decision": c.output.decision.to_dict(),
                "parse_ok": c.output.parse.ok,
            }
            for c in calls
        ]
    return results, rows
