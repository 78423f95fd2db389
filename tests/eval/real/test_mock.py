"""The template benchmark (`benchmark=mock`, eval/real/mock/) runs end to end through the harness as a
new benchmark copied from it would: every task scored, no method and Pulse's rule on the scripted
agent, Pulse's holds judged by the benchmark; and a template's runs never reach the tables."""

from __future__ import annotations

import json

import pytest

from eval.harness import run_eval
from eval.metrics import read_rows


def _run(eval_cfg, tmp_path, method: str, script: str) -> tuple[dict, list[dict]]:
    out = run_eval(
        eval_cfg(
            tmp_path / f"{method}-{script}", method, "mock", ["agent=scripted", f"agent.script={script}"]
        )
    )
    return json.loads((out / "summary.json").read_text()), read_rows(out / "episodes.jsonl")


@pytest.mark.parametrize("method", ["none", "pulse_rule"])
def test_gold_script_scores_one_and_pulse_holds_nothing(method, eval_cfg, tmp_path):
    summary, rows = _run(eval_cfg, tmp_path, method, "gold")
    assert [r["task_id"] for r in rows] == ["mock_1", "mock_2", "mock_3"]
    assert all(r["status"] == "ok" and r["score"] == 1.0 for r in rows)
    assert summary["score"] == 1.0 and summary["interventions"] == 0
    assert "template" in summary["nonstandard"] and "not a result" in summary["judge"]


def test_without_memory_the_remembered_arguments_are_missed(eval_cfg, tmp_path):
    """request_only books the request's values and a guess for the rest: each task misses what only
    memory knows (task 1: cabin and seat; 2: seat; 3: cabin)."""
    summary, rows = _run(eval_cfg, tmp_path, "none", "request_only")
    assert [r["score"] for r in rows] == pytest.approx([1 / 3, 2 / 3, 2 / 3])
    assert summary["interventions"] == 0


def test_pulse_holds_each_booking_memory_contradicts_and_is_right(eval_cfg, tmp_path):
    """Pulse's rule reads the seed history (aisle seat, business class) and holds each request_only
    booking that contradicts it, never on a value the request states; the benchmark judges every hold
    right. A script cannot re-plan a held call, so the held bookings are not made (score 0)."""
    summary, rows = _run(eval_cfg, tmp_path, "pulse_rule", "request_only")
    assert summary["interventions"] == 3 and summary["interruption_success"] == 1.0
    assert [r["score"] for r in rows] == [0.0, 0.0, 0.0]


def test_template_runs_are_never_tabulated(eval_cfg, tmp_path):
    from eval.tables import collect

    out = run_eval(eval_cfg(tmp_path / "run", "none", "mock", ["agent=scripted", "agent.script=gold"]))
    assert read_rows(out / "episodes.jsonl")
    assert collect([out]) == {}
