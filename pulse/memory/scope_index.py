"""In-memory index of one scope (a user or a project), built from the store and the vector cache.

Retrieval must stay in the low milliseconds at 10k facts, so per-query work is numpy over arrays
prepared once per scope. The layout is what makes graph retrieval sublinear: Topic nodes are
numbered in depth-first order and items are sorted by their primary Topic, so a Topic's own facts
and its whole subtree are each one contiguous slice of the (n, dim) matrix. Graph retrieval scores
Topic centroids, then only the slices of the located Topics (plus the few facts reached through
links, entities and slots) — never the full matrix. The index is rebuilt lazily when the scope's
generation counter in the store changes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory import graph
from pulse.memory.embedders.base import Embedder, ScoreIndex
from pulse.memory.interface import ItemMeta
from pulse.memory.store import MemoryStore, text_hash
from pulse.memory.timeutil import bound_from, bound_to

_EMPTY = np.zeros(0, np.int64)


@dataclass
class ScopeIndex:
    scope: str
    generation: int
    items: list[MemoryItem]  # sorted by primary Topic (depth-first), then insertion order
    metas: list[ItemMeta]
    pos: dict[str, int]
    vf: np.ndarray  # valid_from, epoch s (-inf = always)
    vt: np.ndarray  # valid_to, epoch s (+inf = still valid)
    durable: np.ndarray  # bool: not task-scoped
    task_ids: np.ndarray  # str per item ("" = durable)
    kinds: np.ndarray  # str per item
    has_slot: np.ndarray  # bool per item
    task_members: dict[str, np.ndarray]
    scores: ScoreIndex
    vectors: np.ndarray | None  # (n, dim) rows in index order, for dense embedders
    # thematic layer (node ids in depth-first order)
    topic_names: list[str]
    topic_ids: dict[str, int]
    topic_parent: list[int]  # -1 for a root Topic
    topic_words: list[frozenset[str]]
    own_range: np.ndarray  # (T, 2): slice of items whose primary Topic is the node
    subtree_range: np.ndarray  # (T, 2): slice of items whose primary Topic is in the node's subtree
    link_members: list[np.ndarray]  # items linked into the node (cross-topic links)
    centroids: np.ndarray | None  # (T, dim) normalised mean of the node's facts (subtree if it has none)
    has_members: np.ndarray  # bool per node: any fact in its subtree or linked in
    item_topic_ids: list[tuple[int, ...]]  # per item: primary first, then links
    # entity layer and slots
    entity_members: dict[str, np.ndarray]
    entity_names: dict[str, str]
    entity_by_words: dict[str, list[str]]
    entity_max_words: int
    slot_members: dict[str, np.ndarray]
    item_slot: list[str]
    item_entity_keys: list[frozenset[str]]

    def __len__(self) -> int:
        return len(self.items)

    def valid_mask(self, as_of: float | None, task_id: str, current_only: bool = True) -> np.ndarray:
        """Validity at the information cutoff. `current_only=False` keeps superseded versions (flat memory)."""
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
            # own slices tile the item array in node order, so the segments between consecutive
            # non-empty starts are exactly those slices: one reduceat
            seg = np.maximum.reduceat(scores, lo[nonempty]) if len(scores) else np.zeros(0, np.float32)
            best[nonempty] = seg
        for t, m in enumerate(self.link_members):
            if len(m):
                best[t] = max(best[t], float(scores[m].max()))
        return best

    def match_entities(self, words: list[str], direct_keys: set[str]) -> list[str]:
        """Entity keys named by the query: its explicit keys and any n-gram of its words."""
        hits = [k for k in direct_keys if k in self.entity_members]
        for n in range(1, min(self.entity_max_words, len(words)) + 1):
            for i in range(len(words) - n + 1):
                for k in self.entity_by_words.get(" ".join(words[i:i + n]), ()):
                    if k not in hits:
                        hits.append(k)
        return hits


def build_scope_index(store: MemoryStore, embedder: Embedder, scope: str, generation: int) -> ScopeIndex:
    rows = store.scope_items(scope)
    # thematic layer: every Topic path and its ancestors, numbered depth-first
    keys: set[str] = set()
    per_item_topics = []
    for item, meta, _ in rows:
        ts = [k for k, _ in graph.item_topics(item, meta)]
        per_item_topics.append(ts)
        for k in ts:
            keys.update(graph.topic_chain(k))
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

    # items sorted by primary Topic so own facts and subtrees are contiguous slices
    order = sorted(range(len(rows)), key=lambda i: (topic_ids[per_item_topics[i][0]], i))
    items = [rows[i][0] for i in order]
    metas = [rows[i][1] for i in order]
    item_topic_ids = [tuple(topic_ids[k] for k in per_item_topics[i]) for i in order]
    n = len(items)
    texts = [graph.embed_text(i) for i in items]
    vectors = _vectors(store, embedder, texts) if embedder.dense else None
    scores = embedder.build_index(texts, vectors)

    primary = np.array([t[0] for t in item_topic_ids], np.int64) if n else _EMPTY
    own_range = np.zeros((n_topics, 2), np.int64)
    own_range[:, 0] = np.searchsorted(primary, np.arange(n_topics), "left")
    own_range[:, 1] = np.searchsorted(primary, np.arange(n_topics), "right")
    subtree_last = list(range(n_topics))  # last node id in each subtree (depth-first numbering)
    for t in reversed(range(n_topics)):
        p = topic_parent[t]
        if p >= 0:
            subtree_last[p] = max(subtree_last[p], subtree_last[t])
    subtree_range = np.stack([own_range[:, 0], own_range[np.array(subtree_last, np.int64), 1]], 1) if n_topics \
        else np.zeros((0, 2), np.int64)
    links: list[list[int]] = [[] for _ in range(n_topics)]
    for idx, tids in enumerate(item_topic_ids):
        for t in tids[1:]:
            links[t].append(idx)
    link_members = [np.asarray(x, np.int64) for x in links]
    has_members = np.array([subtree_range[t, 1] > subtree_range[t, 0] or len(link_members[t]) > 0
                            for t in range(n_topics)], bool)
    centroids = _centroids(vectors, own_range, subtree_range, link_members) if vectors is not None else None

    entity_lists: dict[str, list[int]] = {}
    entity_names: dict[str, str] = {}
    slot_lists: dict[str, list[int]] = {}
    task_lists: dict[str, list[int]] = {}
    item_slot: list[str] = []
    item_entity_keys: list[frozenset[str]] = []
    for idx, (item, meta) in enumerate(zip(items, metas)):
        ents = graph.item_entities(item)
        item_entity_keys.append(frozenset(ents))
        for key, name in ents.items():
            entity_lists.setdefault(key, []).append(idx)
            entity_names.setdefault(key, name)
        sk = graph.slot_key(item.slot) if item.slot else ""
        item_slot.append(sk)
        if sk:
            slot_lists.setdefault(sk, []).append(idx)
            if ":" in sk:  # "artifact:report.pdf" also answers to an argument named "report.pdf"
                slot_lists.setdefault(sk.split(":", 1)[1], []).append(idx)
        if meta.task_id:
            task_lists.setdefault(meta.task_id, []).append(idx)
    entity_by_words: dict[str, list[str]] = {}
    for key in entity_lists:
        entity_by_words.setdefault(" ".join(graph.words(key)), []).append(key)

    def arr(xs: list[int]) -> np.ndarray:
        return np.asarray(xs, np.int64)

    return ScopeIndex(
        scope=scope, generation=generation, items=items, metas=metas,
        pos={it.item_id: i for i, it in enumerate(items)},
        vf=np.array([bound_from(i.valid_from) for i in items], np.float64),
        vt=np.array([bound_to(i.valid_to) for i in items], np.float64),
        durable=np.array([not m.task_id for m in metas], bool),
        task_ids=np.array([m.task_id for m in metas], dtype=object),
        kinds=np.array([i.kind for i in items], dtype=object),
        has_slot=np.array([bool(i.slot) for i in items], bool),
        task_members={k: arr(v) for k, v in task_lists.items()},
        scores=scores, vectors=vectors,
        topic_names=topic_names, topic_ids=topic_ids, topic_parent=topic_parent,
        topic_words=[frozenset(graph.stem(w) for w in graph.words(name.rsplit("/", 1)[-1])) for name in topic_names],
        own_range=own_range, subtree_range=subtree_range, link_members=link_members, centroids=centroids,
        has_members=has_members, item_topic_ids=item_topic_ids,
        entity_members={k: arr(v) for k, v in entity_lists.items()}, entity_names=entity_names,
        entity_by_words=entity_by_words,
        entity_max_words=min(4, max((len(k.split()) for k in entity_by_words), default=1)),
        slot_members={k: arr(v) for k, v in slot_lists.items()}, item_slot=item_slot,
        item_entity_keys=item_entity_keys,
    )


def _centroids(vectors: np.ndarray, own: np.ndarray, subtree: np.ndarray, links: list[np.ndarray]) -> np.ndarray:
    """Normalised mean vector of each node's own + linked facts; a node without any uses its subtree."""
    n_topics, dim = len(own), vectors.shape[1]
    out = np.zeros((n_topics, dim), np.float32)
    csum = np.vstack([np.zeros((1, dim), np.float64), np.cumsum(vectors, axis=0, dtype=np.float64)])
    for t in range(n_topics):
        lo, hi = own[t]
        s = csum[hi] - csum[lo]
        if len(links[t]):
            s = s + vectors[links[t]].sum(0)
        if hi == lo and not len(links[t]):
            s = csum[subtree[t, 1]] - csum[subtree[t, 0]]
        norm = np.linalg.norm(s)
        if norm > 0:
            out[t] = s / norm
    return out


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
