"""Compaction is off the commit path: built a slice per commit from a snapshot, swapped in whole.

While a compaction is pending, every read is served by the current (uncompacted) index and
returns what a freshly built index returns; the compacted index replaces it in one assignment and
is identical, array for array, to what the old synchronous compaction produced at the commit that
crossed the threshold followed by the later commits (validity ends recorded meanwhile included);
no single commit does the whole re-sort.
"""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from memory_helpers import pref
from test_incremental_index import TOPICS, _batches, _item, _queries, _results

from pulse.memory import make_embedder, open_memory, scope_compaction, scope_index


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(scope_index, "COMPACT_MIN_TAIL", 40)
    monkeypatch.setattr(scope_index, "COMPACT_FRACTION", 0.0)
    monkeypatch.setattr(scope_index, "_SLICE", 16)  # many slices even for a small scope
    monkeypatch.setattr(scope_index, "_VSLICE", 32)
    return monkeypatch


def _load(root, embedder: str, seed: int = 3, base: int = 200):
    rng = random.Random(seed)
    mem = open_memory("structured", root, make_embedder(embedder))
    rows = [_item(rng, i, TOPICS, "2025-01-01T00:00:00Z") for i in range(base)]
    mem.add_items([r[0] for r in rows], {r[0].item_id: r[1] for r in rows})
    return mem, rng


def _arrays(ix) -> dict:
    out = {
        "ids": [it.item_id for it in ix.items],
        "valid_to": [it.valid_to for it in ix.items],
        "items": list(ix.items),
        "metas": list(ix.metas),
        "item_slot": list(ix.item_slot),
        "item_value": list(ix.item_value),
        "n_base": ix.n_base,
        "topics": list(ix.topic_names),
        "tail_own": {k: list(v) for k, v in ix.tail_own.items()},
        "tail_below": {k: list(v) for k, v in ix.tail_below.items()},
        "last_rowid": ix.last_rowid,
    }
    for name in (
        "vf",
        "vt",
        "durable",
        "has_slot",
        "primary",
        "rowids",
        "own_range",
        "subtree_range",
        "has_members",
        "own_count",
        "own_sum",
        "sub_sum",
        "centroids",
        "vectors",
    ):
        out[name] = getattr(ix, name)
    for name in ("entity_members", "slot_members", "task_members"):
        out[name] = getattr(ix, name)
    out["link_members"] = ix.link_members
    return out


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or x is None:
            assert (x is None) == (y is None), k
            if x is not None:
                assert x.shape == y.shape and np.array_equal(x, y), k
        elif isinstance(x, dict) and x and isinstance(next(iter(x.values())), np.ndarray):
            assert x.keys() == y.keys() and all(np.array_equal(x[j], y[j]) for j in x), k
        elif isinstance(x, list) and x and isinstance(x[0], np.ndarray):
            assert len(x) == len(y) and all(np.array_equal(u, v) for u, v in zip(x, y)), k
        else:
            assert x == y, k


@pytest.mark.parametrize("embedder", ["hash", "bm25"])
def test_commits_advance_a_compaction_in_slices_and_readers_see_old_or_new(
    tmp_path, small_thresholds, embedder
):
    small_thresholds.setattr(scope_index, "COMPACT_STEP_S", 0.0)  # one slice per commit
    root = tmp_path / "mem"
    mem, rng = _load(root, embedder)
    queries = _queries(rng, 12)
    mem.retrieve(queries[0])
    ix0 = mem._indexes["user:u1"]
    states, started = [], None
    for b, (batch, metas) in enumerate(_batches(rng, 30, 12, 1000)):
        for item in batch:  # one record per commit, like a conversation's few
            mem.add_items([item], {item.item_id: metas[item.item_id]})
            ix = mem._indexes["user:u1"]
            if ix.compaction is not None:
                started = ix.compaction
                states.append("pending")
            elif ix is not ix0:
                states.append("swapped")
                break
        if states and states[-1] == "swapped":
            break
        # a reader between commits: the current index answers like a full rebuild
        fresh = open_memory("structured", root, make_embedder(embedder))
        try:
            assert _results(mem, queries) == _results(fresh, queries), f"batch {b}"
        finally:
            fresh.close()
    assert started is not None and states[-1] == "swapped", states
    assert states.count("pending") > 5  # spread over many commits, none of which re-sorted everything
    assert started.slices > states.count("pending") // 2
    ix = mem._indexes["user:u1"]
    assert ix.compaction is None and ix.n_base == started.n_snapshot and len(ix) == len(mem.snapshot("u1"))
    assert np.all(np.diff(ix.primary[: ix.n_base]) >= 0)  # the base is sorted by primary Topic again
    fresh = open_memory("structured", root, make_embedder(embedder))
    assert _results(mem, queries) == _results(fresh, queries)
    fresh.close()
    mem.close()


@pytest.mark.parametrize("embedder", ["hash", "bm25"])
def test_stepwise_compaction_builds_the_index_the_synchronous_one_did(tmp_path, small_thresholds, embedder):
    """Same commits on two roots: one compacts a slice per commit, while later commits append and
    revisions end records of its snapshot, up to the commit that swaps it in; the other runs the
    same commits and compacts at once at the crossing commit (budget None, the old behaviour).
    Every array of the two indexes is then identical."""
    small_thresholds.setattr(scope_index, "_SLICE", 64)
    small_thresholds.setattr(scope_index, "_VSLICE", 128)
    indexes, swaps, stop_after, ended = {}, {}, None, 0
    for mode, budget in (("stepwise", 0.0), ("sync", None)):
        small_thresholds.setattr(scope_index, "COMPACT_STEP_S", budget)
        mem, rng = _load(tmp_path / mode, embedder, seed=11)
        ix = mem.index("user:u1")
        n_commits, swaps[mode], pending = 0, 0, 0
        for batch, metas in _batches(rng, 12, 10, 1000):
            for item in batch:
                if n_commits == stop_after:
                    break
                mem.add_items([item], {item.item_id: metas[item.item_id]})
                n_commits += 1
                comp = mem._indexes["user:u1"].compaction
                pending += comp is not None
                ended = max(ended, len(comp.ended) if comp is not None else 0)
                if mem._indexes["user:u1"] is not ix:
                    ix, swaps[mode] = mem._indexes["user:u1"], swaps[mode] + 1
                    if mode == "stepwise":
                        stop_after = n_commits
                        break
            if mode == "stepwise" and stop_after:
                break
        assert swaps[mode] == 1 and (pending > 5 if mode == "stepwise" else pending == 0), (mode, pending)
        indexes[mode] = _arrays(ix)
        mem.close()
    st = indexes["stepwise"]
    assert ended > 0 and st["n_base"] < len(st["ids"])  # validity ends replayed, a tail copied
    _assert_same(indexes["sync"], st)


def test_a_reader_thread_keeps_reading_while_commits_compact(tmp_path, small_thresholds):
    small_thresholds.setattr(scope_index, "COMPACT_STEP_S", 0.0)
    root = tmp_path / "mem"
    mem, rng = _load(root, "hash")
    queries = _queries(rng, 8)
    mem.retrieve(queries[0])
    ix0 = mem._indexes["user:u1"]
    stop, errors, reads = threading.Event(), [], [0]

    def reader():
        while not stop.is_set():
            try:
                for q in queries:
                    mem.retrieve(q)
                    reads[0] += 1
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
                return

    t = threading.Thread(target=reader)
    t.start()
    try:
        for batch, metas in _batches(rng, 25, 10, 1000):
            for item in batch:
                mem.add_items([item], {item.item_id: metas[item.item_id]})
    finally:
        stop.set()
        t.join(timeout=60)
    assert not errors, errors[0]
    assert reads[0] > 0 and mem._indexes["user:u1"] is not ix0  # a compaction was swapped in meanwhile
    mem.advance_compactions()
    fresh = open_memory("structured", root, make_embedder("hash"))
    assert _results(mem, queries) == _results(fresh, queries)
    fresh.close()
    mem.close()


def test_another_processs_commits_are_compacted_by_reads(tmp_path, small_thresholds):
    small_thresholds.setattr(scope_index, "COMPACT_READ_STEP_S", 0.0)
    root = tmp_path / "mem"
    reader, rng = _load(root, "hash")
    writer = open_memory("structured", root, make_embedder("hash"))
    queries = _queries(rng, 6)
    reader.retrieve(queries[0])
    ix0 = reader._indexes["user:u1"]
    for i in range(250):
        writer.add_items(
            [
                pref(
                    f"w{i}",
                    f"I note fact number {i} about python tests",
                    topic="coding/python",
                    entities=("PyTorch",),
                )
            ]
        )
        reader.retrieve(queries[i % len(queries)])  # catches the commit up, and steps the compaction
    assert reader._indexes["user:u1"] is not ix0
    reader.advance_compactions()
    fresh = open_memory("structured", root, make_embedder("hash"))
    assert _results(reader, queries) == _results(fresh, queries)
    for m in (fresh, reader, writer):
        m.close()


def test_an_evicted_index_drops_its_compaction(tmp_path, small_thresholds):
    small_thresholds.setattr(scope_index, "COMPACT_STEP_S", 0.0)
    mem, rng = _load(tmp_path / "mem", "hash")
    mem.index_cache_size = 1
    q = _queries(rng, 1)[0]
    mem.retrieve(q)
    for batch, metas in _batches(rng, 6, 10, 1000):
        mem.add_items(batch, metas)
    assert mem._indexes["user:u1"].compaction is not None
    mem.add_items([pref("v1", "I like tea", user="u2", topic="food")])
    mem.index("user:u2")  # evicts user:u1 (cache of one)
    assert list(mem._indexes) == ["user:u2"]
    assert mem.advance_compactions(None) == 0  # nothing pending is left behind
    got = mem.retrieve(q)  # user:u1 rebuilt from the store: compacted from the start
    assert got and mem._indexes["user:u1"].compaction is None and mem._indexes["user:u1"].n_tail == 0
    mem.close()


def test_copy_step_before_build_is_an_error(tmp_path, small_thresholds):
    mem, rng = _load(tmp_path / "mem", "hash")
    comp = scope_compaction.Compaction(mem.index("user:u1"), mem.embedder)
    with pytest.raises(RuntimeError, match="before the build finished"):
        comp.copy_step(None)
    mem.close()
