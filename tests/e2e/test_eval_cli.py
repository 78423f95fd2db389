"""The installed `pulse` command runs the harness verbs end to end (hydra finds configs/)."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e


def test_pulse_eval_and_tables_cli(tmp_path):
    run = tmp_path / "runs" / "none"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pulse.cli",
            "eval",
            "method=none",
            "benchmark=pibench_sim",
            f"out_dir={run}",
            "progress=false",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "[simulated agent]" in r.stdout
    assert json.loads((run / "summary.json").read_text())["episodes"] > 0
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pulse.cli",
            "tables",
            str(tmp_path / "runs"),
            "--out",
            str(tmp_path / "tables"),
            "--no-plots",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "(sim)" in (tmp_path / "tables" / "tables.md").read_text()


def test_pulse_eval_unknown_method_is_named(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "pulse.cli", "eval", "method=nonee", f"out_dir={tmp_path}/x"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode != 0 and "method/nonee" in r.stderr
