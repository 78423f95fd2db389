"""Merge per-seed `pulse demo demo.seeds=[s] demo.publish=DIR_s` results into one (mean ± stderr):

    python scripts/merge_demo_seeds.py --out results/policy results/policy/runtime_seeds/s0 \
        results/policy/runtime_seeds/s1 results/policy/runtime_seeds/s2
"""
from __future__ import annotations

import argparse

from pulse.demo import merge_seed_results

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    m = merge_seed_results(a.folders, a.out)
    print(m["table"])
    print("checks:", m["checks"])
    if m.get("suite_decisions"):
        print("suite decision checks:", m["suite_decisions"]["checks"])
