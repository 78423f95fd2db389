"""Benchmark loaders: a config in, a validated `Suite` out (generated with its fixed seed, or
loaded from a suite file). Scoring is shared: `eval.envs.check_task` + `task_score`."""
from __future__ import annotations

from dataclasses import replace

from eval.suites.schema import Suite, SuiteError, load_suite


def _finish(suite: Suite, cfg, name: str) -> Suite:
    if suite.name != name:
        raise SuiteError(f"benchmark.path {cfg.path}: suite name {suite.name!r} is not {name!r}")
    tasks = suite.tasks
    if cfg.personas:
        unknown = set(cfg.personas) - {p.user_id for p in suite.personas}
        if unknown:
            raise SuiteError(f"benchmark.personas: {sorted(unknown)} not in suite {name}")
        tasks = tuple(t for t in tasks if t.user_id in cfg.personas)
    if cfg.max_tasks > 0:
        kept, count = [], {}
        for t in tasks:
            count[t.user_id] = count.get(t.user_id, 0) + 1
            if count[t.user_id] <= cfg.max_tasks:
                kept.append(t)
        tasks = tuple(kept)
    return replace(suite, tasks=tasks)


def load_pibench_sim(cfg) -> Suite:
    from eval.suites import pibench_sim
    suite = load_suite(cfg.path) if cfg.path else pibench_sim.generate(cfg.seed)
    return _finish(suite, cfg, pibench_sim.NAME)


def load_mcp_persona_sim(cfg) -> Suite:
    from eval.suites import mcp_persona_sim
    suite = load_suite(cfg.path) if cfg.path else mcp_persona_sim.generate(cfg.seed)
    return _finish(suite, cfg, mcp_persona_sim.NAME)
