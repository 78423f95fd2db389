"""Issue 31, item 9: a resumed stage replays the steps after its last checkpoint; metrics.jsonl keeps
one row per step (the killed attempt's rows of the replayed steps are dropped)."""

import json
from types import SimpleNamespace

from pulse.train.metrics_log import JsonlMetricsCallback, read_metrics


def _log(cb, step, **logs):
    state = SimpleNamespace(is_world_process_zero=True, global_step=step)
    cb.on_log(None, state, None, logs=logs or {"loss": 1.0})


def test_replayed_steps_are_written_once(tmp_path):
    path = tmp_path / "metrics.jsonl"
    first = JsonlMetricsCallback(path, "grpo")
    for step in range(1, 6):  # killed after step 5; the newest checkpoint was step 3
        _log(first, step)
    sft_row = {"stage": "sft", "step": 9, "loss": 0.5}
    path.write_text(json.dumps(sft_row) + "\n" + path.read_text())
    resumed = JsonlMetricsCallback(path, "grpo")
    for step in range(4, 7):  # the trainer resumes from checkpoint-3
        _log(resumed, step)
    rows = read_metrics(path)
    assert [r["step"] for r in rows if r["stage"] == "grpo"] == [1, 2, 3, 4, 5, 6]
    assert rows[0] == sft_row  # another stage's rows are left alone


def test_fresh_run_appends_only(tmp_path):
    path = tmp_path / "metrics.jsonl"
    cb = JsonlMetricsCallback(path, "sft")
    _log(cb, 1)
    _log(cb, 2)
    assert [r["step"] for r in read_metrics(path)] == [1, 2]
