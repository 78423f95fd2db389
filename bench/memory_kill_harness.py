"""SIGKILL durability harness: kill a writer mid-commit, then prove no conversation was lost or torn.

    .venv/bin/python bench/memory_kill_harness.py --root /tmp/kill --kills 200 --out /tmp/memory_kill.json
    .venv/bin/python -m bench.memory_kill_harness --root /tmp/kill --kills 200   # same, from the repo root
(`bench/bench_memory_kill.py` runs it into a temporary root and writes bench/results/memory_kill.json.)

A child process commits conversations in a loop as fast as it can (each one: two new facts and a
revision of the previous conversation's fact, i.e. inserts plus a validity end, plus vectors and the
conversation row), printing "begin <id>" before and "done <id>" after each commit. The parent kills
it with SIGKILL after a random delay, then reopens the store and checks:
- every conversation the child reported "done" is present with all its records (none lost);
- every present conversation has exactly its recorded number of records, and no record belongs to
  an absent conversation (none half-applied);
- each revision chain is consistent: exactly one current record per chain, every superseded record
  ends exactly when its successor starts; and SQLite's integrity_check passes.
`run_kills` is shared by the test suite (tens of kills, tests/memory/test_memory_kill.py) and the
bench (hundreds). A test harness, so it lives beside the benches, not in the library; the child is
this file run as a script.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script (the child is): the repository's packages import
    sys.path.insert(0, str(REPO))

FACTS_PER_CONVERSATION = 3
_WORDS = (
    "alpine apricot basil canyon cedar cobalt dune ember fjord garnet harbor indigo juniper kelp lagoon "
    "maple nectar onyx prairie quartz raven saffron tundra umber velvet willow yarrow zephyr"
).split()


def child(root: str, tag: str) -> None:
    """The victim: commit conversations forever (until killed)."""
    from pulse.core.records import Event, MemoryItem, Provenance
    from pulse.memory.factory import open_memory
    from pulse.memory.interface import WriteCandidate

    mem = open_memory("structured", root, "hash", auto_create_scopes=True)
    base = 1_700_000_000
    print("ready", flush=True)
    i = 0
    while True:
        cid = f"{tag}-{i}"
        t = time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(base + i * 60 + int(tag.split("k")[-1] or 0) * 10**6)
        )
        conv = mem.conversation("victim", "proj", cid, extract=False)
        # distinct words per fact, so no candidate merges as a near-duplicate: every commit writes 3 records
        rng = random.Random(cid)
        texts = [" ".join(rng.choice(_WORDS) for _ in range(6)) + f" ({cid}/{j})" for j in range(3)]
        ev = Event("message", 0, time=t, text=" ".join(texts), role="user", event_id=f"{cid}-e")
        conv.observe(ev)
        for j, text in enumerate(texts):
            slot = f"{tag}-chain" if j == 2 else ""  # the third fact revises the tag's chain each time
            conv.add_candidate(
                WriteCandidate(
                    MemoryItem(
                        f"{cid}-f{j}",
                        "preference",
                        "user:victim",
                        text,
                        slot=slot,
                        value=cid if slot else "",
                        topic="kill",
                        provenance=Provenance("user_statement", ev.event_id, text),
                    ),
                    source_event=ev,
                )
            )
        print(f"begin {cid}", flush=True)
        conv.commit()
        print(f"done {cid}", flush=True)
        i += 1


@dataclass
class KillReport:
    kills: int = 0
    killed_mid_commit: int = 0  # last line was "begin" without "done"
    conversations_committed: int = 0  # reported "done" by the child, across all rounds
    conversations_in_store: int = 0
    # committed, but killed before the child could print "done": kills landing after COMMIT
    committed_unreported: int = 0
    lost: list[str] = field(default_factory=list)
    half_applied: list[str] = field(default_factory=list)
    chain_errors: list[str] = field(default_factory=list)
    integrity: str = ""
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.lost or self.half_applied or self.chain_errors) and self.integrity == "ok"


def _one_round(root: Path, tag: str, max_delay_s: float, rng: random.Random) -> tuple[set[str], bool]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--root", str(root), "--tag", tag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    if first.strip() != "ready":
        proc.kill()
        raise RuntimeError(
            f"durability child failed to start: {first!r} {proc.stderr.read() if proc.stderr else ''}"
        )
    time.sleep(rng.uniform(0.0, max_delay_s))
    os.kill(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate()
    lines = out.splitlines()
    done = {ln.split(" ", 1)[1] for ln in lines if ln.startswith("done ")}
    mid = bool(lines) and lines[-1].startswith("begin ")
    return done, mid


def verify(root: Path, reported_done: set[str], report: KillReport) -> None:
    import sqlite3

    db = sqlite3.connect(root / "memory.sqlite")
    report.integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    convs = dict(db.execute("SELECT conversation_id, n_items FROM conversations").fetchall())
    counts = dict(
        db.execute(
            "SELECT conversation_id, COUNT(*) FROM items WHERE conversation_id != '' GROUP BY conversation_id"
        ).fetchall()
    )
    report.conversations_in_store = len(convs)
    report.committed_unreported = len(set(convs) - reported_done)
    report.lost = sorted(c for c in reported_done if c not in convs)
    report.half_applied = sorted(
        {c for c, n in convs.items() if counts.get(c, 0) != n or n != FACTS_PER_CONVERSATION}
        | {c for c in counts if c not in convs}
    )
    rows = db.execute(
        "SELECT item_id, slot, valid_from, valid_to, supersedes FROM items WHERE slot != ''"
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    current: dict[str, int] = {}
    for item_id, slot, vf, vt, sup in rows:
        if not vt:
            current[slot] = current.get(slot, 0) + 1
        if sup:
            prev = by_id.get(sup)
            if prev is None or prev[3] != vf:
                report.chain_errors.append(
                    f"{item_id} supersedes {sup} but its validity does not end at {vf}"
                )
    report.chain_errors += [f"chain {s} has {n} current records" for s, n in current.items() if n != 1]
    db.close()


def run_kills(root: Path, kills: int, max_delay_s: float = 0.08, seed: int = 0) -> KillReport:
    rng = random.Random(seed)
    report = KillReport()
    t0 = time.perf_counter()
    done: set[str] = set()
    for k in range(kills):
        got, mid = _one_round(root, f"k{k}", max_delay_s, rng)
        done |= got
        report.kills += 1
        report.killed_mid_commit += int(mid)
    report.conversations_committed = len(done)
    verify(root, done, report)
    report.wall_s = round(time.perf_counter() - t0, 2)
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", required=True)
    p.add_argument("--kills", type=int, default=200)
    p.add_argument("--max-delay-s", type=float, default=0.08, help="kill after uniform(0, this) seconds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--tag", default="k0", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        child(a.root, a.tag)
        return 0
    report = run_kills(Path(a.root), a.kills, a.max_delay_s, a.seed)
    d = {**asdict(report), "ok": report.ok}
    print(json.dumps(d, indent=1))
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(d, indent=1) + "\n")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
