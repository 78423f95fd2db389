"""Every registered method (one config per implementation) runs one episode on every registered
benchmark (its first persona chain, `max_tasks=1`). The offline suites run every method *config* in
tests/eval/test_harness.py; here the real benchmarks run with the offline scripted agent (`noop`:
the memory still gets the request and builds its chain) and are skipped without their data."""

from __future__ import annotations

from pathlib import Path

import pytest
from method_configs import method_configs

from eval.harness import run_eval
from eval.metrics import read_rows
from eval.registry import BENCHMARKS, METHODS

CONF = Path(__file__).resolve().parents[2] / "configs"
CONFIGS = method_configs()  # composed: a variant states only what differs from its base
# one config per registered implementation (Pulse's own: the rule policy, which needs no checkpoint)
ONE_PER_IMPL = sorted(
    {
        "pulse": "pulse_rule",
        **{c["impl"]: n for n, c in CONFIGS.items() if n == c["impl"] != "pulse"},
    }.values()
)
SIM = ("pibench_sim", "mcp_persona_sim", "independent_sim")  # every config runs there in test_harness.py


def test_every_registered_method_has_a_config_here():
    impls = {CONFIGS[n]["impl"] for n in ONE_PER_IMPL}
    assert impls == set(METHODS.names())
    assert set(SIM) <= set(BENCHMARKS.names())


def first_real_chain(benchmark: str) -> tuple[str, str]:
    """(data dir, first chain) of a real benchmark; skip without its data ($PULSE_DATA_DIR)."""
    import os

    from eval.config import BenchmarkConfig
    from pulse.core.errors import PulseUserError

    root = os.environ.get("PULSE_DATA_DIR", "")
    if not root:
        pytest.skip(f"{benchmark}: needs PULSE_DATA_DIR (docs/benchmarks.md: Real benchmarks)")
    try:
        suite = BENCHMARKS.get(benchmark)(BenchmarkConfig(name=benchmark, data_dir=root))
    except (PulseUserError, FileNotFoundError) as e:
        pytest.skip(f"{benchmark}: {e}")
    return root, next(iter(suite.chains()))


# suite_file (any suite JSON under its own name) runs end to end in tests/eval/suites/test_suite_file.py,
# the template `mock` (no data folder) in tests/eval/real/test_mock.py
@pytest.mark.parametrize("benchmark", sorted(set(BENCHMARKS.names()) - set(SIM) - {"suite_file", "mock"}))
@pytest.mark.parametrize("method", ONE_PER_IMPL)
def test_every_method_runs_one_episode_on_every_real_benchmark(method, benchmark, tmp_path, eval_cfg):
    root, chain = first_real_chain(benchmark)
    ov = [
        "agent=scripted",
        "agent.script=noop",
        f"benchmark.personas=[{chain}]",
        f"benchmark.data_dir={root}",
        "benchmark.max_tasks=1",
    ]
    if method == "gold_facts":  # the generated suites' upper bound: refused before any episode
        from pulse.config.schema import ConfigError

        with pytest.raises(ConfigError, match="gold_facts"):
            run_eval(eval_cfg(tmp_path, method, benchmark, ov))
        return
    out = run_eval(eval_cfg(tmp_path, method, benchmark, ov))
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 1 and rows[0]["status"] == "ok", rows[0].get("error")
    assert rows[0]["method"] == method
    if CONFIGS[method]["impl"] not in ("pulse", "none"):
        assert rows[0]["memory_llm"].startswith("stand-in")
