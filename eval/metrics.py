"""Metrics from per-episode rows (the JSONL files are the only source of truth).

- score: COMP (pibench_sim: checkpoints passed / total per task) or Acc (mcp_persona_sim: 1 / 0.5
  partial / 0 per task), averaged over tasks;
- per-category score; accuracy by execution stage (checkpoint pass rate of early / middle / late
  steps, the paper's Fig. 4);
- Store tokens (memory written per task), Retrieve tokens (memory supplied to the task agent per
  task, repeats counted), seconds per task;
- interventions (total per seed) and interruption success (right interventions / interventions).
Failed episodes count as score 0 and are reported separately.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable, Sequence

STAGES = ("early", "middle", "late")


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSONL file; a torn last line (crash mid-write) is skipped, other bad lines are errors."""
    path = Path(path)
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    rows = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            if i == len(lines) - 1:
                continue
            raise ValueError(f"{path}: line {i + 1} is not valid JSON ({e})") from None
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    if not n:
        return {"episodes": 0}
    ok = [r for r in rows if r.get("status") == "ok"]
    score = sum(r.get("score", 0.0) if r.get("status") == "ok" else 0.0 for r in rows) / n
    cats: dict[str, list[float]] = {}
    for r in rows:
        cats.setdefault(r.get("category", ""), []).append(r.get("score", 0.0) if r.get("status") == "ok" else 0.0)
    stage = {}
    for s in STAGES:
        p = sum(r.get("stage_counts", {}).get(s, [0, 0])[0] for r in ok)
        t = sum(r.get("stage_counts", {}).get(s, [0, 0])[1] for r in ok)
        stage[s] = p / t if t else float("nan")
    ints = sum(r.get("interventions", 0) for r in ok)
    right = sum(r.get("interventions_right", 0) for r in ok)
    return {
        "episodes": n, "failed": n - len(ok), "score": score,
        "per_category": {k: sum(v) / len(v) for k, v in sorted(cats.items())},
        "stage_accuracy": stage,
        "store_tokens": _mean(r.get("store_tokens", 0) for r in ok),
        "retrieve_tokens": _mean(r.get("retrieve_tokens", 0) for r in ok),
        "seconds_per_task": _mean(r.get("seconds", 0.0) for r in ok),
        "memory_blocking_s": _mean(r.get("memory_blocking_s", 0.0) for r in ok),
        "interventions": ints, "interventions_right": right,
        "interruption_success": right / ints if ints else float("nan"),
        "parse_failures": sum(r.get("parse_failures", 0) for r in ok),
        "policy_calls": sum(r.get("policy_calls", 0) for r in ok),
    }


def _mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def mean_stderr(xs: Sequence[float]) -> tuple[float, float]:
    xs = [x for x in xs if not (isinstance(x, float) and math.isnan(x))]
    if not xs:
        return float("nan"), float("nan")
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, float("nan")
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))
