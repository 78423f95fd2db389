"""`pulse suite-shape` (= `python -m pulse.cli.suite_shape`): what a suite holds, counted
(eval/suites/shape.py), configs/suite_shape.yaml.

    pulse suite-shape                                    # independent_sim, seed 0
    pulse suite-shape suite=pibench_sim seed=1
    pulse suite-shape path=my_suite.json out=shape.json  # any suite file, + JSON
"""

from __future__ import annotations

from pulse.cli.support import hydra_entry


def _run(cfg) -> dict:
    from eval.suites.shape import SuiteShapeConfig, run
    from pulse.config.schema import to_typed

    return run(to_typed(cfg, SuiteShapeConfig))


main = hydra_entry("suite-shape", _run)

if __name__ == "__main__":
    main()
