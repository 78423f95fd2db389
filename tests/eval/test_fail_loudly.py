"""Failed episodes are loud: `pulse eval` exits 1 (unless allow_failures=true), summary.json and the
tables carry them; result files are standard JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CONF = Path(__file__).resolve().parents[2] / "configs"


def _no_constants(name):
    raise ValueError(f"non-standard JSON constant {name}")


def compose(out_dir, *overrides):
    from hydra import compose as hcompose
    from hydra import initialize_config_dir

    with initialize_config_dir(str(CONF), version_base="1.3"):
        return hcompose(
            "eval",
            overrides=[
                "method=pulse_rule",
                "benchmark=pibench_sim",
                f"out_dir={out_dir}",
                "progress=false",
                "benchmark.max_tasks=2",
                "benchmark.personas=[researcher]",
                *overrides,
            ],
        )


def test_failed_episode_exits_nonzero(tmp_path, failing_agent, capsys):
    from pulse.cli.eval import _run

    with pytest.raises(SystemExit) as e:
        _run(compose(tmp_path / "run"))
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert "1 of 2 episode(s) failed" in err and "researcher_task_001" in err and "boom in episode" in err
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(), parse_constant=_no_constants)
    assert summary["failed"] == 1 and summary["failed_task_ids"] == ["researcher_task_001"]


def test_allow_failures_exits_zero_and_records_the_failure(tmp_path, failing_agent, capsys):
    from pulse.cli.eval import _run
    from pulse.cli.tables import main as tables_main

    _run(compose(tmp_path / "runs" / "r", "allow_failures=true"))  # no SystemExit
    cap = capsys.readouterr()
    assert "1 of 2 episode(s) failed" in cap.err and "(1 failed)" in cap.out
    run = tmp_path / "runs" / "r"
    summary = json.loads((run / "summary.json").read_text(), parse_constant=_no_constants)
    assert (
        summary["failed"] == 1 and summary["ok"] == 1 and "boom in episode" in summary["failures"][0]["error"]
    )
    assert summary["tool_errors"] >= 0 and summary["abandoned_steps"] >= 0
    for line in (run / "episodes.jsonl").read_text().splitlines():
        json.loads(line, parse_constant=_no_constants)
    # the failed episode scores 0 in the mean: per persona (|g|=1 for task 1, 2 for task 2)
    rows = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines()]
    ok = next(r for r in rows if r["status"] == "ok")
    assert summary["score"] == pytest.approx(
        (1 + len(ok["depends_on"])) * ok["score"] / (2 + len(ok["depends_on"]))
    )
    # the tables mark the row and name the failure
    assert tables_main([str(tmp_path / "runs"), "--out", str(tmp_path / "tables"), "--no-plots"]) == 0
    md = (tmp_path / "tables" / "tables.md").read_text()
    assert "[pulse_rule] (sim)†" in md and "1 of 2 episodes failed" in md and "researcher_task_001" in md
    assert "failed episodes" in md and "tool errors" in md and "abandoned steps" in md
    json.loads((tmp_path / "tables" / "table_data.json").read_text(), parse_constant=_no_constants)
    assert r"$^\dagger$" in (tmp_path / "tables" / "tables.tex").read_text()


def test_clean_run_exits_zero(tmp_path, capsys):
    from pulse.cli.eval import _run

    _run(compose(tmp_path / "run", "benchmark.max_tasks=1"))
    out = capsys.readouterr()
    assert "(0 failed)" in out.out and "failed" not in out.err
    assert "interventions_right" not in (tmp_path / "run" / "summary.json").read_text()
