"""The offline suites' scoring: the deterministic checklist of a task on the final workspace state
(eval/suites/workspace.py) and the task's score from it (pi-Bench's COMP_t or MCP-Persona's
per-task accuracy). The aggregates over tasks and personas are eval/metrics.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.suites.schema import Checkpoint, SimTask


@dataclass(frozen=True)
class CheckResult:
    """One checkpoint checked on the final workspace: the checkpoint, whether it passed, the value found."""

    checkpoint: Checkpoint
    passed: bool
    actual: str


def check_task(task: SimTask, state: Mapping[str, Mapping[str, str]]) -> list[CheckResult]:
    """Deterministic checklist on the final workspace state."""
    return [
        CheckResult(
            c, state.get(c.artifact, {}).get(c.slot) == c.expected, state.get(c.artifact, {}).get(c.slot, "")
        )
        for c in task.checkpoints
    ]


def task_score(results: Sequence[CheckResult], metric: str) -> float:
    """One task's score from its checkpoint results.

    comp -- pi-Bench's COMP_t (checklist_evaluator.py), exactly: COMP_t = sum_c w_c * v_c / sum_c w_c
            over the task's criteria c, with v_c = 1 if the criterion passed, else 0, and w_c its
            weight (`Checkpoint.weight`, default 1). (pi-Bench ORs a criterion over the turns of the
            task; here a checkpoint is checked once, on the final workspace state.)
    acc  -- MCP-Persona's per-task accuracy: 1 if every checkpoint passed, 0.5 if some (partial
            completion), 0 if none; weights play no part.
    A task with no checkpoints scores 0 (pi-Bench leaves such tasks out of the overall; the offline
    suites refuse them: suite_from_json requires at least one checkpoint per task).
    """
    if metric not in ("comp", "acc"):
        raise ValueError(f"metric {metric!r} not in ('comp', 'acc')")
    if not results:
        return 0.0
    if metric == "comp":
        total = sum(r.checkpoint.weight for r in results)
        return sum(r.checkpoint.weight for r in results if r.passed) / total
    passed = sum(r.passed for r in results)
    return 1.0 if passed == len(results) else (0.5 if passed else 0.0)
