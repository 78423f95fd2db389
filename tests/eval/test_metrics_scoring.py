"""COMP exactly as pi-Bench aggregates it, MCP-Persona Acc, interruption success, and standard-JSON
results (undefined -> null, never NaN), at non-trivial hand-computed values."""

from __future__ import annotations

import json
import math

import pytest

from eval.metrics import dumps_strict, group_size, mean_stderr, persona_comp, suite_acc, suite_comp, summarize
from eval.suites import pibench_sim
from eval.suites.schema import Checkpoint, SuiteError, suite_from_json
from eval.suites.scoring import CheckResult, task_score


def _no_constants(name):
    raise ValueError(f"non-standard JSON constant {name}")


def strict_loads(text: str):
    return json.loads(text, parse_constant=_no_constants)


def _results(weights, passed):
    return [
        CheckResult(Checkpoint(f"c{i}", "a", "s", "x", "early", "preference", float(w)), p, "")
        for i, (w, p) in enumerate(zip(weights, passed))
    ]


def test_task_comp_is_weighted_and_acc_ignores_weights():
    # weights 2 and 1: passing the weight-2 criterion is worth 2/3, the weight-1 one 1/3
    assert task_score(_results([2, 1], [True, False]), "comp") == pytest.approx(2 / 3)
    assert task_score(_results([2, 1], [False, True]), "comp") == pytest.approx(1 / 3)
    assert task_score(_results([2, 1, 1, 4], [True, True, False, True]), "comp") == pytest.approx(0.875)
    assert task_score(_results([2, 1], [True, False]), "acc") == 0.5
    assert task_score(_results([2, 1], [True, True]), "acc") == 1.0
    assert task_score(_results([2, 1], [False, False]), "acc") == 0.0
    with pytest.raises(ValueError, match="metric"):
        task_score(_results([1], [True]), "f1")


def _row(task, user, deps, score, status="ok", **kw):
    r = {
        "task_id": task,
        "user_id": user,
        "depends_on": deps,
        "status": status,
        "metric": "comp",
        "category": "professional",
        **kw,
    }
    if status == "ok":
        r["score"] = score
    else:
        r.update(score=0.0, error="RuntimeError: boom")
    return r


def comp_rows():
    """Two personas, different dependency-group sizes, weighted and partial passes, one failed episode.

    p1: t1 independent, weights [2,1,1], only the weight-2 criterion passes -> COMP 0.5 (|g|=1)
        t2 depends on t1, weights [2,1,1,4], the weight-1 #3 fails           -> COMP 0.875 (|g|=2)
        persona COMP = (1*0.5 + 2*0.875) / 3 = 0.75
    p2: t3 independent, the episode failed                                   -> COMP 0 (|g|=1)
        t4 depends on t3, weights [2,1,1], the last fails                    -> COMP 0.75 (|g|=2)
        t5 depends on t3, t4, weights [1,1,1,1], one fails                   -> COMP 0.75 (|g|=3)
        persona COMP = (0 + 2*0.75 + 3*0.75) / 6 = 0.625
    suite COMP = (0.75 + 0.625) / 2 = 0.6875 (the plain mean over tasks would be 0.575)
    """
    t1 = task_score(_results([2, 1, 1], [True, False, False]), "comp")
    t2 = task_score(_results([2, 1, 1, 4], [True, True, False, True]), "comp")
    t4 = task_score(_results([2, 1, 1], [True, True, False]), "comp")
    t5 = task_score(_results([1, 1, 1, 1], [True, True, True, False]), "comp")
    return [
        _row("t1", "p1", [], t1),
        _row("t2", "p1", ["t1"], t2),
        _row("t3", "p2", [], None, status="failed"),
        _row("t4", "p2", ["t3"], t4),
        _row("t5", "p2", ["t3", "t4"], t5),
    ]


def test_comp_aggregation_is_pibench_comp():
    rows = comp_rows()
    assert [group_size(r) for r in rows] == [1, 2, 1, 2, 3]
    assert persona_comp(rows[:2]) == pytest.approx(0.75)
    assert persona_comp(rows[2:]) == pytest.approx(0.625)
    score, per = suite_comp(rows)
    assert score == pytest.approx(0.6875) and per == pytest.approx({"p1": 0.75, "p2": 0.625})
    s = summarize(rows)
    assert s["metric"] == "comp" and s["score"] == pytest.approx(0.6875)
    assert s["score_per_persona"] == pytest.approx({"p1": 0.75, "p2": 0.625})
    assert s["failed"] == 1 and s["failed_task_ids"] == ["t3"] and "boom" in s["failures"][0]["error"]
    assert s["episodes"] == 5 and s["ok"] == 4


def test_acc_is_mean_over_tasks():
    rows = [dict(r, metric="acc") for r in comp_rows()]
    for r, v in zip(rows, [0.5, 0.5, 0.0, 0.5, 1.0]):
        r["score"] = v if r["status"] == "ok" else 0.0
    score, per = suite_acc(rows)
    assert score == pytest.approx(2.5 / 5) and per == pytest.approx({"p1": 0.5, "p2": 0.5})
    assert summarize(rows)["score"] == pytest.approx(0.5)


def test_interventions_and_interruption_success():
    rows = comp_rows()
    ints = [
        (4, 3, 2, 1, 1, 0),
        (2, 0, 0, 0, 0, 2),
        (9, 9, 9, 0, 5, 5),
        (1, 1, 1, 0, 0, 0),
        (1, 1, 0, 0, 0, 1),
    ]
    for r, (n, c, f, m, te, ab) in zip(rows, ints):
        r.update(
            interventions=n,
            interventions_correct=c,
            interventions_fixed=f,
            interventions_misled=m,
            tool_errors=te,
            abandoned_steps=ab,
        )
    s = summarize(rows)  # the failed t3's counts are not counted (its episode did not finish)
    assert (
        s["interventions"],
        s["interventions_correct"],
        s["interventions_fixed"],
        s["interventions_misled"],
    ) == (8, 5, 3, 1)
    assert s["interruption_success"] == pytest.approx(5 / 8)
    assert (s["tool_errors"], s["abandoned_steps"]) == (1, 3)
    assert "interventions_right" not in s and "interruption_success" not in s["undefined"]


def test_undefined_metrics_are_null_with_a_reason_never_nan():
    rows = comp_rows()
    for r in rows:
        r["stage_counts"] = {"early": [1, 2], "middle": [0, 0], "late": [0, 0]}
    s = summarize(rows)
    assert s["interruption_success"] is None and s["undefined"]["interruption_success"] == "no interventions"
    assert s["stage_accuracy"]["early"] == 0.5 and s["stage_accuracy"]["middle"] is None
    assert "stage_accuracy.middle" in s["undefined"]
    strict_loads(dumps_strict(s))
    all_failed = summarize([_row("t1", "p1", [], None, status="failed")])
    assert all_failed["score"] == 0.0 and all_failed["store_tokens"] is None
    assert all_failed["undefined"]["store_tokens"]
    strict_loads(dumps_strict(all_failed))
    assert summarize([])["score"] is None
    with pytest.raises(ValueError):
        dumps_strict({"x": float("nan")})


def test_mean_stderr_skips_nulls():
    m, se = mean_stderr([0.5, None, 0.7, float("nan")])
    assert m == pytest.approx(0.6) and se == pytest.approx(0.1)
    assert mean_stderr([None, None]) == (None, None)
    assert mean_stderr([0.25, None]) == (0.25, None)


def test_checkpoint_weight_is_validated_and_serialised():
    d = json.loads(json.dumps(pibench_sim.generate(0).to_json()))
    assert d["tasks"][0]["checkpoints"][0]["weight"] == 1.0
    d["tasks"][0]["checkpoints"][1]["weight"] = 2
    suite = suite_from_json(d)
    assert suite.tasks[0].checkpoints[1].weight == 2.0
    assert suite_from_json(json.loads(json.dumps(suite.to_json()))) == suite
    tid = d["tasks"][0]["task_id"]
    for bad in (0, -1, "2", True, float("nan")):
        d["tasks"][0]["checkpoints"][1]["weight"] = bad
        with pytest.raises(
            SuiteError, match=rf"tasks\[0\] \({tid}\)\.checkpoints\[1\]: key 'weight' must be"
        ):
            suite_from_json(d)
    del d["tasks"][0]["checkpoints"][1]["weight"]
    assert suite_from_json(d).tasks[0].checkpoints[1].weight == 1.0


def test_harness_rows_score_with_suite_weights(tmp_path, eval_cfg):
    """End to end: a suite file with weights 3 on some checkpoints; each row's score is sum(w*pass)/sum(w)
    and the summary is pi-Bench's persona-weighted COMP of those rows."""
    from eval.harness import run_eval
    from eval.metrics import read_rows

    d = json.loads(json.dumps(pibench_sim.generate(0).to_json()))
    weights = {}
    for t in d["tasks"]:
        for i, c in enumerate(t["checkpoints"]):
            c["weight"] = 3.0 if i % 3 == 0 else 1.0
            weights[(t["task_id"], c["checkpoint_id"])] = c["weight"]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(d))
    out = run_eval(
        eval_cfg(
            tmp_path / "run",
            "none",
            overrides=[
                f"benchmark.path={path}",
                "benchmark.max_tasks=4",
                "benchmark.personas=[researcher,marketer]",
            ],
        )
    )
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 8
    partial = 0
    for r in rows:
        ws = {cid: w for (tid, cid), w in weights.items() if tid == r["task_id"]}
        expect = sum(w for cid, w in ws.items() if cid not in r["failed_checkpoints"]) / sum(ws.values())
        assert r["score"] == pytest.approx(expect) and r["checkpoint_weight_total"] == sum(ws.values())
        partial += 0 < r["score"] < 1
    assert partial  # the none method misses some checkpoints: non-trivial values
    per = {}
    for u in ("researcher", "marketer"):
        rs = [r for r in rows if r["user_id"] == u]
        per[u] = sum((1 + len(r["depends_on"])) * r["score"] for r in rs) / sum(
            1 + len(r["depends_on"]) for r in rs
        )
    summary = strict_loads((out / "summary.json").read_text())
    assert summary["score_per_persona"] == pytest.approx(per)
    assert summary["score"] == pytest.approx(sum(per.values()) / 2)
    assert not math.isclose(summary["score"], sum(r["score"] for r in rows) / len(rows))
