"""Every registered method config runs one episode on every registered benchmark (one persona,
`max_tasks=1`). Real benchmarks run with the offline scripted agent and are skipped without their data."""
from __future__ import annotations

from pathlib import Path

import pytest

from eval.harness import run_eval
from eval.metrics import read_rows
from eval.registry import BENCHMARKS, METHODS

CONF = Path(__file__).resolve().parents[2] / "configs"
METHOD_CONFIGS = sorted(p.stem for p in (CONF / "method").glob("*.yaml"))
BASELINES = [m for m in METHOD_CONFIGS if not m.startswith("pulse") and m != "none"]
SIM = {"pibench_sim": "researcher", "mcp_persona_sim": "mcp_user_01"}


def first_real_chain(benchmark: str) -> tuple[str, str]:
    """(data dir, first chain) of a real benchmark; skip without its data ($PULSE_DATA_DIR)."""
    import os

    from eval.config import BenchmarkConfig
    from pulse.core.errors import PulseUserError
    root = os.environ.get("PULSE_DATA_DIR", "")
    if not root:
        pytest.skip(f"{benchmark}: needs PULSE_DATA_DIR (README: Real benchmarks)")
    try:
        suite = BENCHMARKS.get(benchmark)(BenchmarkConfig(name=benchmark, data_dir=root))
    except (PulseUserError, FileNotFoundError) as e:
        pytest.skip(f"{benchmark}: {e}")
    return root, next(iter(suite.chains()))


def test_every_method_impl_is_registered_and_every_benchmark_is_covered():
    import yaml
    impls = {yaml.safe_load((CONF / "method" / f"{m}.yaml").read_text())["impl"] for m in METHOD_CONFIGS}
    assert impls <= set(METHODS.names()) and set(METHODS.names()) <= impls


@pytest.mark.parametrize("benchmark", sorted(BENCHMARKS.names()))
@pytest.mark.parametrize("method", BASELINES)
def test_every_baseline_runs_one_episode(method, benchmark, tmp_path, eval_cfg):
    # Pulse's own configs and `none` run on the offline suites in tests/eval/test_harness.py
    if benchmark not in SIM:  # a real benchmark: the offline scripted agent, its first chain
        root, chain = first_real_chain(benchmark)
        ov = ["agent=scripted", "agent.script=noop", f"benchmark.personas=[{chain}]", f"benchmark.data_dir={root}"]
    else:
        ov = [f"benchmark.personas=[{SIM[benchmark]}]"]
    out = run_eval(eval_cfg(tmp_path, method, benchmark, ["benchmark.max_tasks=1", *ov]))
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 1 and rows[0]["status"] == "ok", rows[0].get("error")
    r = rows[0]
    assert 0.0 <= r["score"] <= 1.0 and r["method"] == method
    assert r["memory_llm"].startswith("stand-in") and r["seed_llm_calls"] >= 0
