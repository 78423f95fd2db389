"""`pulse reproduce` (eval/reproduce.py; scripts/reproduce_tables.py calls it): identical runs share one
key (and only they do), a reused run directory
tabulates and resumes exactly like a real run of that row, and a failing run in a worker process
surfaces with its name and exit status 1."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["benchmark.max_tasks=1", "benchmark.personas=[researcher]"]


@pytest.fixture(scope="module")
def rt():
    import eval.reproduce as reproduce_tables

    return reproduce_tables


def _args(rt, argv):
    """main()'s parsed arguments for argv (the parser lives in main)."""
    seen = {}

    def stop(a):
        seen["a"] = a
        raise SystemExit

    real, rt.plan = rt.plan, stop
    try:
        with pytest.raises(SystemExit):
            rt.main([*argv, "--workers", "1"])
    finally:
        rt.plan = real
    return seen["a"]


def test_reuse_key_joins_identical_rows_and_only_them(rt, tmp_path):
    rows = [
        "table1/pulse",
        "table3/pulse",
        "table1/pulse_no_rl",
        "table1/mem0",
        "tableB4/mem0",
        "table2/supplement_only",
        "table2/oracle_supplement_only",
    ]
    a = _args(
        rt,
        ["--tables", "table1", "table2", "table3", "tableB4", "--rows", *rows, "--benchmarks", "pibench_sim"]
        + ["--seeds", "0", "1", "--checkpoint", "ck/s{seed}", "--base", "base/s{seed}"]
        + ["--runs", str(tmp_path / "runs")],
    )
    runs, skipped = rt.plan(a)
    assert not skipped
    key = {(r.row, r.seed): r.key for r in runs}
    # the same method, checkpoint and suite under another table's name: one run
    assert (
        key["table1/pulse", 0] == key["table3/pulse", 0] and key["table1/pulse", 1] == key["table3/pulse", 1]
    )
    assert key["table1/mem0", 0] == key["tableB4/mem0", 0]
    # another method / policy (trained vs base checkpoint), the oracle's rule policy and name, another
    # seed (and its checkpoint): different runs
    assert key["table1/pulse", 0] != key["table1/pulse_no_rl", 0]
    assert key["table2/supplement_only", 0] != key["table2/oracle_supplement_only", 0]
    assert key["table1/pulse", 0] != key["table1/pulse", 1]
    assert key["table1/mem0", 0] != key["table1/mem0", 1]
    by = {(r.row, r.seed): r for r in runs}
    assert by["table3/pulse", 0].source is by["table1/pulse", 0]  # the first of them runs
    assert by["tableB4/mem0", 1].source is by["table1/mem0", 1] and by["table1/mem0", 1].source is None
    assert sum(r.source is not None for r in runs) == 4  # (table3/pulse, tableB4/mem0) x 2 seeds

    # directly on the config: only the name and the place may differ
    from pulse.config.schema import as_dict

    base = as_dict(by["table1/pulse", 0].cfg)
    renamed = {
        **base,
        "experiment": "elsewhere/x",
        "out_dir": "/tmp/x",
        "progress": True,
        "chains_parallel": 1,
    }
    assert rt.reuse_key(renamed) == rt.reuse_key(base)
    for dotted, value in [
        ("method.name", "pulse-renamed"),
        ("policy.name_or_path", "ck/other"),
        ("base_policy.name_or_path", "base/other"),
        ("benchmark.max_tasks", 3),
        ("seed", 7),
    ]:
        head, _, leaf = dotted.rpartition(".")
        changed = json.loads(json.dumps(base))
        (changed[head] if head else changed)[leaf] = value
        assert rt.reuse_key(changed) != rt.reuse_key(base), dotted

    no_reuse = _args(rt, ["--rows", *rows, "--benchmarks", "pibench_sim", "--seeds", "0", "--no-reuse"])
    no_reuse.checkpoint, no_reuse.base = "ck/s{seed}", "base/s{seed}"
    assert all(r.source is None for r in rt.plan(no_reuse)[0])


def _table_data(out: Path) -> dict:
    """table_data.json without the run directory's path and without wall-clock figures (two runs of one
    config differ in the real time memory calls add to the modelled latency, more so on a loaded
    machine)."""
    data = json.loads((out / "table_data.json").read_text())
    for summaries in data.values():
        for s in summaries:
            s.pop("run")
            for k in [k for k in s if k.endswith("_s") or "seconds" in k]:
                s.pop(k)
    return data


def _tables_md(out: Path) -> str:
    """tables.md with the s/task cells (the only figures printed with two decimals) masked."""
    return re.sub(r"\b\d+\.\d\d\b", "<s>", (out / "tables.md").read_text())


def test_reused_run_dir_tabulates_and_resumes_like_a_real_run(rt, tmp_path, capsys):
    common = ["--tables", "table1", "tableB4", "--rows", "table1/mem0", "tableB4/mem0"]
    common += ["--benchmarks", "pibench_sim", "--seeds", "0"]
    reused, real = tmp_path / "reused", tmp_path / "real"
    # two workers, reuse on: table1/mem0 runs, tableB4/mem0 is materialised from it
    assert (
        rt.main(
            [*common, "--workers", "2", "--runs", str(reused / "runs"), "--out", str(reused / "t"), *TINY]
        )
        == 0
    )
    log = capsys.readouterr().out
    assert "2 runs in" in log and "(1 run, 1 reused from an identical run)" in log
    assert "tableB4/mem0 pibench_sim seed 0 (reused table1/mem0: identical config)" in log
    # one process, every row run
    assert (
        rt.main(
            [
                *common,
                "--workers",
                "1",
                "--no-reuse",
                "--runs",
                str(real / "runs"),
                "--out",
                str(real / "t"),
                *TINY,
            ]
        )
        == 0
    )
    assert "(2 run, 0 reused" in capsys.readouterr().out

    assert _tables_md(reused / "t") == _tables_md(real / "t")
    assert "Table B4" in (reused / "t" / "tables.md").read_text()
    assert _table_data(reused / "t") == _table_data(real / "t")

    b4 = Path("tableB4/mem0/pibench_sim/seed0")
    m_reused = json.loads((reused / "runs" / b4 / "manifest.json").read_text())
    m_real = json.loads((real / "runs" / b4 / "manifest.json").read_text())
    assert m_reused["reused_from"] == str(reused / "runs" / "table1/mem0/pibench_sim/seed0")
    assert "identical resolved config except the run's name" in m_reused["reused_because"]
    assert "reused_from" not in m_real
    # this row's own name and config hash, as a real run of it records them
    assert m_reused["experiment"] == m_real["experiment"] == "tableB4/mem0"
    assert m_reused["config_hash"] == m_real["config_hash"] == m_reused["policy"]["config_hash"]
    assert m_reused["config"] == m_real["config"] | {"out_dir": m_reused["config"]["out_dir"]}
    rows = [json.loads(line) for line in (reused / "runs" / b4 / "episodes.jsonl").read_text().splitlines()]
    assert rows and all(
        (r["experiment"], r["run"], r["config_hash"])
        == ("tableB4/mem0", "tableB4/mem0", m_real["config_hash"])
        for r in rows
    )
    summary = json.loads((reused / "runs" / b4 / "summary.json").read_text())
    assert (summary["experiment"], summary["config_hash"]) == ("tableB4/mem0", m_real["config_hash"])
    assert (reused / "runs" / b4 / "config.yaml").read_text() == (
        real / "runs" / b4 / "config.yaml"
    ).read_text().replace(str(real), str(reused))

    # resume: running the reused directory for real finds it complete (run_eval accepts its rows)
    before = (reused / "runs" / b4 / "episodes.jsonl").read_bytes()
    again = [
        "--workers",
        "1",
        "--no-reuse",
        "--runs",
        str(reused / "runs"),
        "--out",
        str(reused / "t2"),
        *TINY,
    ]
    assert rt.main([*common, *again]) == 0
    assert (reused / "runs" / b4 / "episodes.jsonl").read_bytes() == before
    # and reuse again leaves the complete directory as it is
    assert (
        rt.main(
            [*common, "--workers", "1", "--runs", str(reused / "runs"), "--out", str(reused / "t3"), *TINY]
        )
        == 0
    )
    assert "1 identical ones already complete" in capsys.readouterr().out
    assert (reused / "runs" / b4 / "episodes.jsonl").read_bytes() == before


def test_a_failing_run_in_a_worker_surfaces_with_its_name(rt, tmp_path, capsys):
    rc = rt.main(
        ["--tables", "table1", "--rows", "table1/none", "table1/mem0", "--benchmarks", "pibench_sim"]
        + ["--seeds", "0", "--workers", "2", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "t")]
        + [*TINY, "agent=scripted"]  # the scripted agent refuses a generated suite before any episode
    )
    err = capsys.readouterr().err
    assert rc == 1
    assert (
        "pibench_sim seed 0 failed: ConfigError" in err and "agent=scripted runs the real benchmarks" in err
    )


def _hold_workers(pid_file: str) -> None:
    """A stand-in for a `pulse reproduce` process: starts one worker, writes its pid, waits to be killed."""
    import time

    import eval.reproduce as rt

    workers = rt.Workers(1)
    Path(pid_file).write_text(str(workers.procs[0].pid))
    time.sleep(600)


def test_workers_stop_when_the_command_that_started_them_is_killed(tmp_path):
    # a killed command's workers must not go on running its queued runs on the cores the next job needs
    import multiprocessing as mp
    import os
    import signal
    import time

    pid_file = tmp_path / "worker.pid"
    parent = mp.get_context("spawn").Process(target=_hold_workers, args=(str(pid_file),))
    parent.start()
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    worker = int(pid_file.read_text())
    os.kill(parent.pid, signal.SIGKILL)
    parent.join()

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split()[2] != "Z"  # a zombie has exited
        except FileNotFoundError:
            return False

    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not alive(worker), "the worker outlived the command that started it"
