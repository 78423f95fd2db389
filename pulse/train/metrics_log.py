"""The local metrics JSONL every run writes, whatever else it logs to (DESIGN: tables come from
files, never from a logger's dashboard). Only the main process writes."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from transformers import TrainerCallback

from pulse.utils.json_input import JsonInputError, parse_json_line


class JsonlMetricsCallback(TrainerCallback):
    """Appends one row per trainer log. A resumed stage replays the steps after its last checkpoint;
    their rows from the killed attempt are dropped at its first log, so each step is written once."""

    def __init__(self, path: str | Path, stage: str):
        self.path = Path(path)
        self.stage = stage
        self.t0 = time.time()
        self._first = True

    def _drop_replayed(self, from_step: int) -> None:
        rows = read_metrics(self.path)
        keep = [r for r in rows if not (r.get("stage") == self.stage and int(r.get("step", 0)) >= from_step)]
        if len(keep) != len(rows):
            from pulse.utils.atomic import atomic_write_text

            atomic_write_text(self.path, "".join(json.dumps(r) + "\n" for r in keep))

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        if self._first:  # the state is the resumed one by now (on_train_begin comes before the load)
            self._first = False
            self._drop_replayed(state.global_step)
        row = {"stage": self.stage, "step": state.global_step, "wall_s": round(time.time() - self.t0, 3)}
        row.update(
            {
                k: (None if isinstance(v, float) and math.isnan(v) else v)
                for k, v in logs.items()
                if isinstance(v, (int, float, str))
            }
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as f:  # append-only; a torn last line is skipped by readers
            f.write(json.dumps(row) + "\n")


def read_metrics(path: str | Path) -> list[dict]:
    rows = []
    p = Path(path)
    if not p.exists():
        return rows
    for i, line in enumerate(p.read_text().splitlines(), 1):
        try:
            rows.append(parse_json_line(line, p, i))
        except JsonInputError:
            continue  # a run killed mid-write leaves at most one torn line
    return rows


def step_time_split(path: str | Path, stage: str = "grpo") -> dict | None:
    """Mean seconds per optimizer step of `stage` and where they went (generation / scoring /
    update, logged by pulse.train.grpo.timed), with the shares of the step; None before any step."""
    rows = [r for r in read_metrics(path) if r.get("stage") == stage and "time/generation_s" in r]
    if not rows:
        return None
    keys = {
        "step_s": "step_time",
        "generation_s": "time/generation_s",
        "scoring_s": "time/scoring_s",
        "update_s": "time/update_s",
    }
    out = {k: round(sum(r[v] for r in rows) / len(rows), 4) for k, v in keys.items()}
    for k in ("generation_s", "scoring_s", "update_s"):
        out[k.replace("_s", "_share")] = round(out[k] / out["step_s"], 3) if out["step_s"] else None
    out["logged_steps"] = len(rows)
    return out
