"""Merge per-seed `pulse demo demo.seeds=[s] demo.publish=DIR_s` results into one (mean ± stderr):

    python scripts/merge_demo_seeds.py --out results/policy/runtime \
        --suite-decisions results/policy/suite_decisions.json results/policy/runtime_seeds/s{0,1,2}

`--suite-decisions FILE` also writes the headline file: per benchmark, per policy row, the mean,
stderr and per-seed values of decision_accuracy, interruption_success, interventions,
oracle_interventions (and the other suite decision keys), with the recipe's checks.
"""

from __future__ import annotations

import argparse

from eval.demo_report import merge_seed_results

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--suite-decisions", default="")
    ap.add_argument("--recipe", default="configs/experiment/cpu/tiny_runtime.yaml")
    a = ap.parse_args()
    m = merge_seed_results(a.folders, a.out)
    print(m["table"])
    print("checks:", m["checks"])
    if m.get("suite_decisions"):
        print("suite decision checks:", m["suite_decisions"]["checks"])
    if a.suite_decisions and m.get("suite_decisions"):
        from pulse.utils.atomic import atomic_write_json

        sd = m["suite_decisions"]
        per_bench = {}
        for row, per in sd["benchmarks"].items():
            for b, cell in per.items():
                per_bench.setdefault(b, {})[row] = {k: v for k, v in cell.items()}
        atomic_write_json(
            a.suite_decisions,
            {
                "recipe": a.recipe,
                "merged_from": list(a.folders),
                "seeds": sd["seeds"],
                "what": (
                    "every policy call of a run of each offline suite "
                    "(real PulseAgent + simulated task agent), "
                    "labelled by the gold rule on the input the run time built; "
                    "training seed s evaluated at seed s"
                ),
                "benchmarks": per_bench,
                "checks": sd["checks"],
                "table": sd["table"],
            },
        )
