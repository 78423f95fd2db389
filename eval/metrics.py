"""Metrics from per-episode rows (the JSONL files are the only source of truth).

Each metric is defined in one function here (the per-task score in `eval.suites.scoring.task_score`):
- `suite_comp`: pi-Bench's COMP aggregation (per task -> per persona by dependency-group size ->
  unweighted mean over personas); `suite_acc`: MCP-Persona's Acc (mean over tasks);
  `suite_score` picks the suite's metric; per-category score is a plain mean over tasks;
- `stage_accuracy`: checkpoint pass rate of early / middle / late steps (the paper's Fig. 4);
- Store tokens (memory written per task), Retrieve tokens (memory supplied to the task agent per
  task, repeats counted), seconds per task: means over the episodes that ran;
- interventions, correct / fixed / misled interventions (totals per seed) and
  `interruption_success` = correct interventions / interventions;
- failed episodes (count, task ids, errors), tool errors and abandoned steps.
Failed episodes score 0 in every score mean and are counted and listed. A metric that is undefined
(no interventions, no checkpoints in a stage, no episode that ran) is `None` (JSON `null`) and the
summary's `undefined` map says why; no NaN ever reaches a result file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pulse.core.errors import PulseUserError
from pulse.utils.json_input import parse_json_line
from pulse.utils.stats import mean_stderr  # noqa: F401  (re-exported: tables and tests use it here)

STAGES = ("early", "middle", "late")


class RowsError(PulseUserError, ValueError):
    """A run log (episodes.jsonl) has a bad line before its last one; the message names file and line."""


def read_rows_checked(path: str | Path) -> tuple[list[dict[str, Any]], bool]:
    """(rows, clean) of a JSONL run log. A torn last line (a crash mid-write: cut anywhere, even
    inside a multi-byte character, or a last row without its newline) is dropped and makes `clean`
    False; so do blank lines. Any other bad line is a RowsError naming the file and line.
    `clean` is True when the file is exactly one JSON object per line, each ending in a newline."""
    path = Path(path)
    if not path.exists():
        return [], True
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the file ends with a newline
    clean = not data or data.endswith(b"\n")
    rows: list[dict[str, Any]] = []
    for i, raw in enumerate(lines):
        last = i == len(lines) - 1
        if not raw.strip():
            clean = False
            continue
        try:
            row = parse_json_line(raw, path, i + 1, RowsError)
            if not isinstance(row, dict):
                raise RowsError(f"{path}: line {i + 1}: a JSON {type(row).__name__}, not a row object")
        except RowsError:
            if last:
                clean = False
                continue
            raise
        rows.append(row)  # a last row that parses is whole (only its newline may be missing)
    return rows, clean


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSONL file; a torn last line (crash mid-write) is skipped, other bad lines are errors."""
    return read_rows_checked(path)[0]


def dumps_strict(obj: Any, **kw: Any) -> str:
    """JSON text that any standard parser reads: a NaN / Infinity anywhere is an error, not a token."""
    return json.dumps(obj, allow_nan=False, default=str, **kw)


# -- scores ----------------------------------------------------------------------------------------
def row_score(row: dict[str, Any]) -> float:
    """A task's score as it enters the means: its score if the episode ran, 0 if it failed."""
    return float(row.get("score", 0.0)) if row.get("status") == "ok" else 0.0


def group_size(row: dict[str, Any]) -> int:
    """|group_t|, pi-Bench's dependency-group size of task t: the task plus the tasks it depends on
    (1 for an independent task), i.e. 1 + len(depends_on)."""
    return 1 + len(row.get("depends_on") or ())


def persona_comp(rows: Sequence[dict[str, Any]]) -> float:
    """pi-Bench's persona COMP (checklist_evaluator.py): sum_t |group_t| * COMP_t / sum_t |group_t|
    over the persona's scored tasks, COMP_t = `eval.suites.scoring.task_score(..., "comp")` (0 for a failed
    episode) and |group_t| = `group_size`.

    Offline-suite departure: in pibench_sim every task has checkpoints, prerequisites included, so
    every task is scored (a prerequisite with its own group size) and sum_t |group_t| exceeds the
    number of tasks; in pi-Bench prerequisites carry no criteria, are not scored, and the group sizes
    of a persona's scored tasks add up to its 20 tasks.
    """
    if not rows:
        raise ValueError("persona_comp: no rows")
    w = [group_size(r) for r in rows]
    return sum(wi * row_score(r) for wi, r in zip(w, rows)) / sum(w)


def _by_persona(rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(str(r.get("user_id", "")), []).append(r)
    return dict(sorted(out.items()))


def suite_comp(rows: Sequence[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """pi-Bench's overall COMP ("Average"): the unweighted mean of the persona COMPs (`persona_comp`).
    Returns (suite COMP, {persona: COMP}); fractions in [0, 1] (pi-Bench reports them x100)."""
    per = {u: persona_comp(rs) for u, rs in _by_persona(rows).items()}
    return sum(per.values()) / len(per), per


def pibench_proc(
    rows: Sequence[dict[str, Any]],
) -> tuple[float | None, dict[str, float]]:
    """π-Bench's PROC (proactiveness_evaluator.py) from the hidden-intent user simulator's record of
    each task (`score_detail.proc`: intents, covered = inferred + matched): for a scored task t with
    direct dependencies D(t), PROC_t = (covered_t + Σ_d covered_d) / (HI_t + Σ_d HI_d); per persona
    weighted by dependency-group size as COMP is; the mean over personas. A persona with a task that
    has no record (failed episode, no user simulator) has no PROC; (None, {}) when none has one."""
    per: dict[str, float] = {}
    for user, rs in _by_persona(rows).items():
        rec = {r.get("task_id"): (r.get("score_detail") or {}).get("proc") for r in rs}
        if any(v is None for v in rec.values()):
            continue
        num = den = 0.0
        for r in scored_rows(rs):
            ids = [r["task_id"], *(r.get("depends_on") or ())]
            hi = sum(rec[i]["intents"] for i in ids if i in rec)
            proc_t = sum(rec[i]["covered"] for i in ids if i in rec) / hi if hi else 0.0
            num += group_size(r) * proc_t
            den += group_size(r)
        if den:
            per[user] = num / den
    return (sum(per.values()) / len(per) if per else None), per


def suite_acc(rows: Sequence[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """MCP-Persona's Acc: per task 1 / 0.5 partial / 0 (`eval.suites.scoring.task_score(..., "acc")`, 0 for a
    failed episode), averaged over tasks. Returns (Acc, {persona: mean over its tasks})."""
    per = {u: sum(map(row_score, rs)) / len(rs) for u, rs in _by_persona(rows).items()}
    return sum(map(row_score, rows)) / len(rows), per


def suite_mean(rows: Sequence[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """A plain mean of the task scores (τ²'s average reward; 0 for a failed episode).
    Returns (mean, {user: mean over its tasks})."""
    per = {u: sum(map(row_score, rs)) / len(rs) for u, rs in _by_persona(rows).items()}
    return sum(map(row_score, rows)) / len(rows), per


def scored_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows that enter the headline score: π-Bench leaves prerequisite tasks (no checklist) out."""
    return [r for r in rows if r.get("scored", True)]


def component_means(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Mean of each named score component over the scored rows (a failed episode counts 0):
    e.g. Persona2Web's Web EM and Pref R, τ²'s DB / COMMUNICATE / NL_ASSERTION pass rates."""
    rows = scored_rows(rows)
    names = sorted({k for r in rows for k in (r.get("components") or {})})
    out = {}
    for k in names:  # over the rows that have the component (a failed episode has none: it counts 0)
        vals = [
            float(r["components"][k]) if r.get("status") == "ok" else 0.0
            for r in rows
            if r.get("status") != "ok" or k in (r.get("components") or {})
        ]
        out[k] = sum(vals) / len(vals)
    return out


def components_by_category(
    rows: Sequence[dict[str, Any]],
) -> dict[str, dict[str, float]]:
    """`component_means` per task category (e.g. Persona2Web's ambiguity levels L1 / L2 / L3)."""
    cats: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r.get("components") is not None or r.get("status") != "ok":
            cats.setdefault(str(r.get("category", "")), []).append(r)
    return {c: component_means(rs) for c, rs in sorted(cats.items())}


def pass_hat_k(num_trials: int, successes: int, k: int) -> float:
    """τ²'s pass^k for one task (Yao et al. 2024): C(successes, k) / C(num_trials, k), the chance that
    k trials drawn without replacement all succeed."""
    import math

    if num_trials < k:
        raise ValueError(f"pass^{k} needs at least {k} trials, got {num_trials}")
    return math.comb(successes, k) / math.comb(num_trials, k)


def pass_k_over_runs(runs: Sequence[Sequence[dict[str, Any]]], k: int) -> float:
    """Mean over tasks of `pass_hat_k`; one run (seed) = one trial; success = reward 1 (±1e-6, as τ²)."""
    trials: dict[str, list[bool]] = {}
    for rows in runs:
        for r in rows:
            trials.setdefault(str(r.get("task_id")), []).append(abs(row_score(r) - 1.0) <= 1e-6)
    if not trials:
        raise ValueError("pass^k: no rows")
    return sum(pass_hat_k(len(v), sum(v), k) for v in trials.values()) / len(trials)


def suite_metric(rows: Sequence[dict[str, Any]]) -> str:
    """The suite's metric as the rows record it ("comp" when no row says)."""
    metrics = {r["metric"] for r in rows if r.get("metric")}
    if len(metrics) > 1:
        raise ValueError(f"rows mix metrics {sorted(metrics)}; one run dir holds one benchmark")
    return metrics.pop() if metrics else "comp"


def suite_score(rows: Sequence[dict[str, Any]], metric: str) -> tuple[float, dict[str, float]]:
    """The benchmark's headline score: `suite_comp` (pibench_sim) or `suite_acc` (mcp_persona_sim)."""
    if metric == "comp":
        return suite_comp(rows)
    if metric == "acc":
        return suite_acc(rows)
    if metric == "mean":
        return suite_mean(rows)
    raise ValueError(f"metric {metric!r} not in ('comp', 'acc', 'mean')")


def stage_accuracy(
    rows: Sequence[dict[str, Any]],
) -> tuple[dict[str, float | None], dict[str, list[int]]]:
    """Checkpoint pass rate by execution stage over the episodes that ran (unweighted checkpoints;
    the paper's Fig. 4). A stage with no checkpoints is None. Returns (rates, {stage: [passed, total]})."""
    counts = {s: [0, 0] for s in STAGES}
    for r in rows:
        if r.get("status") != "ok":
            continue
        for s in STAGES:
            p, t = (r.get("stage_counts") or {}).get(s, [0, 0])
            counts[s][0] += p
            counts[s][1] += t
    return {s: (p / t if t else None) for s, (p, t) in counts.items()}, counts


def interruption_success(correct: int, interventions: int) -> float | None:
    """Correct interventions / interventions (an intervention is correct when the held call conflicts
    with a current binding memory item and the evidence names it: eval.episode.InterventionRecord);
    None when there were no interventions."""
    return correct / interventions if interventions else None


# -- the summary -------------------------------------------------------------------------------------
def _mean(xs: Iterable[float]) -> float | None:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """All metrics of one run (one benchmark x method x seed) from its rows; standard JSON values only.
    `undefined` names each metric that has no value (null) and why."""
    if not rows:
        return {
            "episodes": 0,
            "ok": 0,
            "failed": 0,
            "failed_task_ids": [],
            "failures": [],
            "score": None,
            "score_per_persona": {},
            "undefined": {"score": "no episodes"},
        }
    undefined: dict[str, str] = {}
    ok = [r for r in rows if r.get("status") == "ok"]
    out = _score_fields(rows, undefined)
    out.update(_cost_fields(ok, undefined))
    out.update(_intervention_fields(ok, undefined))
    if any((r.get("score_detail") or {}).get("proc") for r in rows):  # π-Bench with its user simulator
        out["proc"], out["proc_per_persona"] = pibench_proc(rows)
        if out["proc"] is None:
            undefined["proc"] = "a persona has a task without a user-simulator record (failed episode)"
    out["undefined"] = undefined
    return out


def _score_fields(rows: Sequence[dict[str, Any]], undefined: dict[str, str]) -> dict[str, Any]:
    """Episodes and failures, the suite score (per persona, category, stage) and its components."""
    ok = [r for r in rows if r.get("status") == "ok"]
    failed = [r for r in rows if r.get("status") != "ok"]
    metric = suite_metric(rows)
    if scored_rows(rows):
        score, per_persona = suite_score(scored_rows(rows), metric)
    else:  # e.g. only π-Bench prerequisite tasks ran: nothing enters the score
        score, per_persona = None, {}
        undefined["score"] = "no scored task among the episodes (prerequisites only)"
    cats: dict[str, list[float]] = {}
    for r in rows:
        cats.setdefault(r.get("category", ""), []).append(row_score(r))
    stage, stage_counts = stage_accuracy(rows)
    for s, v in stage.items():
        if v is None:
            undefined[f"stage_accuracy.{s}"] = f"no checkpoints in the {s} stage of an episode that ran"
    return {
        "episodes": len(rows),
        "ok": len(ok),
        "failed": len(failed),
        "failed_task_ids": [r.get("task_id", "") for r in failed],
        "failures": [{"task_id": r.get("task_id", ""), "error": r.get("error", "")} for r in failed],
        "metric": metric,
        "score": score,
        "score_per_persona": per_persona,
        "per_category": {k: sum(v) / len(v) for k, v in sorted(cats.items())},
        "stage_accuracy": stage,
        "stage_checkpoints": stage_counts,
        "scored_episodes": len(scored_rows(rows)),
        "components": component_means(rows),
        "components_by_category": components_by_category(rows),
        "proxy_judge": any((r.get("score_detail") or {}).get("judge") == "proxy" for r in rows),
    }


def _cost_fields(ok: Sequence[dict[str, Any]], undefined: dict[str, str]) -> dict[str, Any]:
    """Means over the episodes that ran: tokens stored and delivered, seconds, time blocked."""
    out: dict[str, Any] = {}
    for key, field in (
        ("store_tokens", "store_tokens"),
        ("retrieve_tokens", "retrieve_tokens"),
        ("seconds_per_task", "seconds"),
        ("memory_blocking_s", "memory_blocking_s"),
    ):
        out[key] = _mean(r.get(field, 0) for r in ok)
        if out[key] is None:
            undefined[key] = "no episode ran (all failed)"
    return out


# counters summed over the episodes that ran
TOTALS = (
    "interventions",
    "interventions_correct",
    "interventions_fixed",
    "interventions_misled",
    "tool_errors",
    "abandoned_steps",
    "holds_abandon",
    "holds_ask_user",
    "holds_repeat",
    "holds_replan",
    "parse_failures",
    "policy_calls",
)


def _intervention_fields(ok: Sequence[dict[str, Any]], undefined: dict[str, str]) -> dict[str, Any]:
    """Totals of the episode counters, interruption success, policy calls and the reader's recall."""
    out: dict[str, Any] = {k: sum(int(r.get(k, 0) or 0) for r in ok) for k in TOTALS}
    out["interruption_success"] = interruption_success(out["interventions_correct"], out["interventions"])
    if out["interruption_success"] is None:
        undefined["interruption_success"] = "no interventions"
    out["policy_calls_per_task"] = _mean(r.get("policy_calls", 0) for r in ok)
    out["precheck_skips"] = sum(int(r.get("precheck_skips", 0) or 0) for r in ok)
    # the suite reader's recall on this method's deliveries (eval/suites/reader.py): value mentions it
    # attributed to one slot / all value mentions in the delivered text (None: nothing delivered)
    mentions = sum(int(r.get("reader_mentions", 0) or 0) for r in ok)
    out["reader_recall"] = (
        sum(int(r.get("reader_attributed", 0) or 0) for r in ok) / mentions if mentions else None
    )
    return out
