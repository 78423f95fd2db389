"""Loaders of the generated suites: a config in, a validated suite behind the benchmark protocol out
(generated with its fixed seed, or loaded from a suite file; eval/suites/benchmark.py)."""

from __future__ import annotations

from eval.suites.benchmark import SuiteBenchmark, finish
from eval.suites.schema import load_suite


def load_pibench_sim(cfg) -> SuiteBenchmark:
    from eval.suites import pibench_sim

    return finish(load_suite(cfg.path) if cfg.path else pibench_sim.generate(cfg.seed), cfg, pibench_sim.NAME)


def load_mcp_persona_sim(cfg) -> SuiteBenchmark:
    from eval.suites import mcp_persona_sim

    return finish(
        load_suite(cfg.path) if cfg.path else mcp_persona_sim.generate(cfg.seed), cfg, mcp_persona_sim.NAME
    )
