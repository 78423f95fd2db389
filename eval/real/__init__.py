"""Real benchmarks (tau2_retail, pibench, persona2web), read at run time from the data directory.

Each benchmark is one module with a loader `load(cfg) -> Benchmark` (eval/benchmark.py protocols):
tasks in chain order, an environment per chain, a scorer and, where the benchmark has one, a user
simulator. The harness (eval/harness.py) runs them through the same method interface as the
generated suites. Data location: `benchmark.data_dir` or $PULSE_DATA_DIR (eval/real/data_dir.py).
"""
