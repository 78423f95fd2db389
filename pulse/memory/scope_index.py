"""In-memory index of one scope (a user or a project), built from the store and the vector cache.

Retrieval must stay in the low milliseconds at 10k facts, so per-query work is numpy over arrays
prepared once per scope. The layout is what makes graph retrieval sublinear: Topic nodes are
numbered in depth-first order and the *base* items are sorted by their primary Topic, so a Topic's
own facts and its whole subtree are each one contiguous slice of the (n, dim) matrix. Graph
retrieval scores Topic centroids, then only the slices of the located Topics (plus the few facts
reached through links, entities and slots) — never the full matrix.

Commits update the index incrementally (`catch_up`): the rows written since the index last looked
(`items.rowid` > `last_rowid`) are appended as a *tail* in insertion order — per-item columns are
growing arrays, Topic sums and member lists are updated for the touched nodes only — and records a
revision ended get their new `valid_to`. A commit therefore costs its own items, not the scope
size. Tail items reach graph retrieval through per-Topic member lists (`tail_own`,
`tail_below`). The same path serves another process's commits (the scope's generation counter
changed) as well as this process's own.

Compaction is off the commit path. Once the tail outgrows `max(COMPACT_MIN_TAIL, n_base *
COMPACT_FRACTION)`, a `Compaction` starts from a snapshot of the index (the records it holds at
that moment, re-sorted in memory: no store read, no embedding) and is built a slice at a time:
every later commit (and a read that catches up another process's commit) advances it by about
`COMPACT_STEP_S` of work, then copies the rows appended meanwhile in slices. Until it is complete
the old index keeps serving every read unchanged; the finished index (the same records, the same
validity, base re-sorted plus the rows since the snapshot as its tail) replaces it in one
assignment, so a reader sees either the old index or the new one, never a half-built one.
"""

from __future__ import annotations

import threading
import time
from array import array
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory import graph
from pulse.memory.embedders.base import DenseIndex, Embedder, GrowingArray, ScoreIndex
from pulse.memory.interface import ItemMeta
from pulse.memory.packed_records import PackedRecords, packed_items, packed_metas
from pulse.memory.store import MemoryStore, text_hash
from pulse.memory.timeutil import bound_from, bound_to

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
    compaction: Compaction | None = None  # a re-sort being built from a snapshot of this index
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
        return len(self.items) - self.n_base

    def _sync_views(self) -> None:
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
        for t in np.argsort(-sims)[:PROBE_TOPICS].tolist():
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
    def append(self, rows: Sequence[tuple[int, MemoryItem, ItemMeta]], vectors: np.ndarray | None) -> None:
        """Add records (store rowid, item, meta) in insertion order as tail items."""
        if not rows:
            return
        start = len(self.items)
        texts = [graph.embed_text(item) for _, item, _ in rows]
        new_topics: list[str] = []
        per_item: list[list[str]] = []
        for _, item, meta in rows:
            ts = [k for k, _ in graph.item_topics(item, meta)]
            per_item.append(ts)
            for k in ts:
                for node in graph.topic_chain(k):
                    if node not in self.topic_ids and node not in new_topics:
                        new_topics.append(node)
        if new_topics:
            self._add_topics(new_topics)
        col_vals: dict[str, list] = {name: [] for name in _COLUMNS}
        new_tids: list[tuple[int, ...]] = []
        for j, ((rowid, item, meta), ts) in enumerate(zip(rows, per_item)):
            idx = start + j
            tids = tuple(self.topic_ids[k] for k in ts)
            new_tids.append(tids)
            self.items.append(item)
            self.metas.append(meta)
            self.pos[item.item_id] = idx
            for name, v in _column_values(item, meta, tids, rowid, texts[j]).items():
                col_vals[name].append(v)
            self.tail_own.setdefault(tids[0], []).append(idx)
            for node in graph.topic_chain(ts[0]):
                a = self.topic_ids[node]
                if a != tids[0]:
                    self.tail_below.setdefault(a, []).append(idx)
                self.has_members[a] = True
            for t in tids[1:]:
                self.link_members[t] = np.append(self.link_members[t], idx)
                self.has_members[t] = True
            for name, v in self._index_keys(idx, item, meta, tids[0]).items():
                col_vals[name].append(v)
        for name, vals in col_vals.items():
            self.columns[name].append(vals)
        self.scores.add(texts, vectors)
        if self.vector_rows is not None:
            if self.vector_rows is not getattr(self.scores, "rows", None):
                self.vector_rows.append(vectors)
            touched: set[int] = set()
            for j, tids in enumerate(new_tids):
                v = vectors[j].astype(np.float64)
                for t in tids:  # own and linked
                    self.own_sum[t] += v
                    self.own_count[t] += 1
                    touched.add(t)
                for node in graph.topic_chain(self.topic_names[tids[0]]):
                    a = self.topic_ids[node]
                    self.sub_sum[a] += v
                    touched.add(a)
            self._refresh_centroids(sorted(touched))
        else:
            for tids in new_tids:
                for t in tids:
                    self.own_count[t] += 1
        self.last_rowid = max(self.last_rowid, max(r for r, _, _ in rows))
        self._sync_views()

    def set_valid_to(self, item: MemoryItem) -> None:
        """A stored record's validity ended (the only change a stored row ever gets)."""
        p = self.pos.get(item.item_id)
        if p is not None and self.items[p].valid_to != item.valid_to:
            self.items[p] = replace(self.items[p], valid_to=item.valid_to)
            self.vt[p] = bound_to(item.valid_to)
            if self.compaction is not None:  # replayed on the compacted index before it replaces this one
                self.compaction.ended.append(self.items[p])

    def _add_topics(self, names: list[str]) -> None:
        for name in names:  # topic_chain order: a parent is always added before its children
            self.topic_ids[name] = len(self.topic_names)
            self.topic_names.append(name)
            parent = graph.topic_parent(name)
            self.topic_parent.append(self.topic_ids[parent] if parent else -1)
            self.topic_words.append(_topic_words(name))
            for w in self.topic_words[-1]:
                self.topic_by_word.setdefault(w, []).append(self.topic_ids[name])
            self.link_members.append(_EMPTY)
        k = len(names)
        self.own_range = np.vstack([self.own_range, np.zeros((k, 2), np.int64)])
        self.subtree_range = np.vstack([self.subtree_range, np.zeros((k, 2), np.int64)])
        self.has_members = np.concatenate([self.has_members, np.zeros(k, bool)])
        self.own_count = np.concatenate([self.own_count, np.zeros(k, np.int64)])
        if self.own_sum is not None:
            dim = self.own_sum.shape[1]
            self.own_sum = np.vstack([self.own_sum, np.zeros((k, dim))])
            self.sub_sum = np.vstack([self.sub_sum, np.zeros((k, dim))])
            self.centroids = np.vstack([self.centroids, np.zeros((k, dim), np.float32)])

    def _refresh_centroids(self, nodes: Sequence[int]) -> None:
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

    def _index_keys(
        self, idx: int, item: MemoryItem, meta: ItemMeta, primary: int, add: Any = None
    ) -> dict[str, Any]:
        """Entity, slot and task membership of one item at position `idx` (primary Topic `primary`);
        returns its entity-key, slot and value columns. `add(members, key, idx)` defaults to appending
        to the key's array (a build collects and converts them once)."""
        add = add or _push
        ents = graph.item_entities(item)
        for key, name in ents.items():
            if key not in self.entity_members:
                self.entity_names[key] = name
                joined = " ".join(graph.words(key))
                self.entity_by_words.setdefault(joined, []).append(key)
                self.entity_max_words = min(4, max(self.entity_max_words, len(joined.split())))
            add(self.entity_members, key, idx)
            self.entity_topics.setdefault(key, set()).add(primary)
        sk = graph.slot_key(item.slot) if item.slot else ""
        if sk:
            add(self.slot_members, sk, idx)
            if ":" in sk:  # "artifact:report.pdf" also answers to an argument named "report.pdf"
                add(self.slot_members, sk.split(":", 1)[1], idx)
        if meta.task_id:
            add(self.task_members, meta.task_id, idx)
        return {"item_entity_keys": tuple(ents), "item_slot": sk, "item_value": item.value.strip().lower()}

    def needs_compaction(self) -> bool:
        return self.n_tail > max(COMPACT_MIN_TAIL, COMPACT_FRACTION * self.n_base)

    def compact(self, embedder: Embedder) -> ScopeIndex:
        """The same records re-sorted into one base, all at once (from memory: no store read, no
        embedding). Commits never call this; they advance a `Compaction` slice by slice."""
        return _drive(_compaction_steps(self._snapshot(), embedder))

    def _snapshot(self) -> dict[str, Any]:
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
        self._steps = _compaction_steps(source._snapshot(), embedder)

    @property
    def built(self) -> bool:
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
                a, b = self.copied, min(len(src), self.copied + _COPY_SLICE)
                rowids = src.rowids[a:b].tolist()
                new.append(
                    [(rowids[j], src.items[a + j], src.metas[a + j]) for j in range(b - a)],
                    src.vectors[a:b] if src.vectors is not None else None,
                )
                self.copied = b
            if self.copied == len(src):
                # validity ends recorded since the snapshot, a slice at a time (hundreds pile up while a
                # compaction is pending), once every row is copied (each ended record is in the result)
                a, b = self.replayed, min(len(self.ended), self.replayed + _COPY_SLICE)
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


def _drive(steps: Generator[None, None, ScopeIndex]) -> ScopeIndex:
    """Run a stepwise build to the end and return what it built."""
    try:
        while True:
            next(steps)
    except StopIteration as done:
        return done.value


def _compaction_steps(snap: dict[str, Any], embedder: Embedder) -> Generator[None, None, ScopeIndex]:
    """The snapshot's records in insertion order, then a full stepwise build over them; the vectors
    are read through the permutation (never copied as a whole). Every per-record sequence here is a
    numpy array, not a list: a collection that meets a young list of 100k items pays ~10 ms for it."""
    order = np.argsort(snap["rowids"], kind="stable")
    yield
    texts, rtexts = snap["texts"], np.empty(len(order), object)
    for a in range(0, len(order), 8 * _SLICE):
        rtexts[a : a + 8 * _SLICE] = texts[order[a : a + 8 * _SLICE]]
        yield
    rows = _Rows(order, snap["rowids"], snap["items"], snap["metas"])
    return (
        yield from _build_steps(
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
        for a in range(0, len(self.order), _SLICE):
            for i in self.order[a : a + _SLICE].tolist():
                yield int(self.rowids[i]), self.items[i], self.metas[i]


def _push(members: dict[str, Any], key: str, idx: int) -> None:
    arr = members.get(key)
    members[key] = np.array([idx], np.int64) if arr is None else np.append(arr, idx)


def _collect(members: dict[str, Any], key: str, idx: int) -> None:
    # an array.array, not a list: untracked by the garbage collector while a compaction is pending
    got = members.get(key)
    if got is None:
        got = members[key] = array("q")
    got.append(idx)


def _topic_words(name: str) -> frozenset[str]:
    return frozenset(graph.stem(w) for w in graph.words(name.rsplit("/", 1)[-1]))


def _column_values(
    item: MemoryItem, meta: ItemMeta, topic_ids: tuple[int, ...], rowid: int, text: str
) -> dict[str, Any]:
    """The per-item columns `_index_keys` does not fill."""
    primary = topic_ids[0]
    return {
        "vf": bound_from(item.valid_from),
        "vt": bound_to(item.valid_to),
        "durable": not meta.task_id,
        "task_ids": meta.task_id,
        "kinds": item.kind,
        "has_slot": bool(item.slot),
        "primary": primary,
        "rowids": rowid,
        "texts": text,
        "item_topic_ids": topic_ids,
    }


def build_scope_index(store: MemoryStore, embedder: Embedder, scope: str, generation: int) -> ScopeIndex:
    rows = store.scope_rows(scope)
    texts = [graph.embed_text(item) for _, item, _ in rows]
    vectors = _vectors(store, embedder, texts) if embedder.dense else None
    return _build(scope, generation, rows, vectors, embedder, texts)


def catch_up(ix: ScopeIndex, store: MemoryStore, embedder: Embedder, generation: int) -> ScopeIndex:
    """The index with the scope's rows written since it was built (by anyone): cost of the new rows.

    New rows are appended; records they supersede get their ended validity. Returns `ix` updated in
    place; once the tail has grown large, `ix.compaction` is started (advanced by `advance`, never here).
    """
    rows = [r for r in store.scope_rows(ix.scope, after_rowid=ix.last_rowid) if r[1].item_id not in ix.pos]
    if rows:
        texts = [graph.embed_text(item) for _, item, _ in rows]
        vectors = _vectors(store, embedder, texts) if embedder.dense else None
        ix.append(rows, vectors)
        ended = [item.supersedes for _, item, _ in rows if item.supersedes and item.supersedes in ix.pos]
        for item, _, _ in store.get_many(ended).values():
            ix.set_valid_to(item)
    ix.generation = generation
    if ix.compaction is None and ix.needs_compaction():
        ix.compaction = Compaction(ix, embedder)
    return ix


def _build(
    scope: str,
    generation: int,
    rows: Sequence[tuple[int, MemoryItem, ItemMeta]],
    vectors: np.ndarray | None,
    embedder: Embedder,
    texts: list[str] | None = None,
) -> ScopeIndex:
    """A fully sorted index over `rows` (store rowid, item, meta; insertion order) and their vectors."""
    return _drive(_build_steps(scope, generation, rows, vectors, embedder, texts))


def _build_steps(
    scope: str,
    generation: int,
    rows: Sequence[tuple[int, MemoryItem, ItemMeta]],
    vectors: np.ndarray | None,
    embedder: Embedder,
    texts: Sequence[str] | None = None,
    vec_rows: np.ndarray | None = None,
) -> Generator[None, None, ScopeIndex]:
    """`_build` as a generator that yields after every small slice of work (a compaction runs it a
    slice at a time) and returns the index. `vec_rows`: the row of `vectors` for each of `rows`
    (default: the same position). Per-record sequences are numpy arrays (see _COLUMNS)."""
    # thematic layer: every Topic path and its ancestors, numbered depth-first
    n = len(rows)
    keys: set[str] = set()
    per_item_topics = np.empty(n, object)  # a tuple of Topic paths per record
    last_rowid = 0
    for j, (rowid, item, meta) in enumerate(rows):
        ts = tuple(k for k, _ in graph.item_topics(item, meta))
        per_item_topics[j] = ts
        last_rowid = max(last_rowid, rowid)
        for k in ts:
            keys.update(graph.topic_chain(k))
        if j % _SLICE == _SLICE - 1:
            yield
    children: dict[str, list[str]] = {}
    for k in keys:
        children.setdefault(graph.topic_parent(k), []).append(k)
    topic_names: list[str] = []
    stack = sorted(children.get("", []), reverse=True)
    while stack:
        k = stack.pop()
        topic_names.append(k)
        stack.extend(sorted(children.get(k, []), reverse=True))
    topic_ids = {k: i for i, k in enumerate(topic_names)}
    topic_parent = [topic_ids[graph.topic_parent(k)] if graph.topic_parent(k) else -1 for k in topic_names]
    n_topics = len(topic_names)
    yield

    # items sorted by primary Topic so own facts and subtrees are contiguous slices (a stable sort:
    # ties keep insertion order)
    first = np.zeros(n, np.int64)
    for a in range(0, n, 4 * _SLICE):
        first[a : a + 4 * _SLICE] = [topic_ids[ts[0]] for ts in per_item_topics[a : a + 4 * _SLICE]]
        yield
    order_arr = np.argsort(first, kind="stable")
    yield
    if texts is None:
        texts = [graph.embed_text(item) for _, item, _ in rows]
    texts = texts if isinstance(texts, np.ndarray) else np.fromiter(texts, object, n)
    sorted_texts = np.empty(n, object)
    item_topic_ids = np.empty(n, object)  # a tuple of node ids per record, primary first
    for a in range(0, n, _SLICE):
        part = order_arr[a : a + _SLICE]
        sorted_texts[a : a + len(part)] = texts[part]
        for j, i in enumerate(part.tolist(), a):
            item_topic_ids[j] = tuple(topic_ids[k] for k in per_item_topics[i])
        yield
    texts = sorted_texts
    del per_item_topics
    # room for the tail a compaction allows, twice over (commits keep appending while a compaction is
    # pending), so commits never copy the index to grow it; untouched room costs no memory (calloc)
    capacity = n + 2 * int(max(COMPACT_MIN_TAIL, COMPACT_FRACTION * n)) + 64
    if vectors is not None:
        dim = vectors.shape[1]
        src_rows = order_arr if vec_rows is None else np.asarray(vec_rows)[order_arr]
        scores = embedder.build_index([], np.zeros((0, dim), np.float32), capacity)
        # a dense score index holds the vectors already: share its rows instead of a second copy
        vector_rows = (
            scores.rows if isinstance(scores, DenseIndex) else GrowingArray(np.float32, dim, None, capacity)
        )
        for a in range(0, n, _VSLICE):
            chunk = np.ascontiguousarray(vectors[src_rows[a : a + _VSLICE]], dtype=np.float32)
            scores.add(texts[a : a + _VSLICE], chunk)
            if vector_rows is not getattr(scores, "rows", None):
                vector_rows.append(chunk)
            yield
        sorted_vectors = vector_rows.view()
    else:
        scores = embedder.build_index([], None, capacity)
        for a in range(0, n, _SLICE):
            scores.add(texts[a : a + _SLICE], None)
            yield
        vector_rows = sorted_vectors = None

    primary = first[order_arr] if n else _EMPTY
    yield
    own_range = np.zeros((n_topics, 2), np.int64)
    own_range[:, 0] = np.searchsorted(primary, np.arange(n_topics), "left")
    own_range[:, 1] = np.searchsorted(primary, np.arange(n_topics), "right")
    subtree_last = list(range(n_topics))  # last node id in each subtree (depth-first numbering)
    for t in reversed(range(n_topics)):
        p = topic_parent[t]
        if p >= 0:
            subtree_last[p] = max(subtree_last[p], subtree_last[t])
    subtree_range = (
        np.stack([own_range[:, 0], own_range[np.array(subtree_last, np.int64), 1]], 1)
        if n_topics
        else np.zeros((0, 2), np.int64)
    )
    links: list[list[int]] = [[] for _ in range(n_topics)]
    for idx, tids in enumerate(item_topic_ids):
        for t in tids[1:]:
            links[t].append(idx)
        if idx % (4 * _SLICE) == 4 * _SLICE - 1:
            yield
    link_members = [np.asarray(x, np.int64) for x in links]
    has_members = np.array(
        [subtree_range[t, 1] > subtree_range[t, 0] or len(link_members[t]) > 0 for t in range(n_topics)], bool
    )
    own_count = (own_range[:, 1] - own_range[:, 0]) + np.array([len(m) for m in link_members], np.int64)
    own_sum = sub_sum = None
    if sorted_vectors is not None:
        own_sum, sub_sum = yield from _topic_sums(sorted_vectors, own_range, subtree_range, link_members)

    ix = ScopeIndex(
        scope=scope,
        generation=generation,
        last_rowid=last_rowid,
        items=packed_items(),
        metas=packed_metas(),
        pos={},
        n_base=n,
        scores=scores,
        topic_names=topic_names,
        topic_ids=topic_ids,
        topic_parent=topic_parent,
        topic_words=[_topic_words(name) for name in topic_names],
        topic_by_word={},
        own_range=own_range,
        subtree_range=subtree_range,
        link_members=link_members,
        tail_own={},
        tail_below={},
        has_members=has_members,
        entity_members={},
        entity_topics={},
        entity_names={},
        entity_by_words={},
        entity_max_words=1,
        slot_members={},
        task_members={},
        vector_rows=vector_rows,
        own_sum=own_sum,
        own_count=own_count,
        sub_sum=sub_sum,
        centroids=np.zeros((n_topics, own_sum.shape[1]), np.float32) if own_sum is not None else None,
        columns={name: GrowingArray(dtype, capacity=capacity) for name, dtype in _COLUMNS.items()},
    )
    for t, ws in enumerate(ix.topic_words):
        for w in ws:
            ix.topic_by_word.setdefault(w, []).append(t)
    yield
    for a in range(0, n, _SLICE):
        cols: dict[str, list] = {name: [] for name in _COLUMNS}
        for idx in range(a, min(n, a + _SLICE)):
            rowid, item, meta = rows[int(order_arr[idx])]
            tids = item_topic_ids[idx]
            ix.items.append(item)
            ix.metas.append(meta)
            ix.pos[item.item_id] = idx
            for name, v in _column_values(item, meta, tids, rowid, texts[idx]).items():
                cols[name].append(v)
            for name, v in ix._index_keys(idx, item, meta, tids[0], _collect).items():
                cols[name].append(v)
        for name, vals in cols.items():
            ix.columns[name].append(vals)
        yield
    for members in (ix.entity_members, ix.slot_members, ix.task_members):
        yield
        for j, key in enumerate(list(members)):
            members[key] = np.array(members[key], np.int64)
            if j % _SLICE == _SLICE - 1:
                yield
    if own_sum is not None:
        for a in range(0, n_topics, 8 * _SLICE):
            ix._refresh_centroids(range(a, min(n_topics, a + 8 * _SLICE)))
            yield
    ix._sync_views()
    return ix


def _topic_sums(
    vectors: np.ndarray, own: np.ndarray, subtree: np.ndarray, links: list[np.ndarray]
) -> Generator[None, None, tuple[np.ndarray, np.ndarray]]:
    """Per node: the sum of its own + linked facts' vectors, and of its whole subtree's (float64).

    Differences of the running (prefix) sum at the slice boundaries; the running sum is computed a
    slice of rows at a time, carrying the previous row, which adds in exactly the order one
    `np.cumsum` over all rows would, and only the rows at the boundaries are kept."""
    n, dim = vectors.shape
    need = np.unique(np.concatenate([own.ravel(), subtree.ravel()])) if len(own) else _EMPTY
    at = np.zeros((len(need), dim), np.float64)  # prefix sum (of rows [0, need[j])) per needed boundary
    carry = np.zeros((1, dim), np.float64)
    at[need == 0] = 0.0
    for a in range(0, n, _VSLICE):
        b = min(n, a + _VSLICE)
        csum = np.cumsum(
            np.vstack([carry, vectors[a:b]]), axis=0, dtype=np.float64
        )  # csum[j] = prefix of a + j rows
        hit = np.flatnonzero((need > a) & (need <= b))
        at[hit] = csum[need[hit] - a]
        carry = csum[-1:]
        yield
    where = {int(x): j for j, x in enumerate(need.tolist())}

    def prefix(idx: np.ndarray) -> np.ndarray:
        return at[[where[int(x)] for x in idx.tolist()]] if len(idx) else np.zeros((0, dim), np.float64)

    own_sum = prefix(own[:, 1]) - prefix(own[:, 0])
    sub_sum = prefix(subtree[:, 1]) - prefix(subtree[:, 0])
    for t, m in enumerate(links):
        if len(m):
            own_sum[t] += vectors[m].sum(0)
    return own_sum, sub_sum


def _vectors(store: MemoryStore, embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Vectors from the cache; texts never embedded by this embedder are embedded once and cached."""
    if not texts:
        return np.zeros((0, max(embedder.dim, 1)), np.float32)
    cached = store.cached_vectors(embedder.embedder_id, texts)
    missing = list(dict.fromkeys(t for t in texts if text_hash(t) not in cached))
    if missing:
        new = embedder.embed(missing)
        with store.transaction() as db:
            store.put_vectors(db, embedder.embedder_id, missing, new)
        cached.update({text_hash(t): new[i] for i, t in enumerate(missing)})
    return np.ascontiguousarray(np.stack([cached[text_hash(t)] for t in texts]), dtype=np.float32)


def embed_with_cache(store: MemoryStore, embedder: Embedder, texts: list[str]) -> dict[str, Any]:
    """text hash -> vector for `texts`, computing only what the cache lacks (not yet stored)."""
    if not embedder.dense or not texts:
        return {}
    cached = store.cached_vectors(embedder.embedder_id, texts)
    missing = list(dict.fromkeys(t for t in texts if text_hash(t) not in cached))
    if missing:
        new = embedder.embed(missing)
        cached.update({text_hash(t): new[i] for i, t in enumerate(missing)})
    return cached
