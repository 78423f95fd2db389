"""Persona2Web's 450 tasks, read at run time from <data_dir>/persona2web (no licence: never copied here).

The folder follows the one benchmark layout (docs/benchmarks.md "Adding a benchmark"): this file is the
front door, `load(cfg)` (eval/registry.py); `benchmark.py` holds the class implementing the protocol
of eval/benchmark.py; the README says what each file holds.
"""

from __future__ import annotations


def load(cfg):
    """The benchmark of `benchmark=persona2web` (`cfg`: the typed `benchmark` config node). The class
    module is imported on the call, so this folder's data modules load without it."""
    from eval.real.persona2web.benchmark import load as load_benchmark

    return load_benchmark(cfg)
