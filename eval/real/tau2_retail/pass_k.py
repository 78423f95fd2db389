"""τ²'s pass^k over seed runs: `python -m eval.real.tau2_retail.pass_k RUN_DIR [RUN_DIR ...]`.

Each run directory is one trial (one seed) of the same benchmark and method; a task succeeds in a
trial when its reward is 1 (`eval.metrics.pass_k_over_runs`). Prints pass^k for k = 1 .. trials.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.metrics import pass_k_over_runs, read_rows


def pass_k_table(run_dirs: list[str]) -> dict[str, float]:
    runs = [read_rows(Path(d) / "episodes.jsonl") for d in run_dirs]
    ids = [sorted(r["task_id"] for r in rows) for rows in runs]
    if any(i != ids[0] for i in ids):
        raise SystemExit("pass^k: the runs do not cover the same tasks")
    labels = {(r.get("benchmark"), r.get("method")) for rows in runs for r in rows}
    if len(labels) > 1:
        raise SystemExit(f"pass^k: the runs mix benchmarks/methods {sorted(map(str, labels))}")
    return {f"pass^{k}": pass_k_over_runs(runs, k) for k in range(1, len(runs) + 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dirs", nargs="+")
    print(json.dumps(pass_k_table(ap.parse_args(argv).run_dirs), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
