"""`pulse trace`: the opt-in per-episode trace the harness records, the page's data, the CLI, and the
page in headless Chromium (skipped where Chromium is not installed)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "trace_browser_check", REPO / "scripts" / "trace_browser_check.py"
)
check_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_script)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return check_script.small_runs(tmp_path_factory.mktemp("runs"))


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]


def test_the_trace_records_events_gates_retrieval_reasons_and_checkpoints_and_changes_no_result(
    runs, tmp_path
):
    traced = rows(runs[0])
    ep = next(r for r in traced if r["interventions"])  # an episode whose gate held a call
    tr = ep["trace"]
    kinds = [e["kind"] for e in tr["events"]]
    assert kinds[0] == "request" and {"message", "candidate_call", "tool_result"} <= set(kinds)
    held = [g for g in tr["gates"] if g["action"] == "intervene"]
    assert len(held) == ep["interventions"] >= 1 and all(g["evidence"] and g["message"] for g in held)
    assert all(m["reason"] for r in tr["retrievals"] for m in r["items"]) and tr["retrievals"][0]["step"] == 1
    assert {d["step"] for d in tr["decisions"]} <= {e["step"] for e in tr["events"]}
    assert len(tr["checkpoints"]) == ep["checkpoints_total"]
    # the same run without PULSE_TRACE: the same results, no trace field
    plain = rows(check_script.small_runs(tmp_path, methods=("pulse_rule",), trace=False)[0])
    keys = (
        "task_id",
        "score",
        "failed_checkpoints",
        "interventions",
        "supplements",
        "retrievals",
        "policy_calls",
    )
    assert [{k: r[k] for k in keys} for r in plain] == [{k: r[k] for k in keys} for r in traced]
    assert not any("trace" in r for r in plain)


def test_page_data_timeline_says_what_the_agent_did_next_and_marks_checkpoints(runs):
    from pulse.trace.load import load

    data = load([str(r) for r in runs])
    assert [r["method"] for r in data["runs"]] == ["pulse_rule", "none"] and len(data["episodes"]) == 4
    ep = data["episodes"][0]
    held = [
        t
        for t in ep["timeline"]
        if t.get("gate", {}).get("action") == "intervene"
        and any(m["slot"] == "seed_policy" for m in t["evidence_items"])
    ]
    assert held and held[0]["verdict"] == "correct"
    assert (
        held[0]["next"].startswith("re-called log_experiment")
        and "(follows memory three_seeds)" in held[0]["next"]
    )
    none_ep = next(e for e in data["episodes"] if e["method"] == "none" and e["task_id"] == ep["task_id"])
    failed = {c["id"] for c in none_ep["checkpoints"] if not c["passed"]}
    assert failed == set(rows(runs[1])[0]["failed_checkpoints"]) and failed
    assert "decision" not in str(none_ep["timeline"])  # no memory agent: events only


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pulse.cli.trace", *args], cwd=REPO, capture_output=True, text=True, timeout=60
    )


def test_cli_writes_one_self_contained_page_and_refuses_bad_input_in_one_line(runs, tmp_path):
    out = tmp_path / "t.html"
    r = _cli(str(runs[0]), str(runs[1]), f"out={out}")
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert "http://" not in page and "https://" not in page and "<link" not in page and " src=" not in page
    blob = page.split('id="pulse-trace-data">')[1].split("</script>")[0]
    assert json.loads(blob)["episodes"][0]["task_id"] == "researcher_task_001"
    r = _cli(str(runs[0]))  # one run: RUN_DIR/trace.html
    assert r.returncode == 0 and (runs[0] / "trace.html").is_file()

    bad = tmp_path / "bad"
    bad.mkdir()
    r = _cli(str(bad))
    assert r.returncode == 2 and "no episodes.jsonl here or below" in r.stderr and "Traceback" not in r.stderr
    (bad / "episodes.jsonl").write_text('{"task_id": "t1"}\n{"task_id": \n')
    r = _cli(str(bad))
    assert r.returncode == 2 and "episodes.jsonl: line 2: not valid JSON" in r.stderr


def test_rows_without_a_trace_still_render_and_markup_in_data_stays_data(tmp_path):
    from pulse.trace.html import render
    from pulse.trace.load import load

    run = tmp_path / "run"
    run.mkdir()
    evil = "</script><script>alert(1)</script><!--"
    (run / "episodes.jsonl").write_text(
        json.dumps(
            {
                "task_id": evil,
                "method": "m",
                "benchmark": "b",
                "status": "failed",
                "score": 0.0,
                "failed_checkpoints": ["c1"],
                "error": evil,
            }
        )
        + "\n"
    )
    page = render(load([str(run)]))
    assert page.count("</script>") == 3 and "<script>alert" not in page and "<!--" not in page
    assert load([str(run)])["episodes"][0]["traced"] is False


@pytest.mark.skipif(
    not check_script.chromium(),
    reason="Chromium not installed (apt-get install -y chromium); "
    "scripts/trace_browser_check.py checks the page in it",
)
def test_the_page_in_headless_chromium(runs, tmp_path):
    from pulse.trace.html import render
    from pulse.trace.load import load

    page = tmp_path / "trace.html"
    page.write_text(render(load([str(r) for r in runs])))
    assert check_script.check(page) == []
    # and the check does fail on a page that lacks what it looks for (only the `none` run)
    page.write_text(render(load([str(runs[1])])))
    assert check_script.check(page)
