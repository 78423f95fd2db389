"""`mock`: a TEMPLATE for a new benchmark, not a result. Copy this folder to start one.

A minimal benchmark that runs end to end (`pulse eval benchmark=mock method=pulse_rule agent=scripted
agent.script=request_only`): one user, three flight-booking tasks in one chain, two tools, a scorer,
a seed history. Its runs are never tabulated (`eval.benchmark.TEMPLATE_BENCHMARKS`: `pulse tables`
leaves them out) and no figure anywhere comes from it.

The folder follows the one benchmark layout (docs/benchmarks.md "Adding a benchmark"): this file is the
front door, `load(cfg)` (eval/registry.py); `benchmark.py` holds the class implementing the protocol
of eval/benchmark.py; `env.py` the tools, `loader.py` the tasks, `seed_history.py` the user's past.
"""

from __future__ import annotations


def load(cfg):
    """The benchmark of `benchmark=mock` (`cfg`: the typed `benchmark` config node). The class module is
    imported on the call, so this folder's data modules load without it."""
    from eval.real.mock.benchmark import load as load_benchmark

    return load_benchmark(cfg)
