"""Benchmark the data generator: labeled prefixes per second on one CPU core (goal >= 1000/s).

Run: .venv/bin/python bench/bench_generator.py   (or `make bench`)
Writes bench/results/generator.json and prints it. Measures `generate_examples` on the default
config (personas, histories, derivation, tasks, prefixes, snapshots and labelling), best of
`REPEATS`, and separately the full `build_dataset` (rows, Arrow, save_to_disk, card).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from data_gen.build import build_dataset, generate_examples  # noqa: E402
from data_gen.card import GENERATOR_VERSION  # noqa: E402
from data_gen.config import GenDataConfig  # noqa: E402

REPEATS = 3
GOAL_PREFIXES_PER_S = 1000.0


def main() -> dict:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core, as the goal says
    import datasets

    datasets.disable_progress_bars()  # keep the printed JSON readable
    cfg = GenDataConfig()
    times, n = [], 0
    for _ in range(REPEATS):
        t = time.perf_counter()
        splits = generate_examples(cfg)
        times.append(time.perf_counter() - t)
        n = sum(len(v) for v in splits.values())
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        build_dataset(cfg, Path(d) / "ds")
        build_s = time.perf_counter() - t
    best = min(times)
    result = {
        "bench": "generator",
        "generator_version": GENERATOR_VERSION,
        "config": {
            "seed": cfg.seed,
            "n_users": cfg.n_users,
            "tasks_per_user": cfg.tasks_per_user,
            "prefixes_per_task": cfg.prefixes_per_task,
        },
        "labeled_prefixes": n,
        "generate_seconds_best": round(best, 3),
        "generate_seconds_all": [round(t, 3) for t in times],
        "labeled_prefixes_per_s": round(n / best, 1),
        "build_dataset_seconds": round(build_s, 3),
        "build_dataset_prefixes_per_s": round(n / build_s, 1),
        "goal_prefixes_per_s": GOAL_PREFIXES_PER_S,
        "meets_goal": n / best >= GOAL_PREFIXES_PER_S,
        "cores_used": 1,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "note": "shared 2-core CPU machine; other jobs may slow it",
    }
    out = ROOT / "bench" / "results" / "generator.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
