"""A generated suite behind the one benchmark protocol (eval/benchmark.py), so the harness runs the
offline suites and the real benchmarks on one path.

What a generated suite adds to the protocol: `tools(user)` (the persona's `ToolSpec`s, what a
memory agent may read), `seed_history(user)` (the rendered past every method builds its memory
from: the suite's own `Persona.history`, else rendered from `Persona.memory` by
eval/methods/seed.py) and `reader(user)` (the suite's own reader of delivered text,
eval/suites/reader.py). Scoring: the deterministic checklist on the final workspace
(`eval.suites.scoring.check_task` + `task_score`), with per-stage and per-source checkpoint counts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from eval.benchmark import Score, own_options, select
from eval.methods.seed import SeedHistory, seed_history
from eval.suites.reader import ValueReader, tool_vocabulary
from eval.suites.schema import STAGES, SimTask, Suite, SuiteError, ToolSpec
from eval.suites.scoring import check_task, task_score
from eval.suites.workspace import make_env
from pulse.core.errors import PulseUserError


class SuiteBenchmark:
    """A generated suite as a `Benchmark` (the module docstring): its tasks in persona chains, the workspace
    environment, the checkpoint score, and its `tools`, `seed_history` and `reader` per user. No user
    simulator and no scripts (the scripted agent is refused)."""

    judge_label = "deterministic checkpoint checks (no LLM judge)"
    nonstandard = ""

    def __init__(self, suite: Suite):
        self.suite = suite
        self.name, self.version, self.seed, self.metric = suite.name, suite.version, suite.seed, suite.metric
        self.tasks: tuple[SimTask, ...] = suite.tasks
        self._fingerprint = ""
        self._readers: dict[str, ValueReader] = {}

    def chains(self) -> dict[str, list[SimTask]]:
        return self.suite.chains()

    @property
    def fingerprint(self) -> str:
        """sha256 of the suite's canonical JSON after selection (personas, tasks, vocabulary): two
        runs with one fingerprint ran the same tasks (`eval.suites.shape.fingerprint`)."""
        if not self._fingerprint:
            from eval.suites.shape import fingerprint

            self._fingerprint = fingerprint(self.suite)
        return self._fingerprint

    def tools(self, user_id: str) -> tuple[ToolSpec, ...]:
        return self.suite.persona(user_id).tools

    def seed_history(self, user_id: str) -> SeedHistory:
        p = self.suite.persona(user_id)
        return seed_history(user_id, p.memory, p.history)

    def reader(self, user_id: str) -> ValueReader:
        if user_id not in self._readers:
            tools = self.tools(user_id)
            vocab = self.suite.vocabulary or tool_vocabulary(tools)
            self._readers[user_id] = ValueReader(
                vocab, self.suite.conditions, slots={s for t in tools for s in t.params}
            )
        return self._readers[user_id]

    def open_env(self, user_id: str, transport: str = "direct"):
        return make_env(self.tools(user_id), transport)

    def score(self, task: SimTask, env, outcome: Any) -> Score:
        checks = check_task(task, env.state)
        stage_counts = {s: [0, 0] for s in STAGES}
        source_counts: dict[str, list[int]] = {}
        for c in checks:
            stage_counts[c.checkpoint.stage][0] += c.passed
            stage_counts[c.checkpoint.stage][1] += 1
            sc = source_counts.setdefault(c.checkpoint.source, [0, 0])
            sc[0] += c.passed
            sc[1] += 1
        return Score(
            task_score(checks, self.metric),
            row={
                "checkpoints_passed": sum(c.passed for c in checks),
                "checkpoints_total": len(checks),
                "checkpoint_weight_passed": sum(c.checkpoint.weight for c in checks if c.passed),
                "checkpoint_weight_total": sum(c.checkpoint.weight for c in checks),
                "stage_counts": stage_counts,
                "source_counts": source_counts,
                "failed_checkpoints": [c.checkpoint.checkpoint_id for c in checks if not c.passed],
            },
        )

    def user_simulator(self, task: SimTask):
        return None  # hidden intents are scripted user messages at fixed steps

    def scripted_calls(self, task: SimTask, script: str):
        raise PulseUserError(
            f"agent=scripted runs the real benchmarks; {self.name!r} uses agent=simulated or openai"
        )


@dataclass(frozen=True)
class Options:
    """A generated suite reads only the keys every benchmark has (`seed`, `path`, `transport`,
    `max_tasks`, `personas`); any other `benchmark.*` knob set for it is refused."""


def finish(suite: Suite, cfg, name: str | None) -> SuiteBenchmark:
    """A loaded or generated suite checked against its config: no other benchmark's knob, its name
    (`name` None: any name, the suite file's own, as `benchmark=suite_file` runs it), then
    benchmark.personas and benchmark.max_tasks applied by `eval.benchmark.select`, as for the real
    benchmarks."""
    own_options(cfg, Options, name or "suite_file")
    if name is not None and suite.name != name:
        raise SuiteError(
            f"benchmark.path {cfg.path}: suite name {suite.name!r} is not {name!r} (a suite of its own "
            f"name runs as benchmark=suite_file benchmark.path=...)"
        )
    tasks = select(suite.tasks, cfg)  # the same selection as the real benchmarks
    return SuiteBenchmark(replace(suite, tasks=tasks))
