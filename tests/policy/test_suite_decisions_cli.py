"""`pulse eval-policy source=suite`: every policy call of a suite run, scored against the gold rule,
through the real CLI (the gold rule as the policy: 100 % by construction, its own interventions)."""

import json
import subprocess
import sys


def test_eval_policy_suite_cli_writes_suite_decisions(tmp_path):
    out = tmp_path / "ep"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pulse.cli",
            "eval-policy",
            "source=suite",
            "policy.name_or_path=rule",
            "benchmarks=[mcp_persona_sim]",
            f"out_dir={out}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads((out / "suite_decisions.json").read_text())["benchmarks"]["mcp_persona_sim"]
    for key in (
        "decision_accuracy",
        "interruption_success",
        "interventions",
        "oracle_interventions",
        "confusion",
    ):
        assert key in res
    assert res["decision_accuracy"] == 1.0 and res["interventions"] == res["oracle_interventions"] > 0
    lines = (out / "decisions.jsonl").read_text().splitlines()
    assert len(lines) == res["n"] and json.loads(lines[0])["benchmark"] == "mcp_persona_sim"
