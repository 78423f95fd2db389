"""In-memory index of one scope (a user or a project): its layout and the queries retrieval runs on it.

Retrieval must stay in the low milliseconds at 10k facts, so per-query work is numpy over arrays
prepared once per scope. The layout is what makes graph retrieval sublinear: Topic nodes are
numbered in depth-first order and the *base* items are sorted by their primary Topic, so a Topic's
own facts and its whole subtree are each one contiguous slice of the (n, dim) matrix. Graph
retrieval scores Topic centroids, then only the slices of the located Topics (plus the few facts
reached through links, entities and slots) — never the full matrix. Items appended since the last
sort form the *tail*, reached through per-Topic member lists (`tail_own`, `tail_below`).

The rest lives beside it: building an index and appending rows (`scope_build.py`), following the
store's commits and compacting the tail off the commit path (`scope_compaction.py`). The tuning
constants below are read by those modules at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory.embedders.base import GrowingArray, ScoreIndex
from pulse.memory.interface import ItemMeta
from pulse.memory.packed_records import PackedRecords
from pulse.memory.timeutil import bound_to
from pulse.utils.topk import top_k

_EMPTY = np.zeros(0, np.int64)
# compaction when the appended tail exceeds max(COMPACT_MIN_TAIL, COMPACT_FRACTION * base size):
# amortised, a re-sort every ~25 % growth; below it, tail facts cost a gather each per query
COMPACT_MIN_TAIL = 2048
COMPACT_FRACTION = 0.25
# Work (seconds) a commit spends on a pending compaction (at least one slice); a read that catches up
# another process's commit spends COMPACT_READ_STEP_S. None: run it to the end at once (the old,
# synchronous behaviour: one commit pays the whole re-sort, ~6 s at 100k facts).
COMPACT_STEP_S: float | None = 0.008
COMPACT_READ_STEP_S: float | None = 0.002
# items per slice of a stepwise build (a slice costs well under a millisecond), rows per vector slice
_SLICE = 64
# 128 rows of 384 float32 are 48 fresh 4 KB pages; on a virtual machine the first write to a page
# can cost ~50 us (512-row slices took 10-12 ms at 100k facts, over a commit's 8 ms budget)
_VSLICE = 128
# rows per slice of a compaction's copy of the rows committed meanwhile: appending one to the finished
# index costs ~0.15 ms at 100k facts (64-row slices took ~10 ms, over a commit's 8 ms budget)
_COPY_SLICE = 16
# Write-time lookups (nearest fact for Topic placement, near-duplicate sentences) scan the whole
# scope up to this size (a few ms); above it they probe the facts of the PROBE_TOPICS Topics whose
# centroids are nearest (an inverted-file search: approximate, cost independent of scope size).
EXACT_SCAN_MAX = 20000
# rows gathered at a time for a similarity over a subset of a scope (1.5 MB of 384 floats)
_GATHER_ROWS = 1024
PROBE_TOPICS = 8
# per-item columns: name -> dtype (kept as growing arrays; the attributes are views of them). The
# object columns hold str and tuples of atoms: a numpy array is never traversed by Python's garbage
# collector, where a list of 100k items cost every collection that saw it ~10 ms (one cache miss per
# element; bench/bench_memory_scale.py)
_COLUMNS = {
    "vf": np.float64,
    "vt": np.float64,
    "durable": bool,
    "task_ids": object,
    "kinds": object,
    "has_slot": bool,
    "primary": np.int64,
    "rowids": np.int64,
    "texts": object,  # the embedded text of each item
    "item_topic_ids": object,  # tuple of node ids: primary first, then links
    "item_slot": object,  # slot key ("" = none)
    "item_value": object,  # the item's value, stripped and lower-cased (compared with call arguments)
    "item_entity_keys": object,  # tuple of the entity keys the item names
}
_EMPTY_OBJECTS = np.zeros(0, object)


@dataclass
class ScopeIndex:
    """The retrieval index of one scope's records: Topic tree, entity / slot / task members, validity
    columns and (dense embedders) vectors and Topic centroids.

    Built by `scope_build.build_scope_index(store, embedder, scope, generation)`, kept current by
    `scope_compaction.catch_up`; never built by hand. Queries (`valid_mask`, `topic_best`,
    `topic_order`, `match_entities`, `tail_of`, `probe`, `dot`, ...) take numpy arrays and positions
    (`pos[item_id]`) and return numpy arrays; they raise nothing on a well-formed index.
    """

    scope: str
    generation: int
    last_rowid: int  # the newest store row (items.rowid) of this scope the index holds
    # base: sorted by primary Topic (depth-first), then insertion; tail: insertion order. Packed
    # (see packed_records): a full garbage collection never walks 100k records
    items: PackedRecords[MemoryItem]
    metas: PackedRecords[ItemMeta]
    pos: dict[str, int]
    n_base: int  # items [0, n_base) are the sorted base, [n_base, n) the appended tail
    scores: ScoreIndex
    # thematic layer (node ids: depth-first for the base's nodes, then in order of appearance)
    topic_names: list[str]
    topic_ids: dict[str, int]
    topic_parent: list[int]  # -1 for a root Topic
    topic_words: list[frozenset[str]]
    topic_by_word: dict[str, list[int]]  # a (stemmed) name word -> the nodes whose name has it
    own_range: np.ndarray  # (T, 2): slice of base items whose primary Topic is the node
    subtree_range: np.ndarray  # (T, 2): slice of base items whose primary Topic is in the node's subtree
    link_members: list[np.ndarray]  # items linked into the node (cross-topic links)
    tail_own: dict[int, list[int]]  # tail items whose primary Topic is the node
    tail_below: dict[int, list[int]]  # tail items whose primary Topic is strictly below the node
    has_members: np.ndarray  # bool per node: any fact in its subtree or linked in
    # entity layer and slots
    entity_members: dict[str, np.ndarray]
    entity_topics: dict[str, set[int]]  # primary Topics of the facts naming the entity
    entity_names: dict[str, str]
    entity_by_words: dict[str, list[str]]
    entity_max_words: int
    slot_members: dict[str, np.ndarray]
    task_members: dict[str, np.ndarray]
    # dense embedders: item vectors and Topic centroids from running sums (None for lexical)
    vector_rows: GrowingArray | None
    own_sum: np.ndarray | None  # (T, dim) float64: sum of the node's own + linked facts
    own_count: np.ndarray  # (T,) number of own + linked facts
    sub_sum: np.ndarray | None  # (T, dim) float64: sum of the node's whole subtree's facts
    centroids: np.ndarray | None  # (T, dim) normalised own sum (subtree sum when it has no own facts)
    columns: dict[str, GrowingArray] = field(default_factory=dict)
    _name_rank: np.ndarray | None = None  # rank of each Topic name (see topic_order)
    # a re-sort being built from a snapshot of this index (scope_compaction.Compaction; not imported:
    # that module builds on this one)
    compaction: Any = None
    _entity_topic_arrays: dict[str, np.ndarray] = field(default_factory=dict)  # see entity_topic_array
    _tail_arrays: dict[tuple[bool, int], np.ndarray] = field(default_factory=dict)  # see tail_of
    # views of `columns`, refreshed after every append (see _COLUMNS)
    vf: np.ndarray = field(default_factory=lambda: _EMPTY)  # valid_from, epoch s (-inf = always)
    vt: np.ndarray = field(default_factory=lambda: _EMPTY)  # valid_to, epoch s (+inf = still valid)
    durable: np.ndarray = field(default_factory=lambda: _EMPTY)  # bool: not task-scoped
    task_ids: np.ndarray = field(default_factory=lambda: _EMPTY)  # str per item ("" = durable)
    kinds: np.ndarray = field(default_factory=lambda: _EMPTY)  # str per item
    has_slot: np.ndarray = field(default_factory=lambda: _EMPTY)  # bool per item
    primary: np.ndarray = field(default_factory=lambda: _EMPTY)  # primary Topic id per item
    rowids: np.ndarray = field(default_factory=lambda: _EMPTY)  # store rowid per item (insertion order)
    texts: np.ndarray = field(default_factory=lambda: _EMPTY_OBJECTS)
    item_topic_ids: np.ndarray = field(default_factory=lambda: _EMPTY_OBJECTS)
    item_slot: np.ndarray = field(default_factory=lambda: _EMPTY_OBJECTS)
    item_value: np.ndarray = field(default_factory=lambda: _EMPTY_OBJECTS)
    item_entity_keys: np.ndarray = field(default_factory=lambda: _EMPTY_OBJECTS)
    vectors: np.ndarray | None = None  # (n, dim) rows in index order, for dense embedders

    def __len__(self) -> int:
        return len(self.items)

    @property
    def n_tail(self) -> int:
        """The number of appended items after the sorted base."""
        return len(self.items) - self.n_base

    def sync_views(self) -> None:
        """Refresh the column attributes and `vectors` as views of their growing arrays (after an append)."""
        for name, col in self.columns.items():
            setattr(self, name, col.view())
        self.vectors = self.vector_rows.view() if self.vector_rows is not None else None

    def valid_mask(self, as_of: float | None, task_id: str, current_only: bool = True) -> np.ndarray:
        """Validity at the information cutoff. `current_only=False` keeps superseded versions (flat
        memory)."""
        if as_of is None:
            mask = self.vt == np.inf if current_only else np.ones(len(self.items), bool)
        else:
            mask = self.vf <= as_of
            if current_only:
                mask &= as_of < self.vt
        scope_ok = self.durable
        if task_id and task_id in self.task_members:
            scope_ok = scope_ok.copy()
            scope_ok[self.task_members[task_id]] = True
        return mask & scope_ok

    def valid_subset(self, idx: np.ndarray, as_of: float | None, task_id: str) -> np.ndarray:
        """`valid_mask` (current versions only) evaluated on a subset of positions."""
        if as_of is None:
            ok = self.vt[idx] == np.inf
        else:
            ok = (self.vf[idx] <= as_of) & (as_of < self.vt[idx])
        scoped = self.durable[idx]
        if task_id and task_id in self.task_members:
            scoped = scoped | np.isin(idx, self.task_members[task_id])
        return ok & scoped

    def topic_best(self, scores: np.ndarray) -> np.ndarray:
        """Best score among each node's own and linked facts (-inf where none): location without vectors."""
        best = np.full(len(self.topic_names), -np.inf, np.float32)
        lo, hi = self.own_range[:, 0], self.own_range[:, 1]
        nonempty = np.flatnonzero(hi > lo)
        if len(nonempty):
            # own slices tile the base in node order, so the segments between consecutive non-empty
            # starts are exactly those slices: one reduceat over the base
            base = scores[: self.n_base]
            best[nonempty] = np.maximum.reduceat(base, lo[nonempty]) if len(base) else -np.inf
        if self.n_tail:
            np.maximum.at(best, self.primary[self.n_base :], scores[self.n_base :])
        for t, m in enumerate(self.link_members):
            if len(m):
                best[t] = max(best[t], float(scores[m].max()))
        return best

    def topic_order(self, tscore: np.ndarray) -> np.ndarray:
        """Node ids by descending score; ties broken by Topic name, so the order never depends on how
        the nodes happen to be numbered (a full build numbers them depth-first, appends add at the end)."""
        if self._name_rank is None or len(self._name_rank) != len(self.topic_names):
            rank = np.empty(len(self.topic_names), np.int64)
            rank[np.argsort(np.array(self.topic_names, dtype=object), kind="stable")] = np.arange(len(rank))
            self._name_rank = rank
        return np.lexsort((self._name_rank, -tscore))

    def probe(self, vec: np.ndarray) -> np.ndarray:
        """Positions a write-time similarity lookup scans (see EXACT_SCAN_MAX / PROBE_TOPICS)."""
        n = len(self.items)
        if n <= EXACT_SCAN_MAX or self.centroids is None:
            return np.arange(n)
        sims = np.where(self.own_count > 0, self.centroids @ vec, -np.inf)
        parts = []
        for t in top_k(sims, PROBE_TOPICS).tolist():
            parts += [np.arange(*self.own_range[t]), self.tail_of(t), self.link_members[t]]
        return np.unique(np.concatenate(parts))

    def dot(self, idx: np.ndarray, vec: np.ndarray) -> np.ndarray:
        """`self.vectors[idx] @ vec` for `probe`'s positions (ascending, unique) without gathering them
        into one matrix: a gathered copy of several MB is a fresh allocation numpy backs with huge
        pages, and their first write stalled a commit (placement and near-duplicate lookups scan up to
        EXACT_SCAN_MAX rows). The whole scope is one product over the rows in place."""
        n = len(self.vectors)
        if len(idx) == n and (n == 0 or (idx[0] == 0 and idx[-1] == n - 1)):
            return self.vectors @ vec
        parts = [self.vectors[idx[a : a + _GATHER_ROWS]] @ vec for a in range(0, len(idx), _GATHER_ROWS)]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def tail_of(self, t: int, below: bool = False) -> np.ndarray:
        """Tail items whose primary Topic is `t` (with below=True: strictly below it), ascending.
        The array is cached until its list grows (tail lists only grow within one index)."""
        m = (self.tail_below if below else self.tail_own).get(t)
        if not m:
            return _EMPTY
        got = self._tail_arrays.get((below, t))
        if got is None or len(got) != len(m):
            got = self._tail_arrays[(below, t)] = np.asarray(m, np.int64)
        return got

    def entity_topic_array(self, key: str) -> np.ndarray:
        """`entity_topics[key]` as an array (cached until the set changes size: sets only grow)."""
        topics = self.entity_topics[key]
        got = self._entity_topic_arrays.get(key)
        if got is None or len(got) != len(topics):
            got = self._entity_topic_arrays[key] = np.fromiter(topics, np.int64, len(topics))
        return got

    def match_entities(self, words: list[str], direct_keys: set[str]) -> list[str]:
        """Entity keys named by the query: its explicit keys and any n-gram of its words."""
        hits = [k for k in direct_keys if k in self.entity_members]
        for n in range(1, min(self.entity_max_words, len(words)) + 1):
            for i in range(len(words) - n + 1):
                for k in self.entity_by_words.get(" ".join(words[i : i + n]), ()):
                    if k not in hits:
                        hits.append(k)
        return hits

    # ------------------------------------------------------------------ incremental updates
    def set_valid_to(self, item: MemoryItem) -> None:
        """A stored record's validity ended (the only change a stored row ever gets)."""
        p = self.pos.get(item.item_id)
        if p is not None and self.items[p].valid_to != item.valid_to:
            self.items[p] = replace(self.items[p], valid_to=item.valid_to)
            self.vt[p] = bound_to(item.valid_to)
            if self.compaction is not None:  # replayed on the compacted index before it replaces this one
                self.compaction.ended.append(self.items[p])

    def refresh_centroids(self, nodes: Sequence[int]) -> None:
        """Unit centroid of each node's own + linked facts (its subtree's where it has none). One
        vectorised pass: a node's result does not depend on which other nodes share the call (each
        row is reduced alone), so a build and an incremental update agree bit for bit."""
        idx = np.asarray(nodes, np.int64)
        if not len(idx):
            return
        s = np.where((self.own_count[idx] > 0)[:, None], self.own_sum[idx], self.sub_sum[idx])
        norm = np.sqrt((s * s).sum(axis=1))
        safe = np.where(norm > 0, norm, 1.0)[:, None]
        self.centroids[idx] = np.where((norm > 0)[:, None], s / safe, 0.0)

    def needs_compaction(self) -> bool:
        """Whether the appended tail has outgrown max(COMPACT_MIN_TAIL, COMPACT_FRACTION * base size)."""
        return self.n_tail > max(COMPACT_MIN_TAIL, COMPACT_FRACTION * self.n_base)

    def snapshot(self) -> dict[str, Any]:
        """What a compaction reads: copies of the records and rowids (cheap: references), and views
        of the texts and vector rows, which appends never overwrite."""
        n = len(self.items)
        return {
            "scope": self.scope,
            "generation": self.generation,
            "items": self.items.head(n),
            "metas": self.metas.head(n),
            "texts": self.texts[:n],
            "rowids": self.rowids[:n].copy(),
            "vectors": self.vectors[:n] if self.vectors is not None else None,
        }
