"""Conversation writes store exactly what they stored before the write path was restructured.

`data/write_path_golden.json` was written by this file's `--write` mode on the code before issue 20
(memory part) turned the memory.py <-> writer.py circle into one direction. Each world writes a
fixed series of conversations into a fresh store: extracted user statements, slot revisions in
later conversations, explicit `supersedes`, a task-scoped choice, project decisions and tool
receipts (progress, artifact versions, a workflow), repeats that merge, a revision older than what
it revises (rejected), near-duplicate sentences (dense embedder), bulk `add_items` and an operator
`revise`. Compared exactly: each conversation's committed / merged / rejected outcome, the
`export_snapshot` JSON of every user and project (all versions, now and at an earlier `as_of`), the
store's conversation rows, topics and entities, and retrieval results (ids, scores, reasons by
digest). Runs in a subprocess with PYTHONHASHSEED=0 (a reason names entities in set order).

    .venv/bin/python tests/memory/test_write_path_golden.py --write   # only for an intended change
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pytest
from memory_helpers import run_golden_world

from pulse.core.records import Event, MemoryItem, Provenance
from pulse.memory import (
    ItemMeta,
    RetrievalQuery,
    WriteCandidate,
    export_snapshot,
    make_embedder,
    open_memory,
)

GOLDEN = Path(__file__).resolve().parent / "data" / "write_path_golden.json"
WORLDS = [("structured", "hash"), ("structured", "bm25"), ("flat", "hash")]


class _Clock:
    def __init__(self) -> None:
        self.now = "2025-01-01T00:00:00Z"

    def __call__(self) -> str:
        return self.now


def _msg(eid: str, text: str, time: str, step: int = 0, **args: str) -> Event:
    return Event("message", step, time=time, text=text, role="user", event_id=eid, args=dict(args))


def _tool(eid: str, tool: str, text: str, time: str, step: int, **args: str) -> Event:
    return Event("tool_result", step, time=time, text=text, tool=tool, event_id=eid, args=dict(args))


def _call(eid: str, tool: str, time: str, step: int, **args: str) -> Event:
    return Event("candidate_call", step, time=time, tool=tool, event_id=eid, args=dict(args))


def _outcome(conv) -> dict:
    return {
        "committed": [i.to_dict() for i in conv.committed],
        "merged": [[c.item.item_id, target] for c, target in conv.merged],
        "rejected": [[c.item.item_id, reason] for c, reason in conv.rejected],
    }


def _conversations(day: int) -> list[tuple[str, str, str, list[Event], list[WriteCandidate]]]:
    """(user, project, conversation id, events, explicit candidates) of one day's conversations."""
    t = f"2025-02-{day:02d}T10:00:00Z"
    t2 = f"2025-02-{day:02d}T10:05:00Z"
    out = []
    # a user statement with a slot; later days revise it (another value) or repeat it (merge)
    drink = ["green tea", "green tea", "black coffee", "black coffee", "oolong"][day % 5]
    out.append(
        (
            "u1",
            "",
            f"d{day}-drink",
            [_msg(f"d{day}-e1", f"Hello. My preferred drink is {drink}. I always want window seats.", t)],
            [],
        )
    )
    # project work: a decision, a pending item, tool receipts (progress, an artifact version, a workflow)
    out.append(
        (
            "u1",
            "p1",
            f"d{day}-proj",
            [
                Event("request", 0, time=t, text="Build and save the report", event_id=f"d{day}-rq"),
                _msg(f"d{day}-p1", f"Let's go with the {['blue', 'red', 'blue'][day % 3]} theme.", t),
                _msg(f"d{day}-p2", "We still need to write the changelog.", t, step=1),
                _call(f"d{day}-c1", "search_docs", t2, 2, query="theme"),
                _tool(f"d{day}-r1", "search_docs", "found doc-7", t2, 3, status="ok", doc="doc-7"),
                _call(f"d{day}-c2", "save_file", t2, 4, name="report.md", source="doc-7"),
                _tool(
                    f"d{day}-r2",
                    "save_file",
                    f"saved report.md version {day}",
                    t2,
                    5,
                    status="ok",
                    name="report.md",
                    version=str(day),
                ),
            ],
            [],
        )
    )
    # a temporary (task-scoped) choice and a habit from a second user
    out.append(
        (
            "u2",
            "p1",
            f"d{day}-u2",
            [
                _msg(
                    f"d{day}-u2e",
                    "This time I want a short summary. I usually work late. I prefer dark mode.",
                    t,
                    length="short",
                )
            ],
            [],
        )
    )
    # explicit candidates: a near-duplicate sentence (merged by a dense embedder), an explicit revision
    ev = _msg(
        f"d{day}-x",
        f"I prefer concise answers. I really prefer concise answers. My preferred editor is vim{day}.",
        t2,
    )
    cands = [
        WriteCandidate(
            MemoryItem(
                f"d{day}-concise",
                "preference",
                "user:u1",
                "I really prefer concise answers.",
                topic="writing/style",
                provenance=Provenance("user_statement", ev.event_id, "I really prefer concise answers."),
            ),
            source_event=ev,
            links=("coding",) if day % 2 else (),
        )
    ]
    if day > 1:
        cands.append(
            WriteCandidate(
                MemoryItem(
                    f"d{day}-editor",
                    "preference",
                    "user:u1",
                    f"My preferred editor is vim{day}.",
                    slot="editor",
                    value=f"vim{day}",
                    supersedes=f"d{day - 1}-editor",
                    provenance=Provenance("user_statement", ev.event_id, f"My preferred editor is vim{day}."),
                ),
                source_event=ev,
            )
        )
    else:
        cands.append(
            WriteCandidate(
                MemoryItem(
                    f"d{day}-editor",
                    "preference",
                    "user:u1",
                    f"My preferred editor is vim{day}.",
                    slot="editor",
                    value=f"vim{day}",
                    entities=("Vim",),
                    provenance=Provenance("user_statement", ev.event_id, f"My preferred editor is vim{day}."),
                ),
                source_event=ev,
            )
        )
    out.append(("u1", "", f"d{day}-explicit", [ev], cands))
    # a revision dated before what it revises: rejected
    old = _msg(f"d{day}-old", "My preferred drink is water.", "2024-01-01T00:00:00Z")
    out.append(("u1", "", f"d{day}-stale", [old], []))
    return out


def _queries() -> list[RetrievalQuery]:
    call = Event("candidate_call", 3, tool="order", event_id="q", args={"drink": "espresso"})
    return [
        RetrievalQuery("u1", subgoal="order a drink", candidate_call=call, k=6),
        RetrievalQuery("u1", "p1", subgoal="save the report file theme", k=8),
        RetrievalQuery("u1", "p1", subgoal="which editor", entities=("Vim",), k=5),
        RetrievalQuery("u2", "p1", subgoal="summary length dark mode", k=6, task_id="d3-u2"),
        RetrievalQuery("u2", "p1", subgoal="summary length dark mode", k=6),
        RetrievalQuery("u1", subgoal="drink", as_of="2025-02-02T12:00:00Z", k=4),
        RetrievalQuery("u1", "p1", subgoal="concise answers", k=4, delivered=("d1-concise",)),
    ]


def _answers(mem) -> list[dict]:
    out = []
    for q in _queries():
        got = mem.retrieve(q)
        out.append(
            {
                "items": [[s.item.item_id, s.score] for s in got],
                "reasons_sha1": hashlib.sha1("\n".join(s.reason for s in got).encode()).hexdigest(),
            }
        )
    return out


def run_world(kind: str, embedder: str, root: Path) -> dict:
    clock = _Clock()
    mem = open_memory(kind, root, make_embedder(embedder), clock=clock, auto_create_scopes=True)
    res: dict = {"conversations": {}}
    mem.add_items(
        [
            MemoryItem(
                "h-seat",
                "preference",
                "user:u1",
                "I prefer aisle seats.",
                slot="seat",
                value="aisle",
                topic="travel",
                entities=("Lisbon",),
                provenance=Provenance("history"),
                valid_from="2024-06-01T00:00:00Z",
            ),
            MemoryItem(
                "h-plan",
                "project_state",
                "project:p1",
                "The plan is approved.",
                slot="plan",
                value="approved",
                provenance=Provenance("history"),
                valid_from="2024-06-01T00:00:00Z",
            ),
        ],
        {"h-seat": ItemMeta(links=("food/baking",))},
    )
    for day in range(1, 6):
        clock.now = f"2025-02-{day:02d}T12:00:00Z"
        for user, project, cid, events, cands in _conversations(day):
            with mem.conversation(user, project, cid) as conv:
                for ev in events:
                    conv.observe(ev)
                for c in cands:
                    conv.add_candidate(c)
            res["conversations"][cid] = _outcome(conv)
        if day == 3:
            new = mem.revise(
                "h-seat",
                MemoryItem(
                    "h-seat-2",
                    "preference",
                    "user:u1",
                    "I prefer window seats now.",
                    slot="seat",
                    value="window",
                    provenance=Provenance("history"),
                ),
            )
            res["revised"] = new.to_dict()
    res["snapshots"] = {
        f"{u}/{p}/{as_of}": export_snapshot(mem, u, p, as_of).to_dict()
        for u in ("u1", "u2")
        for p in ("", "p1")
        for as_of in ("", "2025-02-03T11:00:00Z")
    }
    res["conversation_rows"] = sorted(list(r) for r in mem.store.conversations())
    res["topics"] = {s: mem.store.topics(s) for s in ("user:u1", "user:u2", "project:p1")}
    res["entities"] = {s: mem.store.entities(s) for s in ("user:u1", "user:u2", "project:p1")}
    res["retrieval"] = _answers(mem)
    mem.close()
    again = open_memory(kind, root, make_embedder(embedder))
    res["retrieval_reopened"] = _answers(again)
    again.close()
    return json.loads(json.dumps(res))


def _run_in_subprocess(kind: str, embedder: str) -> dict:
    return run_golden_world(__file__, kind, embedder)


@pytest.mark.parametrize("kind,embedder", WORLDS)
def test_conversation_writes_match_the_golden_store(kind, embedder):
    want = json.loads(GOLDEN.read_text())[f"{kind}/{embedder}"]
    got = _run_in_subprocess(kind, embedder)
    for key in want:
        assert got[key] == want[key], f"{kind}/{embedder}: {key} differs from the golden run"
    assert set(got) == set(want)


def _print(kind: str, embedder: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run_world(kind, embedder, Path(tmp) / "root")))


def _write() -> None:
    out = {f"{k}/{e}": _run_in_subprocess(k, e) for k, e in WORLDS}
    GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--print"]:
        _print(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["--write"]:
        _write()
    else:
        sys.exit(__doc__)
