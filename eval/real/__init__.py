"""Real benchmarks (tau2_retail, pibench, persona2web), read at run time from the data directory, and
`mock`, the template a new benchmark is copied from (not a result).

Each benchmark is one folder in the one layout (docs/benchmarks.md "Adding a benchmark"): `__init__.py`
exports `load(cfg) -> Benchmark` (the protocol of eval/benchmark.py), `benchmark.py` holds the class.
The harness (eval/harness.py) runs them through the same method interface as the generated suites.
Data location: `benchmark.data_dir` or $PULSE_DATA_DIR (eval/real/data_dir.py).
"""
