"""Building a `ScopeIndex`: a full, sorted build from a scope's rows (`build_scope_index`, a slice at a
time in `build_steps`) and the incremental append of newer rows as the index's tail (`append_rows`).

The build runs in named stages, each a generator that yields after every small slice of work (a
compaction runs the build a slice at a time while the old index keeps serving):
1. `_topic_tree`: every Topic path of the rows and its ancestors, numbered depth-first;
2. `_sort_rows`: rows sorted by primary Topic (stable), so a Topic's own facts and its subtree are
   contiguous slices; texts and Topic ids in that order;
3. `_score_rows`: the embedder's score index over the sorted rows (and their vectors, dense only);
4. `_topic_layout`: own and subtree slices, cross-topic links, Topic vector sums;
5. `_fill`: the per-item columns and the entity, slot and task member lists.
Tuning constants (slice sizes, compaction thresholds) are read from `pulse.memory.scope_index` when
a build starts, so a test that patches them there changes the build too.
"""

from __future__ import annotations

from array import array
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory import graph
from pulse.memory import scope_index as params
from pulse.memory.embedders.base import DenseIndex, Embedder, GrowingArray, ScoreIndex
from pulse.memory.interface import ItemMeta
from pulse.memory.packed_records import packed_items, packed_metas
from pulse.memory.scope_index import _COLUMNS, _EMPTY, ScopeIndex
from pulse.memory.store import MemoryStore, text_hash
from pulse.memory.timeutil import bound_from, bound_to

Rows = Sequence[tuple[int, MemoryItem, ItemMeta]]  # (store rowid, item, meta) in insertion order


def build_scope_index(store: MemoryStore, embedder: Embedder, scope: str, generation: int) -> ScopeIndex:
    """A fully sorted index of `scope`'s rows in `store` at `generation`, with the embedder's vectors
    (from the store's vector cache; texts never embedded are embedded once and cached)."""
    rows = store.scope_rows(scope)
    texts = [graph.embed_text(item) for _, item, _ in rows]
    vectors = cached_vectors(store, embedder, texts) if embedder.dense else None
    return build_rows(scope, generation, rows, vectors, embedder, texts)


def build_rows(
    scope: str,
    generation: int,
    rows: Rows,
    vectors: np.ndarray | None,
    embedder: Embedder,
    texts: list[str] | None = None,
) -> ScopeIndex:
    """A fully sorted index over `rows` (store rowid, item, meta; insertion order) and their vectors."""
    return drive(build_steps(scope, generation, rows, vectors, embedder, texts))


def drive(steps: Generator[None, None, ScopeIndex]) -> ScopeIndex:
    """Run a stepwise build to the end and return what it built."""
    try:
        while True:
            next(steps)
    except StopIteration as done:
        return done.value


@dataclass
class _Tree:
    per_item_topics: np.ndarray  # a tuple of Topic paths per record, in row order
    last_rowid: int
    names: list[str]  # depth-first
    ids: dict[str, int]
    parent: list[int]  # -1 for a root Topic


@dataclass
class _Sorted:
    first: np.ndarray  # primary Topic id per record, in row order
    order: np.ndarray  # rows sorted by primary Topic (stable)
    texts: np.ndarray  # embedded texts, sorted
    item_topic_ids: np.ndarray  # a tuple of node ids per sorted record, primary first


@dataclass
class _Layout:
    own_range: np.ndarray
    subtree_range: np.ndarray
    link_members: list[np.ndarray]
    has_members: np.ndarray
    own_count: np.ndarray
    own_sum: np.ndarray | None
    sub_sum: np.ndarray | None


def build_steps(
    scope: str,
    generation: int,
    rows: Rows,
    vectors: np.ndarray | None,
    embedder: Embedder,
    texts: Sequence[str] | None = None,
    vec_rows: np.ndarray | None = None,
) -> Generator[None, None, ScopeIndex]:
    """`build_rows` as a generator that yields after every small slice of work and returns the index.
    `vec_rows`: the row of `vectors` for each of `rows` (default: the same position). Per-record
    sequences are numpy arrays (see scope_index._COLUMNS)."""
    n = len(rows)
    tree = yield from _topic_tree(rows)
    srt = yield from _sort_rows(rows, tree, texts)
    # room for the tail a compaction allows, twice over (commits keep appending while a compaction is
    # pending), so commits never copy the index to grow it; untouched room costs no memory (calloc)
    capacity = n + 2 * int(max(params.COMPACT_MIN_TAIL, params.COMPACT_FRACTION * n)) + 64
    scores, vector_rows, sorted_vectors = yield from _score_rows(embedder, vectors, vec_rows, srt, capacity)
    layout = yield from _topic_layout(tree, srt, sorted_vectors)
    ix = ScopeIndex(
        scope=scope,
        generation=generation,
        last_rowid=tree.last_rowid,
        items=packed_items(),
        metas=packed_metas(),
        pos={},
        n_base=n,
        scores=scores,
        topic_names=tree.names,
        topic_ids=tree.ids,
        topic_parent=tree.parent,
        topic_words=[_topic_words(name) for name in tree.names],
        topic_by_word={},
        own_range=layout.own_range,
        subtree_range=layout.subtree_range,
        link_members=layout.link_members,
        tail_own={},
        tail_below={},
        has_members=layout.has_members,
        entity_members={},
        entity_topics={},
        entity_names={},
        entity_by_words={},
        entity_max_words=1,
        slot_members={},
        task_members={},
        vector_rows=vector_rows,
        own_sum=layout.own_sum,
        own_count=layout.own_count,
        sub_sum=layout.sub_sum,
        centroids=(
            np.zeros((len(tree.names), layout.own_sum.shape[1]), np.float32)
            if layout.own_sum is not None
            else None
        ),
        columns={name: GrowingArray(dtype, capacity=capacity) for name, dtype in _COLUMNS.items()},
    )
    for t, ws in enumerate(ix.topic_words):
        for w in ws:
            ix.topic_by_word.setdefault(w, []).append(t)
    yield
    yield from _fill(ix, rows, srt)
    return ix


def _topic_tree(rows: Rows) -> Generator[None, None, _Tree]:
    """Stage 1: the thematic layer, every Topic path and its ancestors, numbered depth-first."""
    S = params._SLICE
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
        if j % S == S - 1:
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
    yield
    return _Tree(per_item_topics, last_rowid, topic_names, topic_ids, topic_parent)


def _sort_rows(rows: Rows, tree: _Tree, texts: Sequence[str] | None) -> Generator[None, None, _Sorted]:
    """Stage 2: records sorted by primary Topic so own facts and subtrees are contiguous slices (a
    stable sort: ties keep insertion order), with their texts and Topic ids in that order."""
    S = params._SLICE
    n = len(rows)
    topic_ids, per_item_topics = tree.ids, tree.per_item_topics
    first = np.zeros(n, np.int64)
    for a in range(0, n, 4 * S):
        first[a : a + 4 * S] = [topic_ids[ts[0]] for ts in per_item_topics[a : a + 4 * S]]
        yield
    order_arr = np.argsort(first, kind="stable")
    yield
    if texts is None:
        texts = [graph.embed_text(item) for _, item, _ in rows]
    texts = texts if isinstance(texts, np.ndarray) else np.fromiter(texts, object, n)
    sorted_texts = np.empty(n, object)
    item_topic_ids = np.empty(n, object)  # a tuple of node ids per record, primary first
    for a in range(0, n, S):
        part = order_arr[a : a + S]
        sorted_texts[a : a + len(part)] = texts[part]
        for j, i in enumerate(part.tolist(), a):
            item_topic_ids[j] = tuple(topic_ids[k] for k in per_item_topics[i])
        yield
    return _Sorted(first, order_arr, sorted_texts, item_topic_ids)


def _score_rows(
    embedder: Embedder,
    vectors: np.ndarray | None,
    vec_rows: np.ndarray | None,
    srt: _Sorted,
    capacity: int,
) -> Generator[None, None, tuple[ScoreIndex, GrowingArray | None, np.ndarray | None]]:
    """Stage 3: the embedder's score index over the sorted texts and, for a dense embedder, the sorted
    vector rows (shared with a dense score index, not copied twice)."""
    n, texts, order_arr = len(srt.order), srt.texts, srt.order
    if vectors is not None:
        VS = params._VSLICE
        dim = vectors.shape[1]
        src_rows = order_arr if vec_rows is None else np.asarray(vec_rows)[order_arr]
        scores = embedder.build_index([], np.zeros((0, dim), np.float32), capacity)
        # a dense score index holds the vectors already: share its rows instead of a second copy
        vector_rows = (
            scores.rows if isinstance(scores, DenseIndex) else GrowingArray(np.float32, dim, None, capacity)
        )
        for a in range(0, n, VS):
            chunk = np.ascontiguousarray(vectors[src_rows[a : a + VS]], dtype=np.float32)
            scores.add(texts[a : a + VS], chunk)
            if vector_rows is not getattr(scores, "rows", None):
                vector_rows.append(chunk)
            yield
        return scores, vector_rows, vector_rows.view()
    S = params._SLICE
    scores = embedder.build_index([], None, capacity)
    for a in range(0, n, S):
        scores.add(texts[a : a + S], None)
        yield
    return scores, None, None


def _topic_layout(
    tree: _Tree, srt: _Sorted, sorted_vectors: np.ndarray | None
) -> Generator[None, None, _Layout]:
    """Stage 4: each Topic's own and subtree slices of the sorted base, its cross-topic links, whether
    it has members, and (dense) the sums its centroid is made from."""
    S = params._SLICE
    n, n_topics, topic_parent = len(srt.order), len(tree.names), tree.parent
    primary = srt.first[srt.order] if n else _EMPTY
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
    for idx, tids in enumerate(srt.item_topic_ids):
        for t in tids[1:]:
            links[t].append(idx)
        if idx % (4 * S) == 4 * S - 1:
            yield
    link_members = [np.asarray(x, np.int64) for x in links]
    has_members = np.array(
        [subtree_range[t, 1] > subtree_range[t, 0] or len(link_members[t]) > 0 for t in range(n_topics)], bool
    )
    own_count = (own_range[:, 1] - own_range[:, 0]) + np.array([len(m) for m in link_members], np.int64)
    own_sum = sub_sum = None
    if sorted_vectors is not None:
        own_sum, sub_sum = yield from _topic_sums(sorted_vectors, own_range, subtree_range, link_members)
    return _Layout(own_range, subtree_range, link_members, has_members, own_count, own_sum, sub_sum)


def _fill(ix: ScopeIndex, rows: Rows, srt: _Sorted) -> Generator[None, None, None]:
    """Stage 5: the records, their per-item columns and their entity, slot and task memberships, then
    the Topic centroids."""
    S = params._SLICE
    n = len(srt.order)
    for a in range(0, n, S):
        cols: dict[str, list] = {name: [] for name in _COLUMNS}
        for idx in range(a, min(n, a + S)):
            rowid, item, meta = rows[int(srt.order[idx])]
            tids = srt.item_topic_ids[idx]
            ix.items.append(item)
            ix.metas.append(meta)
            ix.pos[item.item_id] = idx
            for name, v in _column_values(item, meta, tids, rowid, srt.texts[idx]).items():
                cols[name].append(v)
            for name, v in index_keys(ix, idx, item, meta, tids[0], _collect).items():
                cols[name].append(v)
        for name, vals in cols.items():
            ix.columns[name].append(vals)
        yield
    for members in (ix.entity_members, ix.slot_members, ix.task_members):
        yield
        for j, key in enumerate(list(members)):
            members[key] = np.array(members[key], np.int64)
            if j % S == S - 1:
                yield
    if ix.own_sum is not None:
        n_topics = len(ix.topic_names)
        for a in range(0, n_topics, 8 * S):
            ix.refresh_centroids(range(a, min(n_topics, a + 8 * S)))
            yield
    ix.sync_views()


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
    for a in range(0, n, params._VSLICE):
        b = min(n, a + params._VSLICE)
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


def cached_vectors(store: MemoryStore, embedder: Embedder, texts: list[str]) -> np.ndarray:
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


def append_rows(
    ix: ScopeIndex, rows: Sequence[tuple[int, MemoryItem, ItemMeta]], vectors: np.ndarray | None
) -> None:
    """Add records (store rowid, item, meta) in insertion order as tail items."""
    if not rows:
        return
    start = len(ix.items)
    texts = [graph.embed_text(item) for _, item, _ in rows]
    new_topics: list[str] = []
    per_item: list[list[str]] = []
    for _, item, meta in rows:
        ts = [k for k, _ in graph.item_topics(item, meta)]
        per_item.append(ts)
        for k in ts:
            for node in graph.topic_chain(k):
                if node not in ix.topic_ids and node not in new_topics:
                    new_topics.append(node)
    if new_topics:
        add_topics(ix, new_topics)
    col_vals: dict[str, list] = {name: [] for name in _COLUMNS}
    new_tids: list[tuple[int, ...]] = []
    for j, ((rowid, item, meta), ts) in enumerate(zip(rows, per_item)):
        idx = start + j
        tids = tuple(ix.topic_ids[k] for k in ts)
        new_tids.append(tids)
        ix.items.append(item)
        ix.metas.append(meta)
        ix.pos[item.item_id] = idx
        for name, v in _column_values(item, meta, tids, rowid, texts[j]).items():
            col_vals[name].append(v)
        ix.tail_own.setdefault(tids[0], []).append(idx)
        for node in graph.topic_chain(ts[0]):
            a = ix.topic_ids[node]
            if a != tids[0]:
                ix.tail_below.setdefault(a, []).append(idx)
            ix.has_members[a] = True
        for t in tids[1:]:
            ix.link_members[t] = np.append(ix.link_members[t], idx)
            ix.has_members[t] = True
        for name, v in index_keys(ix, idx, item, meta, tids[0]).items():
            col_vals[name].append(v)
    for name, vals in col_vals.items():
        ix.columns[name].append(vals)
    ix.scores.add(texts, vectors)
    if ix.vector_rows is not None:
        if ix.vector_rows is not getattr(ix.scores, "rows", None):
            ix.vector_rows.append(vectors)
        touched: set[int] = set()
        for j, tids in enumerate(new_tids):
            v = vectors[j].astype(np.float64)
            for t in tids:  # own and linked
                ix.own_sum[t] += v
                ix.own_count[t] += 1
                touched.add(t)
            for node in graph.topic_chain(ix.topic_names[tids[0]]):
                a = ix.topic_ids[node]
                ix.sub_sum[a] += v
                touched.add(a)
        ix.refresh_centroids(sorted(touched))
    else:
        for tids in new_tids:
            for t in tids:
                ix.own_count[t] += 1
    ix.last_rowid = max(ix.last_rowid, max(r for r, _, _ in rows))
    ix.sync_views()


def add_topics(ix: ScopeIndex, names: list[str]) -> None:
    """New Topic nodes `names` (parents before children) at the end of `ix`'s node arrays, empty."""
    for name in names:  # topic_chain order: a parent is always added before its children
        ix.topic_ids[name] = len(ix.topic_names)
        ix.topic_names.append(name)
        parent = graph.topic_parent(name)
        ix.topic_parent.append(ix.topic_ids[parent] if parent else -1)
        ix.topic_words.append(_topic_words(name))
        for w in ix.topic_words[-1]:
            ix.topic_by_word.setdefault(w, []).append(ix.topic_ids[name])
        ix.link_members.append(_EMPTY)
    k = len(names)
    ix.own_range = np.vstack([ix.own_range, np.zeros((k, 2), np.int64)])
    ix.subtree_range = np.vstack([ix.subtree_range, np.zeros((k, 2), np.int64)])
    ix.has_members = np.concatenate([ix.has_members, np.zeros(k, bool)])
    ix.own_count = np.concatenate([ix.own_count, np.zeros(k, np.int64)])
    if ix.own_sum is not None:
        dim = ix.own_sum.shape[1]
        ix.own_sum = np.vstack([ix.own_sum, np.zeros((k, dim))])
        ix.sub_sum = np.vstack([ix.sub_sum, np.zeros((k, dim))])
        ix.centroids = np.vstack([ix.centroids, np.zeros((k, dim), np.float32)])


def index_keys(
    ix: ScopeIndex, idx: int, item: MemoryItem, meta: ItemMeta, primary: int, add: Any = None
) -> dict[str, Any]:
    """Entity, slot and task membership of one item at position `idx` (primary Topic `primary`);
    returns its entity-key, slot and value columns. `add(members, key, idx)` defaults to appending
    to the key's array (a build collects and converts them once)."""
    add = add or _push
    ents = graph.item_entities(item)
    for key, name in ents.items():
        if key not in ix.entity_members:
            ix.entity_names[key] = name
            joined = " ".join(graph.words(key))
            ix.entity_by_words.setdefault(joined, []).append(key)
            ix.entity_max_words = min(4, max(ix.entity_max_words, len(joined.split())))
        add(ix.entity_members, key, idx)
        ix.entity_topics.setdefault(key, set()).add(primary)
    sk = graph.slot_key(item.slot) if item.slot else ""
    if sk:
        add(ix.slot_members, sk, idx)
        if ":" in sk:  # "artifact:report.pdf" also answers to an argument named "report.pdf"
            add(ix.slot_members, sk.split(":", 1)[1], idx)
    if meta.task_id:
        add(ix.task_members, meta.task_id, idx)
    return {"item_entity_keys": tuple(ents), "item_slot": sk, "item_value": item.value.strip().lower()}


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
    """The per-item columns `index_keys` does not fill."""
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
