"""τ²-bench retail, in process (MIT; see NOTICE in this folder).

The folder follows the one benchmark layout (docs/benchmarks.md "Adding a benchmark"): this file is the
front door, `load(cfg)` (eval/registry.py); `benchmark.py` holds the class implementing the protocol
of eval/benchmark.py; the README says what each file holds.
"""

from __future__ import annotations


def load(cfg):
    """The benchmark of `benchmark=tau2_retail` (`cfg`: the typed `benchmark` config node). The class
    module is imported on the call, so this folder's data modules load without it."""
    from eval.real.tau2_retail.benchmark import load as load_benchmark

    return load_benchmark(cfg)
