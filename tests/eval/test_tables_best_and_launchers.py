"""Tables mark best / second best per column and name the memory backing; the sweep launchers compose;
the reproduction script runs a baseline row without any checkpoint."""

from __future__ import annotations

from pathlib import Path

from eval.tables import mark_best

ROOT = Path(__file__).resolve().parents[2]


def test_mark_best_bolds_the_best_and_underlines_the_second_per_column():
    rows = [["a", "50.0 ± 1.0", "10.0"], ["b", "70.0 ± 2.0", "30.0"], ["c", "60.0", "20.0"], ["d", "–", "–"]]
    mark_best(rows, {1: True, 2: False})
    assert [r[1] for r in rows] == ["50.0 ± 1.0", "**70.0 ± 2.0**", "_60.0_", "–"]
    assert [r[2] for r in rows] == ["**10.0**", "30.0", "_20.0_", "–"]


def test_multirun_launchers_compose():
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(str(ROOT / "configs"), version_base="1.3"):
        local = compose("eval", return_hydra_config=True)
        slurm = compose("eval", overrides=["hydra/launcher=slurm"], return_hydra_config=True)
    assert "joblib" in local.hydra.launcher._target_.lower() and local.hydra.launcher.n_jobs == -1
    assert "slurm" in slurm.hydra.launcher._target_.lower() and slurm.hydra.launcher.timeout_min == 60


def test_reproduce_script_runs_a_table_b4_baseline_row_and_labels_its_backing(tmp_path):
    import eval.reproduce as reproduce_tables

    rc = reproduce_tables.main(
        [
            "--tables",
            "tableB4",
            "--rows",
            "tableB4/mem0",
            "--seeds",
            "0",
            "--benchmarks",
            "pibench_sim",
            "--runs",
            str(tmp_path / "runs"),
            "--out",
            str(tmp_path / "t"),
            "benchmark.max_tasks=1",
            "benchmark.personas=[researcher]",
        ]
    )
    md = (tmp_path / "t" / "tables.md").read_text()
    assert rc == 0 and "Table B4" in md and "| mem0 (sim) [n=1] | stand-in (rules) |" in md
