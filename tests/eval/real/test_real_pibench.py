"""π-Bench: real-data counts, validation, workspace confinement, COMP arithmetic, proxy labelling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_data import real_data

from eval.harness import run_eval
from eval.metrics import read_rows, suite_comp, summarize

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "pibench"


def _bench(path):
    from eval.config import BenchmarkConfig
    from eval.real.pibench.benchmark import load

    return load(BenchmarkConfig(name="pibench", path=str(path)))


def test_real_data_loads_with_the_exact_counts():
    root = real_data("pibench")
    b = _bench(root)
    assert len({t.user_id for t in b.tasks}) == 5 and len(b.tasks) == 100
    assert sum(len(t.data.hidden_intents) for t in b.tasks) == 524
    assert sum(len(t.data.checklist) for t in b.tasks) == 510
    assert sum(t.scored for t in b.tasks) == 55
    for persona, ts in b.chains().items():  # dependency-group sizes of the scored tasks add up to 20
        assert sum(1 + len(t.depends_on) for t in ts if t.scored) == 20, persona
    marketer = [t.task_id for t in b.chains()["marketer"]]
    assert marketer[:3] == ["marketer_task_005", "marketer_task_011", "marketer_task_015"]  # episode order


def test_comp_aggregation_is_pibenchs_on_the_fixture():
    b = _bench(FIXTURE)
    by = {t.task_id: t for t in b.tasks}
    assert [t.scored for t in b.tasks] == [False, False, True, True, True]
    assert by["alpha_task_003"].depends_on == ("alpha_task_001", "alpha_task_002")

    def row(tid, score):
        t = by[tid]
        return {
            "task_id": tid,
            "user_id": t.user_id,
            "status": "ok",
            "score": score,
            "metric": "comp",
            "depends_on": list(t.depends_on),
            "scored": t.scored,
        }

    rows = [
        row("alpha_task_001", 0.0),
        row("alpha_task_002", 0.0),
        row("alpha_task_003", 0.25),
        row("alpha_task_004", 1.0),
        row("beta_task_001", 0.5),
    ]
    # alpha: (3 * 0.25 + 1 * 1.0) / (3 + 1) = 0.4375; beta: 0.5; average of personas = 0.46875
    s = summarize(rows)
    assert s["score_per_persona"] == {"alpha": pytest.approx(0.4375), "beta": pytest.approx(0.5)}
    assert s["score"] == pytest.approx(0.46875) and s["scored_episodes"] == 3
    assert suite_comp([r for r in rows if r["scored"]])[0] == pytest.approx(0.46875)


def test_task_comp_uses_criterion_weights_and_files_read(tmp_path):
    from eval.episode import EpisodeOutcome

    b = _bench(FIXTURE)
    t3 = next(t for t in b.tasks if t.task_id == "alpha_task_003")
    ws = b.open_env("alpha")
    ws.begin(t3)
    assert ws("read_file", {"path": "watering.md"}).startswith("Water tomatoes")
    out = EpisodeOutcome(extra={"transcript": [{"role": "assistant", "content": "Done."}]})
    assert b.score(t3, ws, out).score == 0.0
    ws("write_file", {"path": "garden-plan.md", "content": "Bed length: 3 metres. Plan ready."})
    s = b.score(t3, ws, out)  # only the weight-3 criterion (bed length, 3 metres) is met: 3 / 4
    assert s.score == pytest.approx(0.75) and s.detail["label"] == "proxy, not comparable to π-Bench"
    ws.close()


def test_file_tools_are_confined_to_the_workspace(tmp_path):
    from eval.real.pibench.env import Workspace
    from pulse.agent.gate import ToolCallError

    (tmp_path / "secret.txt").write_text("no")
    ws = Workspace("alpha", ("gmail__send_email",), root=tmp_path / "ws")
    for bad in ("../secret.txt", str(tmp_path / "secret.txt"), "a/../../secret.txt"):
        with pytest.raises(ToolCallError, match="outside the workspace"):
            ws("read_file", {"path": bad})
    (tmp_path / "ws" / "link").symlink_to(tmp_path)
    with pytest.raises(ToolCallError, match="outside the workspace"):
        ws("read_file", {"path": "link/secret.txt"})
    with pytest.raises(ToolCallError, match="outside the workspace"):
        ws("write_file", {"path": "../x.txt", "content": "x"})
    assert not (tmp_path / "x.txt").exists()
    ws("write_file", {"path": "d/a.md", "content": "hello world"})
    ws("edit_file", {"path": "d/a.md", "old_text": "world", "new_text": "there"})
    assert ws("read_file", {"path": "d/a.md"}) == "hello there" and ws("list_dir", {"path": "."}) == [
        "d/",
        "d/a.md",
    ]
    for tool in ("web_search", "mcp_appworld_gmail__send_email"):
        assert ws(tool, {"query": "x"})["status"] == "unavailable offline"
    names = {s["function"]["name"] for s in ws.tool_schemas()}
    assert {"list_dir", "read_file", "write_file", "edit_file", "mcp_appworld_gmail__send_email"} <= names


def test_bad_task_file_names_the_file_and_key(tmp_path):
    import shutil

    from eval.benchmark import BenchmarkDataError

    shutil.copytree(FIXTURE, tmp_path / "pb")
    y = tmp_path / "pb" / "beta" / "tasks" / "beta_task_001" / "task.yaml"
    y.write_text(y.read_text().replace("  initial_input:", "  first_input:"))
    with pytest.raises(BenchmarkDataError, match=r"beta_task_001/task.yaml: key 'initial_input' missing"):
        _bench(tmp_path / "pb")


def test_workspace_persists_across_a_personas_tasks_and_run_is_labelled_proxy(tmp_path, eval_cfg):
    out = run_eval(
        eval_cfg(
            tmp_path,
            "pulse_rule",
            "pibench",
            ["agent=scripted", "agent.script=noop", f"benchmark.path={FIXTURE}"],
        )
    )
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 5 and all(r["status"] == "ok" for r in rows)
    assert [r["scored"] for r in rows] == [False, False, True, True, True]
    man = json.loads((out / "manifest.json").read_text())
    assert "proxy, not comparable to π-Bench" in man["judge"]
    assert json.loads((out / "summary.json").read_text())["score"] == 0.0


def test_proc_is_pibenchs_on_the_fixture():
    from eval.metrics import pibench_proc

    b = _bench(FIXTURE)
    cov = {
        "alpha_task_001": (1, 1),
        "alpha_task_002": (1, 0),
        "alpha_task_003": (2, 1),
        "alpha_task_004": (1, 1),
        "beta_task_001": (1, 0),
    }
    rows = [
        {
            "task_id": t.task_id,
            "user_id": t.user_id,
            "status": "ok",
            "score": 0.0,
            "scored": t.scored,
            "depends_on": list(t.depends_on),
            "score_detail": {"proc": {"intents": cov[t.task_id][0], "covered": cov[t.task_id][1]}},
        }
        for t in b.tasks
    ]
    # alpha: task 3 pools its prerequisites, (1 + 1 + 0) / (2 + 1 + 1) = 0.5, weight 3; task 4: 1.0, weight 1
    total, per = pibench_proc(rows)
    assert per == {"alpha": pytest.approx(0.625), "beta": 0.0} and total == pytest.approx(0.3125)
    assert pibench_proc([{**r, "score_detail": {}} for r in rows]) == (None, {})


def test_llm_checklist_verdicts_are_ored_over_turns():
    from eval.real.judge import Verdicts
    from eval.real.pibench.benchmark import judge_per_turn, turn_ends

    t = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "y"},
    ]
    assert turn_ends(t) == [2, 4]

    class Judge:  # criterion 0 met only in the first turn's trace, criterion 1 only in the full one
        calls = []

        def judge(self, criteria, transcript, context=""):
            self.calls.append(len(transcript))
            return Verdicts([len(transcript) == 2, len(transcript) == 4], 0)

    v = judge_per_turn(Judge(), ["c0", "c1"], t, "")
    assert v.met == [True, True] and Judge.calls == [2, 4]
