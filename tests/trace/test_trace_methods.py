"""`pulse trace` for every method and for a whole run set (issue 32): deliveries of any method on the
timeline (the Proactive Memory Agent's transient reminders), wrong and misled interventions marked
with the failed checkpoint linked to its step, the policy's prompt and raw output (capped), files
0644, run paths with `=`, no absolute path in the page, and a run-set page that stays small (episode
details in chunk files loaded on demand); the page in headless Chromium where it is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(out: Path, method: str, personas: list[str], max_tasks: int) -> Path:
    from hydra import compose, initialize_config_dir

    from eval.config import EvalConfig
    from eval.harness import run_eval
    from pulse.config.schema import to_typed

    ov = [
        f"method={method}",
        "benchmark=mcp_persona_sim",
        f"out_dir={out}",
        "progress=false",
        f"benchmark.max_tasks={max_tasks}",
        f"benchmark.personas=[{','.join(personas)}]",
    ]
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        cfg = to_typed(compose("eval", overrides=ov), EvalConfig)
    return run_eval(cfg)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A Proactive Memory Agent run (reminders) and a hold-every-call run (a misled intervention)."""
    root = tmp_path_factory.mktemp("runs")
    mp = pytest.MonkeyPatch()
    mp.setenv("PULSE_TRACE", "1")
    try:
        pma = _run(root / "pma", "pma", ["mcp_user_01"], 3)
        held = _run(root / "intervene_all", "pulse_intervene_all", ["mcp_user_06"], 3)
    finally:
        mp.undo()
    return {"pma": pma, "held": held}


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]


def test_a_baseline_runs_reminders_are_on_the_timeline_as_transient_deliveries(runs):
    from pulse.trace.load import load

    data = load([str(runs["pma"])])
    by_task = {r["task_id"]: r for r in rows(runs["pma"])}
    assert sum(r["supplements"] for r in by_task.values()) >= 2
    for ep in data["episodes"]:
        shown = [d for t in ep["timeline"] for d in t.get("deliveries", [])]
        # every supplement the method made is on the timeline where the task agent took it
        assert len(shown) + len(ep["not_taken"]) == by_task[ep["task_id"]]["supplements"]
        for t in ep["timeline"]:
            for d in t.get("deliveries", []):
                assert d["source"] == "supplement" and d["transient"] is True  # context of the next call only
                assert d["after_step"] == t["step"] and d["message"].startswith("Reminder")
                assert all(i in ep["items"] for i in d["items"])
    # the memory-side LLM's prompts and raw outputs, by step
    calls = [p for e in data["episodes"] for t in e["timeline"] for p in t.get("policy", [])]
    assert calls and all(p["purpose"] and p["prompt"] and p["output"] for p in calls)


def test_wrong_and_misled_interventions_are_marked_with_the_failed_checkpoint_linked_to_its_step(runs):
    from pulse.trace.load import load

    data = load([str(runs["held"])])
    eps = data["episodes"]
    for ep in eps:
        verdicts = [t["verdict"] for t in ep["timeline"] if "verdict" in t]
        assert len(verdicts) == ep["n_int"]
        assert verdicts.count("misled") == ep["misled"]
        assert sum(v != "correct" for v in verdicts) == ep["wrong"]
    ep = next(e for e in eps if e["misled"])
    misled = next(t for t in ep["timeline"] if t.get("verdict") == "misled")
    assert misled["checkpoints"], "a misled intervention names the failed checkpoint of its artifact"
    cp = next(c for c in ep["checkpoints"] if c["id"] == misled["checkpoints"][0])
    assert cp["passed"] is False and cp["step"] >= misled["step"]
    at = next(t for t in ep["timeline"] if t["step"] == cp["step"])
    assert at["kind"] == "candidate_call" and cp["id"] in at["failed"] and at["args"][cp["slot"]] == cp["got"]
    # the policy's prompt and raw output at each of its calls
    calls = [p for t in ep["timeline"] for p in t.get("policy", [])]
    assert calls and all(p["prompt"] and p["output"].lstrip().startswith("{") for p in calls)
    assert any(t.get("verdict") == "wrong" for e in eps for t in e["timeline"])


def test_recorded_text_is_capped():
    from pulse.trace import record

    long = "x" * 10_000 + "END"
    out = record.cap(long, 1000)
    assert len(out) < 1100 and out.endswith("END") and "characters cut" in out
    assert record.cap("short", 1000) == "short"


def test_run_set_page_files_0644_relative_names_and_lazy_chunks(runs, tmp_path):
    from pulse.trace.html import write_page

    out = tmp_path / "site" / "all.html"
    w = write_page([str(runs["pma"]), str(runs["held"])], out, lazy="always")
    files = [out, *sorted(w["lazy"].iterdir())]
    assert len(files) == 1 + w["chunks"] and w["chunks"] >= 2
    for f in files:
        assert f.stat().st_mode & 0o777 == 0o644, f
        text = f.read_text()
        assert str(tmp_path) not in text and str(REPO) not in text
    page = out.read_text()
    blob = json.loads(page.split('id="pulse-trace-data">')[1].split("</script>")[0].replace("\\u003c", "<"))
    assert [r["dir"] for r in blob["runs"]] == [
        os.path.relpath(runs["pma"], out.parent),
        os.path.relpath(runs["held"], out.parent),
    ]
    assert blob["lazy"] == "all_episodes" and "timeline" not in blob["episodes"][0]
    assert 'id="pulse-trace-details"' not in page  # nothing inline: the details come from the chunk files
    first = w["lazy"] / f"{blob['episodes'][0]['chunk']}.js"
    body = first.read_text()
    assert body.startswith("PulseTrace.chunk(") and f'"0:{blob["episodes"][0]["task_id"]}"' in body
    # a small set stays one self-contained page
    w2 = write_page([str(runs["pma"])], tmp_path / "one.html")
    assert w2["lazy"] is None and 'id="pulse-trace-details"' in (tmp_path / "one.html").read_text()


def test_cli_takes_run_paths_with_equals_signs(runs, tmp_path):
    run = tmp_path / "runs" / "seed=0"
    shutil.copytree(runs["pma"], run)
    out = tmp_path / "pages=x" / "t.html"
    r = subprocess.run(
        [sys.executable, "-m", "pulse.cli.trace", str(run), f"out={out}", "lazy=always"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert out.is_file() and (out.parent / "t_episodes").is_dir() and "loaded on demand" in r.stdout
    assert "../runs/seed=0" in out.read_text() and str(tmp_path) not in out.read_text()
    r = subprocess.run(
        [sys.executable, "-m", "pulse.cli.trace", str(run), "titel=x"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "unknown key 'titel'" in r.stderr and "Traceback" not in r.stderr


def test_a_run_set_page_stays_small(runs, tmp_path):
    """30 runs (copies of two realistic traced runs): the page holds only the index."""
    from pulse.trace.html import write_page

    dirs = []
    for i in range(30):
        d = tmp_path / "set" / f"run{i:02d}"
        shutil.copytree(runs["pma" if i % 2 else "held"], d, ignore=shutil.ignore_patterns("memory"))
        dirs.append(d)
    w = write_page([str(tmp_path / "set")], tmp_path / "set.html", inline_mb=1.0)  # auto: too big inline
    assert w["runs"] == 30 and w["lazy"] is not None
    page = (tmp_path / "set.html").read_text()
    blob = page.split('id="pulse-trace-data">')[1].split("</script>")[0]
    data = json.loads(blob)
    size = lambda x: len(json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode())  # noqa: E731
    per_episode, per_run = size(data["episodes"]) / w["episodes"], size(data["runs"]) / w["runs"]
    fixed = w["page_bytes"] - len(blob.encode())  # CSS, JavaScript, the header
    assert per_episode < 250 and per_run < 600 and fixed < 150_000, (per_episode, per_run, fixed)
    # the whole table reproduction: 315 runs of at most 85 episodes each
    assert fixed + 315 * (per_run + 85 * per_episode) < 10e6
    assert w["page_bytes"] < 0.1 * (w["page_bytes"] + w["detail_bytes"])
    print(
        f"run set: {w['runs']} runs, {w['episodes']} episodes: page {w['page_bytes']} B "
        f"({per_episode:.0f} B an episode, {per_run:.0f} B a run, {fixed} B fixed), "
        f"details {w['detail_bytes']} B in {w['chunks']} files"
    )


def _chromium() -> str:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome") or ""


@pytest.mark.skipif(
    not _chromium(), reason="Chromium not installed (apt-get install -y chromium): the page is not opened"
)
def test_the_pages_in_headless_chromium(runs, tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    import trace_browser_check as tbc

    from pulse.trace.html import write_page

    # a baseline run: its reminders on the timeline (the details loaded on demand from the chunk files)
    page = tmp_path / "pma.html"
    write_page([str(runs["pma"])], page, lazy="always")
    task = next(r["task_id"] for r in rows(runs["pma"]) if r["supplements"])
    dom = tbc.browse(page, f"#ep=0:{task}")
    txt = tbc.text_of(dom)
    assert 'data-ready="1"' in dom and f'data-detail="0:{task}"' in dom
    assert 'data-source="supplement"' in dom
    assert "pma: reminder (transient: context of the next call only)" in txt
    # a run with a misled intervention: marked, and listed by the misled filter
    page = tmp_path / "held.html"
    write_page([str(runs["held"])], page)
    task = next(r["task_id"] for r in rows(runs["held"]) if r["interventions_misled"])
    dom = tbc.browse(page, f"#ep=0:{task}&show=misled")
    txt = tbc.text_of(dom)
    assert 'data-verdict="misled"' in dom and "MISLED: the held call was right" in txt
    assert "failed checkpoint(s) of this artifact" in txt and "1 of 3 episodes" in txt


def test_a_version_1_trace_still_loads():
    from pulse.trace.load import episode

    item = {
        "id": "m1",
        "kind": "preference",
        "slot": "seat",
        "value": "window",
        "text": "t",
        "source": "user",
    }
    tr = {
        "version": 1,
        "request": "book",
        "events": [
            {"step": 1, "kind": "request", "text": "book"},
            {"step": 2, "kind": "candidate_call", "tool": "book", "args": {"name": "a", "seat": "aisle"}},
        ],
        "gates": [
            {"step": 2, "action": "intervene", "evidence": ["m1"], "message": "seat", "parse_ok": True}
        ],
        "taken": [{"after_step": 1, "step": 1, "items": ["m1"]}],
        "retrievals": [
            {
                "step": 2,
                "subgoal": "",
                "entities": [],
                "call": "book",
                "items": [{**item, "score": 0.5, "reason": "r"}],
            }
        ],
        "decisions": [],
        "deliveries": [{"step": 1, "source": "supplement", "message": "m", "items": [item]}],
        "checkpoints": [
            {
                "id": "c1",
                "artifact": "a",
                "slot": "seat",
                "expected": "window",
                "stage": "early",
                "source": "preference",
                "weight": 1.0,
            }
        ],
    }
    row = {"task_id": "t", "failed_checkpoints": ["c1"], "interventions": 1, "trace": tr}
    ep = episode(row, 0, "m", "b")
    held = ep["timeline"][1]
    assert held["evidence_items"][0]["value"] == "window" and held["retrieval"]["items"][0]["reason"] == "r"
    assert ep["timeline"][0]["deliveries"][0]["items"] == ["m1"] and ep["items"]["m1"]["slot"] == "seat"
    assert ep["checkpoints"][0]["step"] == 2 and held["failed"] == ["c1"] and "verdict" not in held
