"""Retrieval returns exactly what it returned before the speed work (ids, scores, reasons).

`data/retrieval_golden.json` was written by this file's `--write` mode on the code before the
compaction / retrieval-speed changes of issue 19 (part 4), and is compared exactly: a change in
which items are selected, their order, their scores (as `ScoredItem` rounds them) or their reasons
(compared by digest) fails. The worlds run in a subprocess with PYTHONHASHSEED=0: which entities a
reason names follows set iteration order, which string hashing changes from process to process.
Each world is queried in four states: a fresh index, base + appended
tail, after a compaction plus a new tail, and reopened from the store. Compaction runs to
completion at the commit that crosses the threshold here (step budget unlimited), which is the
layout the synchronous compaction of the old code produced, so results must match bit for bit.

    .venv/bin/python tests/memory/test_retrieval_golden.py --write   # only for an intended change
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path

import pytest
from memory_helpers import run_golden_world

from pulse.core.records import Event, MemoryItem, Provenance
from pulse.memory import ItemMeta, RetrievalQuery, make_embedder, open_memory, scope_index

GOLDEN = Path(__file__).resolve().parent / "data" / "retrieval_golden.json"
WORLDS = [("structured", "hash"), ("structured", "bm25"), ("flat", "hash")]
TOPICS = [
    "coding",
    "coding/python",
    "coding/python/tests",
    "writing",
    "writing/papers",
    "travel",
    "food/baking",
    "music/jazz",
    "fitness",
    "fitness/running",
]
ENTITIES = [
    "Zotero",
    "Overleaf",
    "Lisbon",
    "PyTorch",
    "Notion",
    "Obsidian",
    "Kyoto",
    "Figma",
    "Strava",
    "Miles Davis",
]
SLOTS = [
    "citation_style",
    "editor",
    "city",
    "framework",
    "notes_app",
    "font",
    "diet",
    "airline",
    "shoe",
    "album",
]
WORDS = (
    "alpha beta gamma delta ember fjord garnet harbor indigo juniper kelp lagoon maple nectar onyx "
    "python papers baking running jazz tests travel writing"
).split()
COMPACT_AT = 150  # COMPACT_MIN_TAIL for these worlds (COMPACT_FRACTION 0)


def _item(rng: random.Random, i: int, when: str, current: dict[str, str]) -> tuple[MemoryItem, ItemMeta]:
    topic, ent = rng.choice(TOPICS), rng.choice(ENTITIES)
    slot = f"{rng.choice(SLOTS)}_{i % 4}" if rng.random() < 0.5 else ""
    text = f"{' '.join(rng.choice(WORDS) for _ in range(6))} about {topic.split('/')[-1]} with {ent} ({i})"
    links = (rng.choice(TOPICS),) if rng.random() < 0.15 else ()
    task = f"task-{i % 3}" if rng.random() < 0.1 else ""
    kind = "project_state" if i % 9 == 4 else "preference"
    scope = "project:p1" if kind == "project_state" else "user:u1"
    ents = (ent, f"tool:{rng.choice(['save', 'book', 'search'])}") if kind == "project_state" else (ent,)
    sup = current.get(slot, "") if slot and not task and rng.random() < 0.6 else ""
    if sup and (current.get(f"{slot}#scope") != scope):
        sup = ""
    item = MemoryItem(
        f"i{i}",
        kind,
        scope,
        text,
        slot=slot,
        value=rng.choice(WORDS) if slot else "",
        topic=topic,
        entities=ents,
        provenance=Provenance("history"),
        valid_from=when,
        supersedes=sup,
    )
    if slot and not task:
        current[slot], current[f"{slot}#scope"] = item.item_id, scope
    return item, ItemMeta(links=links, task_id=task)


def _batch(rng: random.Random, start: int, size: int, when: str, current: dict[str, str]):
    pairs = [_item(rng, i, when, current) for i in range(start, start + size)]
    return [p[0] for p in pairs], {p[0].item_id: p[1] for p in pairs}


def _queries(seed: int, n: int = 24) -> list[RetrievalQuery]:
    rng = random.Random(seed)
    out = []
    for j in range(n):
        call = Event(
            "candidate_call",
            3,
            tool=rng.choice(["save", "book", "search"]),
            event_id=f"c{j}",
            args={f"{rng.choice(SLOTS)}_{j % 4}": rng.choice(WORDS)},
        )
        out.append(
            RetrievalQuery(
                "u1",
                "p1" if j % 2 else "",
                subgoal=f"{rng.choice(WORDS)} {rng.choice(TOPICS).split('/')[-1]} {rng.choice(ENTITIES)}",
                entities=(rng.choice(ENTITIES),) if j % 3 else (),
                candidate_call=call if j % 4 != 1 else None,
                k=6,
                task_id="task-1" if j % 5 == 0 else "",
                as_of="2025-03-15T00:00:00Z" if j % 6 == 0 else "",
                delivered=(f"i{(7 * j) % 400}", f"i{(11 * j) % 400}") if j % 7 == 3 else (),
            )
        )
    return out


def _answers(mem, queries) -> list[dict]:
    out = []
    for q in queries:
        got = mem.retrieve(q)
        out.append(
            {
                "items": [[s.item.item_id, s.score] for s in got],
                "reasons_sha1": hashlib.sha1("\n".join(s.reason for s in got).encode()).hexdigest(),
            }
        )
    return out


def run_world(kind: str, embedder: str, root: Path) -> dict[str, list[dict]]:
    """The four states of one world; compaction thresholds set by the caller."""
    rng = random.Random(f"{kind}/{embedder}")
    current: dict[str, str] = {}
    queries = _queries(5)
    mem = open_memory(kind, root, make_embedder(embedder))
    items, metas = _batch(rng, 0, 400, "2025-01-01T00:00:00Z", current)
    mem.add_items(items, metas)
    res = {"fresh": _answers(mem, queries)}
    nxt = 400
    for b in range(3):  # 90 tail items (below COMPACT_AT)
        items, metas = _batch(rng, nxt, 30, f"2025-02-{1 + 7 * b:02d}T00:00:00Z", current)
        mem.add_items(items, metas)
        nxt += 30
    res["tail"] = _answers(mem, queries)
    for b in range(5):  # the tail passes COMPACT_AT at the 3rd batch (compaction), then 60 new tail items
        items, metas = _batch(rng, nxt, 30, f"2025-03-{1 + 5 * b:02d}T00:00:00Z", current)
        mem.add_items(items, metas)
        nxt += 30
    res["compacted"] = _answers(mem, queries)
    mem.close()
    again = open_memory(kind, root, make_embedder(embedder))
    res["reopened"] = _answers(again, queries)
    again.close()
    return res


def _set_thresholds(setter) -> None:
    setter(scope_index, "COMPACT_MIN_TAIL", COMPACT_AT)
    setter(scope_index, "COMPACT_FRACTION", 0.0)
    if hasattr(scope_index, "COMPACT_STEP_S"):  # compaction completes in the crossing commit, as before
        setter(scope_index, "COMPACT_STEP_S", None)


def _run_in_subprocess(kind: str, embedder: str) -> dict[str, list[dict]]:
    return run_golden_world(__file__, kind, embedder)


@pytest.mark.parametrize("kind,embedder", WORLDS)
def test_retrieval_matches_the_golden_results(kind, embedder):
    want = json.loads(GOLDEN.read_text())[f"{kind}/{embedder}"]
    got = _run_in_subprocess(kind, embedder)
    for state in ("fresh", "tail", "compacted", "reopened"):
        for j, (g, w) in enumerate(zip(got[state], want[state], strict=True)):
            assert g["items"] == w["items"], f"{kind}/{embedder} {state} query {j}: items changed"
            assert g["reasons_sha1"] == w["reasons_sha1"], (
                f"{kind}/{embedder} {state} query {j}: reasons changed"
            )


def _print(kind: str, embedder: str) -> None:
    _set_thresholds(setattr)
    with tempfile.TemporaryDirectory() as d:
        print(json.dumps(run_world(kind, embedder, Path(d) / "mem")))


def _write() -> None:
    out = {f"{kind}/{embedder}": _run_in_subprocess(kind, embedder) for kind, embedder in WORLDS}
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    tmp = GOLDEN.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    tmp.replace(GOLDEN)
    print(f"wrote {GOLDEN} using pulse from {Path(scope_index.__file__).parent}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--print"] and len(sys.argv) == 4:
        _print(sys.argv[2], sys.argv[3])
    elif sys.argv[1:] == ["--write"]:
        _write()
    else:
        sys.exit("usage: test_retrieval_golden.py --write | --print KIND EMBEDDER")
