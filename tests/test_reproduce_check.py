"""scripts/reproduce_check.py's comparison, on the committed result files (no demo runs here; the
check itself is `make reproduce-check`, run by .ci/run after the tests):

- identical results pass; one changed figure fails, named, with both values;
- timing fields and s/task columns are left out by name, and only they;
- the tables slice compares only cells that need no trained policy;
- README.md's demo block is what results/demo renders to;
- the two table slices run side by side, each with its own exit status; beside the demo at nice 19.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "results" / "demo"


@pytest.fixture(scope="module")
def rc():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import reproduce_check
    finally:
        sys.path.pop(0)
    return reproduce_check


@pytest.fixture(scope="module")
def committed():
    return json.loads((DEMO / "demo_results.json").read_text())


def test_identical_results_pass(rc, committed):
    assert rc.compare(committed, copy.deepcopy(committed)) == []
    text = (DEMO / "demo_table.md").read_text()
    assert rc.compare(text, text) == []


def test_one_changed_figure_fails_and_is_named(rc, committed):
    fresh = copy.deepcopy(committed)
    sft = fresh["results"]["SFT only"][0]
    sft["decision_accuracy"] = sft["decision_accuracy"] + 0.01
    diffs = rc.compare(committed, fresh)
    assert [d.where for d in diffs] == ["results.SFT only[0].decision_accuracy"]
    assert diffs[0].committed == committed["results"]["SFT only"][0]["decision_accuracy"]
    assert diffs[0].fresh == sft["decision_accuracy"]


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["checks"].update(penalty_fewer_interventions=None),
        lambda r: r["results"]["GRPO (penalty -1)"][0]["confusion"].update({"silent->silent": 1}),
        lambda r: r["results"]["GRPO (penalty 0)"][0].pop("interventions"),
        lambda r: r["results"]["base (untrained)"][0].update(interruption_success=0.0),  # null -> 0.0
        lambda r: r["results"]["SFT only"][0].update(interventions=True),  # a bool is not the number 108
        lambda r: r["seeds"].append(1),
    ],
)
def test_any_changed_leaf_fails(rc, committed, change):
    fresh = copy.deepcopy(committed)
    change(fresh)
    assert len(rc.compare(committed, fresh)) >= 1


def test_a_changed_table_cell_fails_in_json_and_markdown(rc, committed):
    fresh = copy.deepcopy(committed)
    row = next(line for line in fresh["table"].splitlines() if line.startswith("| SFT only"))
    cells = row.split("|")
    cells[3] = " 12.3 "  # decision acc %
    fresh["table"] = fresh["table"].replace(row, "|".join(cells))
    diffs = rc.compare(committed, fresh)
    assert len(diffs) == 1 and "SFT only" in diffs[0].where and "[decision acc %]" in diffs[0].where
    assert diffs[0].fresh == "12.3"
    md = (DEMO / "demo_table.md").read_text()
    diffs = rc.compare(md, md.replace(row, "|".join(cells)))
    assert len(diffs) == 1 and diffs[0].where.endswith("[decision acc %]")


def test_timing_is_left_out_by_name_only(rc, committed):
    fresh = copy.deepcopy(committed)
    for runs in fresh["results"].values():
        for r in runs:
            r["seconds"] *= 3
            r["examples_per_s"] /= 3
    fresh["provenance"] = {"git_commit": "another", "models": {"base": "x"}}
    # an s/task cell of the suites' Table 1 (seconds per task: partly measured time)
    table = fresh["suites"]["table"]
    header = next(line for line in table.splitlines() if line.startswith("|") and "s/task" in line)
    col = [c.strip() for c in header.strip("|").split("|")].index("pibench_sim s/task")
    row = next(line for line in table.splitlines() if line.startswith("| none (sim)"))
    cells = row.strip("|").split("|")
    cells[col] = " 99.99 "
    fresh["suites"]["table"] = table.replace(row, "|" + "|".join(cells) + "|")
    assert rc.compare(committed, fresh) == []
    # the same change in a column that is not a time fails
    cells[[c.strip() for c in header.strip("|").split("|")].index("pibench_sim Retrieve tok")] = " 1.0 "
    fresh["suites"]["table"] = table.replace(row, "|" + "|".join(cells) + "|")
    assert [d.where.split("[")[-1] for d in rc.compare(committed, fresh)] == ["pibench_sim Retrieve tok]"]


def test_float_summation_noise_is_not_a_difference(rc):
    a = {"per_category": {"professional": 0.5855654761904764}}
    b = {"per_category": {"professional": 0.5855654761904765}}  # the same sum in another order
    assert rc.compare(a, b) == []
    assert len(rc.compare(a, {"per_category": {"professional": 0.5856}})) == 1


def test_missing_file_is_a_difference(rc, tmp_path):
    (tmp_path / "a.json").write_text("{}")
    diffs = rc.compare_files(tmp_path / "a.json", tmp_path / "b.json", "x.json")
    assert len(diffs) == 1 and diffs[0].fresh == rc.ABSENT


def test_tables_slice_compares_cells_without_a_trained_policy(rc):
    committed = json.loads((ROOT / "results" / "tables" / "table_data.json").read_text())
    assert rc.table_slice_diffs(committed, copy.deepcopy(committed)) == []
    fresh = copy.deepcopy(committed)
    seed0 = next(e for e in fresh["table1|mem0|pibench_sim"] if e["seed"] == 0)
    seed0["score"] += 0.001
    seed0["seconds_per_task"] += 5  # timing: left out
    seed0["run"] = "elsewhere/runs/table1/mem0/pibench_sim/seed0"  # where it was written: left out
    diffs = rc.table_slice_diffs(committed, fresh)
    assert [d.where for d in diffs] == ["table1|mem0|pibench_sim seed 0: score"]
    # a situation-blind row is a policy nothing trained: in the slice too
    blind = copy.deepcopy(committed)
    next(e for e in blind["table1|pulse_intervene_all|pibench_sim"] if e["seed"] == 0)["score"] += 0.001
    assert [d.where for d in rc.table_slice_diffs(committed, blind)] == [
        "table1|pulse_intervene_all|pibench_sim seed 0: score"
    ]
    # a learned row (a checkpoint path) and another seed are not in the slice
    row = next(e for e in committed["table1|mem0|pibench_sim"] if e["seed"] == 0)
    with_learned = {
        **committed,
        "table1|pulse|pibench_sim": [{**row, "policy_checkpoints": ["out/s0/final"]}],
    }
    learned = copy.deepcopy(with_learned)
    learned["table1|pulse|pibench_sim"][0]["score"] = 0.0
    next(e for e in learned["table1|mem0|pibench_sim"] if e["seed"] == 1)["score"] = 0.0
    assert rc.table_slice_diffs(with_learned, learned) == []
    assert rc.table_slice_diffs(committed, with_learned) == []  # a learned row only one side has
    # a row the fresh run does not have
    missing = {k: v for k, v in committed.items() if k != "table1|none|pibench_sim"}
    assert [d.where for d in rc.table_slice_diffs(committed, missing)] == ["table1|none|pibench_sim"]


def test_readme_demo_block_is_rendered_from_results_demo(rc):
    readme = (ROOT / "README.md").read_text()
    diffs = rc.readme_diffs(readme, DEMO)
    assert diffs == [], (
        "README.md's demo block differs from results/demo; run "
        "`.venv/bin/python scripts/reproduce_check.py --readme`: " + str(diffs[:5])
    )


def test_readme_block_replacement_keeps_the_rest(rc):
    text = f"before\n{rc.README_START}\nold\n{rc.README_END}\nafter\n"
    new = rc.readme_with_block(text, f"{rc.README_START}\nnew\n{rc.README_END}")
    assert new == f"before\n{rc.README_START}\nnew\n{rc.README_END}\nafter\n"
    with pytest.raises(ValueError, match="no demo block"):
        rc.readme_with_block("no markers", "x")


def test_a_hung_part_is_stopped_with_its_children(rc, tmp_path):
    """A part past its time limit is stopped, workers included (a hung run must not hold CI)."""
    import time

    hang = (
        "import subprocess, time; subprocess.Popen(['sleep', '60']); print('started', flush=True); "
        "time.sleep(60)"
    )
    t0 = time.monotonic()
    status, _ = rc.run_logged([sys.executable, "-c", hang], tmp_path, {}, tmp_path / "log", timeout_s=1)
    assert status == rc.TIMED_OUT and time.monotonic() - t0 < 20
    assert "started" in (tmp_path / "log").read_text() and "time limit" in (tmp_path / "log").read_text()
    status, _ = rc.run_logged(
        [sys.executable, "-c", "print('ok')"], tmp_path, {}, tmp_path / "log", timeout_s=30
    )
    assert status == 0


def test_the_slices_run_side_by_side_and_each_keeps_its_status(rc, tmp_path):
    """Each slice waits for the other to have started: run one after the other, the first would give
    up waiting and fail."""
    wait_for = (
        "import pathlib, sys, time; me, other = sys.argv[1:3]; pathlib.Path(me).touch(); "
        "t = time.monotonic()\n"
        "while not pathlib.Path(other).exists():\n"
        "    time.sleep(0.05)\n"
        "    if time.monotonic() - t > 20: sys.exit(3)\n"
        "sys.exit(int(sys.argv[3]))"
    )
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    runs = [
        rc.SliceRun("tables", [sys.executable, "-c", wait_for, a, b, "0"], {}, tmp_path),
        rc.SliceRun("real_tools", [sys.executable, "-c", wait_for, b, a, "5"], {}, tmp_path),
    ]
    for t in rc.start_slices(runs, tmp_path, tmp_path / "logs", beside_demo=False):
        t.join()
    assert [r.rc for r in runs] == [0, 5]
    assert all(r.secs > 0 for r in runs)


def test_beside_the_demo_the_slices_run_at_the_lowest_priority(rc, tmp_path):
    """While the demo trains they may take only the cores it leaves idle (nice 19, inherited by their
    workers); each keeps its own status, and the limit grows by the demo's."""
    prog = "import os, sys; print(os.nice(0)); sys.exit(int(sys.argv[1]))"
    runs = [
        rc.SliceRun("tables", [sys.executable, "-c", prog, "0"], {}, tmp_path),
        rc.SliceRun("real_tools", [sys.executable, "-c", prog, "4"], {}, tmp_path),
    ]
    for t in rc.start_slices(runs, tmp_path, tmp_path / "logs", beside_demo=True):
        t.join()
    assert [r.rc for r in runs] == [0, 4]
    base = os.nice(0)
    for name in ("tables", "real_tools"):
        assert (tmp_path / "logs" / f"{name}.log").read_text().split()[0] == str(min(base + 19, 19))


def _demo_files(folder: Path, cpu: str, figure: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "demo_results.json").write_text(json.dumps({"figure": figure}))
    (folder / "demo_table.md").write_text(f"| a |\n|---|\n| {figure} |\n")
    (folder / "reproduce.json").write_text(json.dumps({"cpu": cpu}))


def test_the_demo_is_compared_with_the_files_made_on_its_own_cpu(rc, tmp_path):
    demo = tmp_path / "results" / "demo"
    _demo_files(demo, "AMD EPYC", 1.0)
    _demo_files(
        demo / rc.OTHER_CPUS / rc.cpu_slug("Intel(R) Xeon(R) Processor"), "Intel(R) Xeon(R) Processor", 2.0
    )
    assert rc.demo_reference(demo, "AMD EPYC") == (demo, "")
    xeon, note = rc.demo_reference(demo, "Intel(R) Xeon(R) Processor")
    assert xeon == demo / "other_cpus" / "intel_xeon_processor" and note == ""
    # A CPU with no files of its own: results/demo, with a note naming both CPUs.
    ref, note = rc.demo_reference(demo, "Some ARM core")
    assert ref == demo and "'AMD EPYC'" in note and "'Some ARM core'" in note


def test_an_update_on_another_cpu_keeps_the_old_files_beside(rc, tmp_path, monkeypatch):
    root = tmp_path / "repo"
    _demo_files(root / "results" / "demo", "Intel(R) Xeon(R) Processor", 2.0)
    (root / "README.md").write_text(f"x\n{rc.README_START}\nold\n{rc.README_END}\ny\n")
    clone = tmp_path / "clone"
    fresh = clone / "outputs" / "demo"
    fresh.mkdir(parents=True)
    (fresh / "demo_results.json").write_text(json.dumps({"table": "| a |\n|---|\n| 1 |", "seeds": [0]}))
    (fresh / "demo_table.md").write_text("| a |\n|---|\n| 1.0 |\n")
    monkeypatch.setattr(rc, "cpu_model", lambda: "AMD EPYC")
    rc.update_demo(root, clone, "f" * 40, 60.0)
    demo = root / "results" / "demo"
    assert json.loads((demo / "reproduce.json").read_text())["cpu"] == "AMD EPYC"
    kept = demo / "other_cpus" / "intel_xeon_processor"
    assert json.loads((kept / "demo_results.json").read_text()) == {"figure": 2.0}
    assert json.loads((kept / "reproduce.json").read_text())["cpu"] == "Intel(R) Xeon(R) Processor"
    assert "(AMD EPYC)" in (root / "README.md").read_text()


def test_another_cpus_files_from_other_training_data_are_not_compared(rc, tmp_path):
    """A data change updates results/demo on one CPU only: another CPU's older files would differ in every
    figure for a reason that is not the code. They are named stale; what does not depend on the CPU (the
    data's fingerprint, the training config) is then compared with results/demo, and still fails."""
    demo = tmp_path / "demo"
    other = demo / rc.OTHER_CPUS / "amd_epyc"
    other.mkdir(parents=True)

    def results(fp, lr=0.1):
        return {"provenance": {"dataset_fingerprint": fp}, "train_config": {"sft": {"lr": lr}}, "figure": 1.0}

    (demo / "demo_results.json").write_text(json.dumps(results("b" * 64)))
    (other / "demo_results.json").write_text(json.dumps(results("a" * 64)))
    assert rc.stale_reference(demo, demo, results("c" * 64)) == ""  # results/demo itself: a real difference
    assert rc.stale_reference(other, demo, results("a" * 64)) == ""
    assert rc.stale_reference(other, demo, results("b" * 64)) == "aaaaaaaa -> bbbbbbbb"
    fresh = tmp_path / "fresh.json"
    fresh.write_text(json.dumps(results("b" * 64) | {"figure": 2.0}))
    assert rc.cpu_independent_diffs(demo / "demo_results.json", fresh) == []
    fresh.write_text(json.dumps(results("b" * 64, lr=0.2)))
    [d] = rc.cpu_independent_diffs(demo / "demo_results.json", fresh)
    assert "train_config" in d.where and (d.committed, d.fresh) == (0.1, 0.2)
    fresh.write_text(json.dumps(results("c" * 64)))
    assert [d.where for d in rc.cpu_independent_diffs(demo / "demo_results.json", fresh)] == [
        "demo_results.json: provenance.dataset_fingerprint"
    ]
