"""Keeping a `ScopeIndex` current: new rows appended as they are committed (`catch_up`) and the
tail re-sorted into the base off the commit path (`Compaction`).

Commits update the index incrementally: the rows written since the index last looked
(`items.rowid` > `last_rowid`) are appended as a *tail* in insertion order (`scope_build.append_rows`)
and records a revision ended get their new `valid_to`. A commit therefore costs its own items, not the
scope size. The same path serves another process's commits (the scope's generation counter changed)
as well as this process's own.

Once the tail outgrows `max(COMPACT_MIN_TAIL, n_base * COMPACT_FRACTION)`, a `Compaction` starts from
a snapshot of the index (the records it holds at that moment, re-sorted in memory: no store read, no
embedding) and is built a slice at a time: every later commit (and a read that catches up another
process's commit) advances it by about `COMPACT_STEP_S` of work, then copies the rows appended
meanwhile in slices. Until it is complete the old index keeps serving every read unchanged; the
finished index (the same records, the same validity, base re-sorted plus the rows since the snapshot
as its tail) replaces it in one assignment, so a reader sees either the old index or the new one,
never a half-built one. Tuning constants are read from `pulse.memory.scope_index` at run time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Sequence
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory import graph
from pulse.memory import scope_index as params
from pulse.memory.embedders.base import Embedder
from pulse.memory.interface import ItemMeta
from pulse.memory.packed_records import PackedRecords
from pulse.memory.scope_build import append_rows, build_steps, cached_vectors, drive
from pulse.memory.scope_index import ScopeIndex
from pulse.memory.store import MemoryStore


def catch_up(ix: ScopeIndex, store: MemoryStore, embedder: Embedder, generation: int) -> ScopeIndex:
    """The index with the scope's rows written since it was built (by anyone): cost of the new rows.

    New rows are appended; records they supersede get their ended validity. Returns `ix` updated in
    place; once the tail has grown large, `ix.compaction` is started (advanced by
    `StoreMemory.advance_compactions`, never here).
    """
    rows = [r for r in store.scope_rows(ix.scope, after_rowid=ix.last_rowid) if r[1].item_id not in ix.pos]
    if rows:
        texts = [graph.embed_text(item) for _, item, _ in rows]
        vectors = cached_vectors(store, embedder, texts) if embedder.dense else None
        append_rows(ix, rows, vectors)
        ended = [item.supersedes for _, item, _ in rows if item.supersedes and item.supersedes in ix.pos]
        for item, _, _ in store.get_many(ended).values():
            ix.set_valid_to(item)
    ix.generation = generation
    if ix.compaction is None and ix.needs_compaction():
        ix.compaction = Compaction(ix, embedder)
    return ix


def compact(ix: ScopeIndex, embedder: Embedder) -> ScopeIndex:
    """The same records re-sorted into one base, all at once (from memory: no store read, no
    embedding). Commits never call this; they advance a `Compaction` slice by slice."""
    return drive(compaction_steps(ix.snapshot(), embedder))


class Compaction:
    """A re-sorted copy of an index, built a slice at a time while the index keeps serving.

    `build_step` works on the snapshot only (private data: no lock needed); once built,
    `copy_step` appends the rows the source index took in since the snapshot and, when it has
    caught up, replays the validity ends recorded meanwhile and returns the finished index. The
    caller runs `copy_step` under the lock that guards the source index and swaps the result in.
    """

    def __init__(self, source: ScopeIndex, embedder: Embedder):
        self.source = source
        self.n_snapshot = len(source)
        self.ended: list[MemoryItem] = []  # records whose validity the source ended since the snapshot
        self.result: ScopeIndex | None = None
        self.copied = self.n_snapshot  # source positions the result holds
        self.replayed = 0  # entries of `ended` applied to the result
        self.slices = 0  # work slices run so far (build and copy)
        self.work_s = 0.0  # seconds spent in them
        self.lock = threading.Lock()  # held by the one thread stepping it
        self._steps = compaction_steps(source.snapshot(), embedder)

    @property
    def built(self) -> bool:
        """Whether the snapshot's re-sorted copy is finished (`copy_step` may run)."""
        return self.result is not None

    def build_step(self, budget_s: float | None) -> bool:
        """Build for about `budget_s` (at least one slice; None: to the end). True once built."""
        t0 = time.perf_counter()
        try:
            while self.result is None:
                next(self._steps)
                self.slices += 1
                if budget_s is not None and time.perf_counter() - t0 >= budget_s:
                    break
        except StopIteration as done:
            self.result = done.value
        self.work_s += time.perf_counter() - t0
        return self.result is not None

    def copy_step(self, budget_s: float | None) -> ScopeIndex | None:
        """Append the source's newer rows for about `budget_s`; the finished index once caught up."""
        if self.result is None:
            raise RuntimeError("Compaction.copy_step before the build finished")
        t0 = time.perf_counter()
        src, new = self.source, self.result
        while self.copied < len(src) or self.replayed < len(self.ended):
            if self.copied < len(src):
                a, b = self.copied, min(len(src), self.copied + params._COPY_SLICE)
                rowids = src.rowids[a:b].tolist()
                append_rows(
                    new,
                    [(rowids[j], src.items[a + j], src.metas[a + j]) for j in range(b - a)],
                    src.vectors[a:b] if src.vectors is not None else None,
                )
                self.copied = b
            if self.copied == len(src):
                # validity ends recorded since the snapshot, a slice at a time (hundreds pile up while a
                # compaction is pending), once every row is copied (each ended record is in the result)
                a, b = self.replayed, min(len(self.ended), self.replayed + params._COPY_SLICE)
                for item in self.ended[a:b]:
                    new.set_valid_to(item)
                self.replayed = b
            self.slices += 1
            behind = self.copied < len(src) or self.replayed < len(self.ended)
            if budget_s is not None and behind and time.perf_counter() - t0 >= budget_s:
                self.work_s += time.perf_counter() - t0
                return None
        new.generation = src.generation
        new.last_rowid = max(new.last_rowid, src.last_rowid)
        self.work_s += time.perf_counter() - t0
        return new


def compaction_steps(snap: dict[str, Any], embedder: Embedder) -> Generator[None, None, ScopeIndex]:
    """The snapshot's records in insertion order, then a full stepwise build over them; the vectors
    are read through the permutation (never copied as a whole). Every per-record sequence here is a
    numpy array, not a list: a collection that meets a young list of 100k items pays ~10 ms for it."""
    order = np.argsort(snap["rowids"], kind="stable")
    yield
    texts, rtexts = snap["texts"], np.empty(len(order), object)
    for a in range(0, len(order), 8 * params._SLICE):
        rtexts[a : a + 8 * params._SLICE] = texts[order[a : a + 8 * params._SLICE]]
        yield
    rows = _Rows(order, snap["rowids"], snap["items"], snap["metas"])
    return (
        yield from build_steps(
            snap["scope"], snap["generation"], rows, snap["vectors"], embedder, rtexts, vec_rows=order
        )
    )


class _Rows(Sequence):
    """(rowid, item, meta) of a snapshot's records in `order`, made on access: a compaction keeps no
    tuple per record alive while it is pending (fewer long-lived objects for the garbage collector)."""

    def __init__(
        self,
        order: np.ndarray,
        rowids: np.ndarray,
        items: PackedRecords[MemoryItem],
        metas: PackedRecords[ItemMeta],
    ):
        self.order, self.rowids, self.items, self.metas = order, rowids, items, metas

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, j):  # type: ignore[override]
        i = int(self.order[j])
        return int(self.rowids[i]), self.items[i], self.metas[i]

    def __iter__(self):
        for a in range(0, len(self.order), params._SLICE):
            for i in self.order[a : a + params._SLICE].tolist():
                yield int(self.rowids[i]), self.items[i], self.metas[i]
