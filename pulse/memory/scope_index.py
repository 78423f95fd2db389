"""In-memory index of one scope (a user or a project), built from the store and the vector cache.

Retrieval must stay in the low milliseconds at 10k facts, so every per-query operation here is a
numpy operation over arrays prepared once per scope: validity bounds as float epoch seconds, the
embedding matrix, Topic membership as index arrays (with a sort order that lets `np.maximum.reduceat`
compute each Topic's best match in one call), and entity / slot / task posting lists. The index is
rebuilt lazily when the scope's generation counter in the store changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
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
    items: list[MemoryItem]
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
    vectors: np.ndarray | None  # (n, dim) for dense embedders: near-duplicate checks
    # thematic layer
    topic_names: list[str]
    topic_ids: dict[str, int]
    topic_parent: list[int]  # -1 for a root Topic
    topic_children: list[list[int]]
    topic_words: list[frozenset[str]]
    exact_members: list[np.ndarray]  # items whose primary Topic or a link is exactly this node
    item_topic_ids: list[tuple[int, ...]]  # per item: primary first, then links
    primary_order: np.ndarray  # items sorted by primary topic id
    primary_starts: np.ndarray  # reduceat boundaries into primary_order
    primary_present: np.ndarray  # topic id of each reduceat segment
    link_items: np.ndarray
    link_topics: np.ndarray
    # entity layer and slots
    entity_members: dict[str, np.ndarray]
    entity_names: dict[str, str]
    entity_by_words: dict[str, list[str]]
    entity_max_words: int
    slot_members: dict[str, np.ndarray]
    item_slot: list[str]
    _subtree_cache: dict[int, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.items)

    # ------------------------------------------------------------------ per-query helpers
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

    def topic_best(self, masked_scores: np.ndarray) -> np.ndarray:
        """Best item score per Topic node (its exact members, links included); -inf where none."""
        best = np.full(len(self.topic_names), -np.inf, np.float32)
        if len(self.primary_order):
            best[self.primary_present] = np.maximum.reduceat(masked_scores[self.primary_order], self.primary_starts)
        if len(self.link_items):
            np.maximum.at(best, self.link_topics, masked_scores[self.link_items])
        return best

    def subtree_members(self, node: int) -> np.ndarray:
        """Members of every strict descendant of `node` (its subtopics, recursively)."""
        got = self._subtree_cache.get(node)
        if got is None:
            parts, stack = [], list(self.topic_children[node])
            while stack:
                c = stack.pop()
                parts.append(self.exact_members[c])
                stack.extend(self.topic_children[c])
            got = np.unique(np.concatenate(parts)) if parts else _EMPTY
            self._subtree_cache[node] = got
        return got

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
    items = [r[0] for r in rows]
    metas = [r[1] for r in rows]
    n = len(items)
    texts = [graph.embed_text(i) for i in items]
    vectors = _vectors(store, embedder, texts) if embedder.dense else None
    scores = embedder.build_index(texts, vectors)

    topic_ids: dict[str, int] = {}
    topic_names: list[str] = []
    topic_parent: list[int] = []

    def node(key: str) -> int:
        if key not in topic_ids:
            parent = graph.topic_parent(key)
            pid = node(parent) if parent else -1
            topic_ids[key] = len(topic_names)
            topic_names.append(key)
            topic_parent.append(pid)
        return topic_ids[key]

    item_topic_ids: list[tuple[int, ...]] = []
    members: dict[int, list[int]] = {}
    link_items: list[int] = []
    link_topics: list[int] = []
    entity_lists: dict[str, list[int]] = {}
    entity_names: dict[str, str] = {}
    slot_lists: dict[str, list[int]] = {}
    task_lists: dict[str, list[int]] = {}
    item_slot: list[str] = []
    for idx, (item, meta) in enumerate(zip(items, metas)):
        tids = tuple(node(k) for k, _ in graph.item_topics(item, meta))
        item_topic_ids.append(tids)
        for j, t in enumerate(tids):
            members.setdefault(t, []).append(idx)
            if j:
                link_items.append(idx)
                link_topics.append(t)
        for key, name in graph.item_entities(item).items():
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

    n_topics = len(topic_names)
    children: list[list[int]] = [[] for _ in range(n_topics)]
    for t, p in enumerate(topic_parent):
        if p >= 0:
            children[p].append(t)
    primary = np.array([t[0] for t in item_topic_ids], np.int64) if n else _EMPTY
    order = np.argsort(primary, kind="stable")
    sorted_topics = primary[order]
    starts = np.flatnonzero(np.r_[True, sorted_topics[1:] != sorted_topics[:-1]]) if n else _EMPTY
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
        topic_names=topic_names, topic_ids=topic_ids, topic_parent=topic_parent, topic_children=children,
        topic_words=[frozenset(graph.stem(w) for w in graph.words(name.rsplit("/", 1)[-1])) for name in topic_names],
        exact_members=[arr(members.get(t, [])) for t in range(n_topics)],
        item_topic_ids=item_topic_ids, primary_order=order, primary_starts=starts,
        primary_present=sorted_topics[starts] if n else _EMPTY,
        link_items=arr(link_items), link_topics=arr(link_topics),
        entity_members={k: arr(v) for k, v in entity_lists.items()}, entity_names=entity_names,
        entity_by_words=entity_by_words,
        entity_max_words=min(4, max((len(k.split()) for k in entity_by_words), default=1)),
        slot_members={k: arr(v) for k, v in slot_lists.items()}, item_slot=item_slot,
    )


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
    return np.stack([cached[text_hash(t)] for t in texts]).astype(np.float32, copy=False)


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
