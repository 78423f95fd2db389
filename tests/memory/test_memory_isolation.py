"""Isolation on generated adversarial worlds: users and projects hold lexically identical facts
(same text, slot, Topic, entities) with different values; queries even name the other scope's id
and value. Retrieval and snapshots for user A / project P must never return anything else."""

from __future__ import annotations

import random
import zlib

import pytest

from pulse.core.records import Event, MemoryItem, Provenance
from pulse.memory import ItemMeta, RetrievalQuery

SLOTS = ["size", "seat", "color", "airline", "font", "editor"]
TOPICS = ["design/icons", "travel/flights", "coding", "writing/blog"]


def adversarial_world(seed: int, users=("ua", "ub", "uc"), projects=("pa", "pb")):
    rng = random.Random(seed)
    items, meta = [], {}
    for slot in SLOTS:
        topic = rng.choice(TOPICS)
        text = f"My preferred {slot} is the usual one"  # identical text in every scope
        for owner in (*[f"user:{u}" for u in users], *[f"project:{p}" for p in projects]):
            kind = "preference" if owner.startswith("user:") else "project_state"
            iid = f"{owner.replace(':', '-')}-{slot}"
            items.append(
                MemoryItem(
                    iid,
                    kind,
                    owner,
                    text,
                    slot=slot,
                    value=f"{owner}-{slot}-value",
                    topic=topic,
                    entities=("Shared Entity", slot),
                    provenance=Provenance("history"),
                    valid_from="2025-01-01T00:00:00Z",
                )
            )
            meta[iid] = ItemMeta(links=(rng.choice(TOPICS),))
            if rng.random() < 0.5:  # revisions in every scope too
                items.append(
                    MemoryItem(
                        iid + "-r",
                        kind,
                        owner,
                        text,
                        slot=slot,
                        value=f"{owner}-{slot}-v2",
                        topic=topic,
                        entities=("Shared Entity",),
                        supersedes=iid,
                        provenance=Provenance("history"),
                        valid_from="2025-02-01T00:00:00Z",
                    )
                )
    return items, meta


def queries(rng: random.Random, user: str, project: str, others: list[str]):
    for slot in SLOTS:
        other = rng.choice(others)
        yield RetrievalQuery(
            user,
            project,
            subgoal=f"choose {slot} like {other} does, {other}-{slot}-value",
            entities=("Shared Entity", other),
            candidate_call=Event("candidate_call", 1, tool="act", args={slot: f"{other}-{slot}-value"}),
            k=20,
        )
        yield RetrievalQuery(
            user, project, subgoal="My preferred " + slot + " is the usual one", as_of="2025-01-15", k=20
        )


@pytest.mark.parametrize("kind", ["structured", "flat", "flat_user", "flat_project"])
@pytest.mark.parametrize("embedder", ["hash", "bm25"])
def test_no_cross_scope_results(mem_factory, tmp_path, kind, embedder):
    m = mem_factory(kind, root=tmp_path / f"{kind}-{embedder}", embedder=embedder)
    items, meta = adversarial_world(seed=zlib.crc32(f"{kind}-{embedder}".encode()) % 1000)
    m.add_items(items, meta)
    rng = random.Random(0)
    scopes_seen = 0
    for user, project in [("ua", "pa"), ("ub", "pb"), ("uc", ""), ("ua", "pb")]:
        allowed = {f"user:{user}"} | ({f"project:{project}"} if project else set())
        others = [
            s.split(":")[1]
            for s in ["user:ua", "user:ub", "user:uc", "project:pa", "project:pb"]
            if s not in allowed
        ]
        for q in queries(rng, user, project, others):
            hits = m.retrieve(q)
            assert hits, q
            bad = [h.item.item_id for h in hits if h.item.scope not in allowed]
            assert not bad, (kind, q.user_id, q.project_id, bad)
            scopes_seen += len({h.item.scope for h in hits})
        snap = m.snapshot(user, project)
        assert {i.scope for i in snap} == allowed
    assert scopes_seen > 0


def test_conversation_writes_stay_in_their_scope(mem_factory, tmp_path):
    m = mem_factory(root=tmp_path / "w")
    items, meta = adversarial_world(1)
    m.add_items(items, meta)
    with m.conversation("ua", "pa") as conv:
        conv.observe(Event("message", 0, text="My preferred size is tiny.", role="user", event_id="e"))
        conv.observe(Event("tool_result", 1, tool="build", args={"file": "x", "version": "v9"}, event_id="t"))
    assert {i.scope for i in conv.committed} == {"user:ua", "project:pa"}
    # ub's identical 'size' fact is untouched
    ub_size = [i for i in m.snapshot("ub") if i.slot == "size" and not i.valid_to]
    assert len(ub_size) == 1 and ub_size[0].value.startswith("user:ub")
