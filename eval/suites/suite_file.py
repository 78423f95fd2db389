"""`suite_file`: any valid suite JSON (eval/suites/schema.py) run as a benchmark under the file's own
`name` and `version` (rows, manifest and summary carry them, so `pulse tables` keeps it apart from
every other suite):

    pulse eval benchmark=suite_file benchmark.path=my_suite.json method=pulse

The file is validated at load (errors name file, task and key). Its name may not be a registered
benchmark's (`pibench_sim`, `independent_sim`, ...): rows labelled with a generated suite's name
would be tabulated with that suite's runs. `benchmark=<generated suite> benchmark.path=FILE` stays
what it was: a file that carries that suite's name (a saved copy of the generated suite, or a variant
such as re-weighted checkpoints) run under that name.
"""

from __future__ import annotations

NAME = "suite_file"


def load(cfg):
    """The benchmark loader (eval/registry.py)."""
    from eval.registry import BENCHMARKS
    from eval.suites.benchmark import finish
    from eval.suites.schema import SuiteError, load_suite
    from pulse.config.schema import ConfigError

    if not cfg.path:
        raise ConfigError(
            "benchmark.path: benchmark=suite_file needs the suite JSON to run "
            "(benchmark.path=FILE; the file's own name and version label the run)"
        )
    suite = load_suite(cfg.path)
    if suite.name in BENCHMARKS.names() or suite.name == NAME:
        raise SuiteError(
            f"{cfg.path}: key 'name': {suite.name!r} is a registered benchmark's name; give the suite "
            f"its own name (or run it as benchmark={suite.name} benchmark.path=...)"
        )
    return finish(suite, cfg, None)
