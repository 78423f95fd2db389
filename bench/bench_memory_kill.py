"""SIGKILL durability bench: kill a committing writer hundreds of times, count what survived.

    .venv/bin/python bench/bench_memory_kill.py            # 200 kills -> bench/results/memory_kill.json
    .venv/bin/python bench/bench_memory_kill.py --kills 50 --out /tmp/kill.json
The harness (what the child commits, what is checked) is bench/memory_kill_harness.py; the test
suite (tests/memory/test_memory_kill.py) runs the same harness with 20 kills. Exit status 1 if any
committed conversation was lost or any conversation was half-applied.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.memory_kill_harness import FACTS_PER_CONVERSATION, run_kills  # noqa: E402
from pulse.memory.wal_checkpoint import DEFAULT_SYNC  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument(
        "--max-delay-s", type=float, default=0.08, help="each kill lands uniform(0, this) s after start"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "memory_kill.json"))
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pulse-kill-") as tmp:
        report = run_kills(Path(tmp) / "root", a.kills, a.max_delay_s, a.seed)
    d = {
        **asdict(report),
        "ok": report.ok,
        "records_per_conversation": FACTS_PER_CONVERSATION,
        "store": "SQLite WAL, one BEGIN IMMEDIATE transaction per conversation",
        # the child opens the store with the default sync mode (pulse/memory/wal_checkpoint.py)
        "store_sync": DEFAULT_SYNC,
        "what": "child commits conversations (2 new facts + 1 revision) in a loop; SIGKILL after a random "
        "delay; then: every conversation reported done is present (lost = []), every present "
        "conversation has all its records and no record lacks its conversation (half_applied = []), "
        "revision chains consistent, PRAGMA integrity_check ok",
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(d, indent=1) + "\n")
    print(json.dumps(d, indent=1))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
