"""`StoreMemory`: every memory kind (structured, flat, and the two mixed ablations) over one store.

The kinds differ only in which retriever serves each layer; the records, provenance, times,
conditions, write pipeline and store are identical, so an ablation changes organisation at
retrieval time and nothing else:

    kind           user layer  project layer   paper row
    structured     graph       graph           Full
    flat           flat        flat            Flat Memory
    flat_user      graph       flat            Flat + User (structured user memory, flat project)
    flat_project   flat        graph           Flat + Project (flat user memory, structured project)

Construct through `pulse.memory.open_memory(kind, root, embedder)`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem, RecordError
from pulse.memory import graph, scope_index
from pulse.memory.candidates import Candidate, select
from pulse.memory.embedders.base import Embedder
from pulse.memory.interface import (
    ItemMeta,
    MemoryStoreError,
    MissingRecordError,
    RetrievalQuery,
    ScoredItem,
    UnknownScopeError,
)
from pulse.memory.query_features import QueryFeatures, features, query_text
from pulse.memory.retrieval_flat import FlatRetriever
from pulse.memory.retrieval_graph import GraphRetriever
from pulse.memory.scope_build import build_scope_index, embed_with_cache
from pulse.memory.scope_compaction import catch_up
from pulse.memory.scope_index import ScopeIndex
from pulse.memory.store import MemoryStore, text_hash
from pulse.memory.timeutil import check_time, parse_time, utc_now
from pulse.memory.wal_checkpoint import DEFAULT_SYNC
from pulse.memory.writer import Conversation

Retriever = GraphRetriever | FlatRetriever


class StoreMemory:
    """Implements `pulse.memory.interface.Memory` on a SQLite memory root."""

    def __init__(
        self,
        root: str | Path,
        embedder: Embedder,
        user_retriever: Retriever,
        project_retriever: Retriever,
        kind: str = "custom",
        clock: Callable[[], str] = utc_now,
        create: bool = True,
        auto_create_scopes: bool = False,
        query_cache_size: int = 4096,
        index_cache_size: int = 512,
        sync: str = DEFAULT_SYNC,
    ):
        self.kind = kind
        # False: an unknown user/project is an error everywhere (catches typos). True: conversations
        # create it and reads of it return nothing (an evaluation whose first task starts a project).
        self.auto_create_scopes = auto_create_scopes
        # "background": commits fsync off the commit path; "commit": each commit fsyncs (store.py)
        self.store = MemoryStore(root, create=create, sync=sync)
        self.embedder = embedder
        self.user_retriever = user_retriever
        self.project_retriever = project_retriever
        self.clock = clock
        # scope -> index, least recently used first; at most `index_cache_size` are kept (a store of
        # thousands of users keeps the ones in use; an evicted scope is rebuilt on its next query)
        self._indexes: OrderedDict[str, ScopeIndex] = OrderedDict()
        self.index_cache_size = index_cache_size
        # the agent runtime retrieves from a worker thread while the main thread may commit
        self._ix_lock = threading.RLock()
        self._data_version = self.store.data_version()
        # query text -> encoding (see encode_query); 0 disables the cache
        self.query_cache_size = query_cache_size
        self._qcache: OrderedDict[str, Any] = OrderedDict()
        self._qcache_lock = threading.Lock()
        self.query_cache_hits = 0
        # seconds spent in the last retrieve(): query embedding forward vs everything else
        self.last_timing: dict[str, float] = {}

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> StoreMemory:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def now(self) -> str:
        return self.clock()

    # ------------------------------------------------------------------ scopes
    def create_user(self, user_id: str) -> None:
        self._create_scope(f"user:{user_id}")

    def create_project(self, project_id: str) -> None:
        self._create_scope(f"project:{project_id}")

    def _create_scope(self, scope: str) -> None:
        if not scope.split(":", 1)[1]:
            raise MemoryStoreError(f"empty id in scope {scope!r}")
        with self.store.transaction() as db:
            self.store.ensure_scope(db, scope, self.now())

    def users(self) -> list[str]:
        return [s.split(":", 1)[1] for s in self.store.scopes("user:")]

    def projects(self) -> list[str]:
        return [s.split(":", 1)[1] for s in self.store.scopes("project:")]

    def require_scopes(self, user_id: str, project_id: str = "", create: bool = False) -> list[str]:
        """The scopes of a query/conversation; an unknown user or project is one clear error."""
        if not user_id:
            raise UnknownScopeError("no user id given")
        out = [f"user:{user_id}"] + ([f"project:{project_id}"] if project_id else [])
        if create:
            missing = [s for s in out if not self.store.has_scope(s)]
            if missing:
                with self.store.transaction() as db:
                    for s in missing:
                        self.store.ensure_scope(db, s, self.now())
            return out
        out = [f"user:{user_id}"]
        if not self.store.has_scope(out[0]):
            raise UnknownScopeError(
                f"unknown user {user_id!r} in memory root {self.store.root} "
                f"(known users: {', '.join(self.users()[:10]) or 'none'})"
            )
        if project_id:
            out.append(f"project:{project_id}")
            if not self.store.has_scope(out[1]):
                raise UnknownScopeError(
                    f"unknown project {project_id!r} in memory root {self.store.root} "
                    f"(known projects: {', '.join(self.projects()[:10]) or 'none'})"
                )
        return out

    # ------------------------------------------------------------------ indexes
    def _fresh(self) -> None:
        """Bring indexes up to date with other processes' commits (they change SQLite's data_version)."""
        dv = self.store.data_version()
        if dv != self._data_version:
            with self._ix_lock:
                self._data_version = dv
                gens = self.store.generations()
                scopes = [s for s, ix in self._indexes.items() if gens.get(s) != ix.generation]
                for scope in scopes:
                    self._catch_up(scope, gens.get(scope, 0))
            self.advance_compactions(scope_index.COMPACT_READ_STEP_S, scopes)

    def index(self, scope: str) -> ScopeIndex:
        with self._ix_lock:
            ix = self._indexes.get(scope)
            if ix is None:
                gen = self.store.generations().get(scope, 0)
                ix = build_scope_index(self.store, self.embedder, scope, gen)
                self._indexes[scope] = ix
                while len(self._indexes) > max(self.index_cache_size, 1):
                    self._indexes.popitem(last=False)
            else:
                self._indexes.move_to_end(scope)
            return ix

    def _catch_up(self, scope: str, generation: int) -> None:
        self._indexes[scope] = catch_up(self._indexes[scope], self.store, self.embedder, generation)

    def invalidate(self, scopes: set[str]) -> None:
        """After a commit to `scopes`: built indexes take in the new rows (cost of those rows only),
        and pending compactions of the scopes caught up advance by one step (`COMPACT_STEP_S`)."""
        caught: list[str] = []
        with self._ix_lock:
            self._data_version = self.store.data_version()
            gens = self.store.generations()
            # `scopes` changed generation; so did any scope another process committed to meanwhile
            for s, ix in list(self._indexes.items()):
                if gens.get(s) != ix.generation:
                    self._catch_up(s, gens.get(s, 0))
                    caught.append(s)
        self.advance_compactions(scope_index.COMPACT_STEP_S, caught)

    def advance_compactions(self, budget_s: float | None = None, scopes: Sequence[str] | None = None) -> int:
        """Advance the pending compactions of `scopes` (default: every cached scope) by about
        `budget_s` of work each (None: to the end); returns how many were swapped in.

        The build works on a private snapshot, outside the index lock, so readers go on meanwhile
        with the current index; copying the rows committed since the snapshot and the swap happen
        under the lock, in slices, so a reader sees the old index or the finished one, never a
        half-built one. A thread that finds another one stepping a compaction leaves it alone.
        """
        swapped = 0
        for scope in list(self._indexes) if scopes is None else scopes:
            ix = self._indexes.get(scope)
            comp = ix.compaction if ix is not None else None
            if comp is None or not comp.lock.acquire(blocking=False):
                continue
            try:
                if not comp.built:
                    if not comp.build_step(budget_s) or budget_s is not None:
                        continue  # built in this step: the copy is the next step's work
                with self._ix_lock:
                    if self._indexes.get(scope) is not ix:  # evicted or replaced meanwhile: drop it
                        ix.compaction = None
                        continue
                    new = comp.copy_step(budget_s)
                    if new is not None:
                        ix.compaction = None
                        self._indexes[scope] = new
                        swapped += 1
            finally:
                comp.lock.release()
        return swapped

    def embed_cached(self, texts: list[str]) -> dict[str, Any]:
        return embed_with_cache(self.store, self.embedder, texts)

    # ------------------------------------------------------------------ retrieval
    def encode_query(self, query: RetrievalQuery) -> Any:
        """The query's encoding; repeated query texts (the same subgoal, entity and call keys, which
        a task re-triggers step after step) are served from a small LRU cache instead of re-embedded."""
        text = query_text(query)
        with self._qcache_lock:
            hit = self._qcache.get(text)
            if hit is not None:
                self._qcache.move_to_end(text)
                self.query_cache_hits += 1
                return hit
        enc = self.embedder.encode_query(text)
        with self._qcache_lock:
            self._qcache[text] = enc
            if len(self._qcache) > self.query_cache_size:
                self._qcache.popitem(last=False)
        return enc

    def _known(self, user_id: str, project_id: str) -> bool:
        """False only when auto_create_scopes lets a read of an unknown scope return nothing."""
        if not self.auto_create_scopes:
            self.require_scopes(user_id, project_id)
            return True
        return self.store.has_scope(f"user:{user_id}") and (
            not project_id or self.store.has_scope(f"project:{project_id}")
        )

    def retrieve(self, query: RetrievalQuery) -> list[ScoredItem]:
        t0 = time.perf_counter()
        if not self._known(query.user_id, query.project_id):
            return []
        qrep = self.encode_query(query)
        t1 = time.perf_counter()
        out = self.retrieve_encoded(query, qrep)
        self.last_timing = {"embed_s": t1 - t0, "search_s": time.perf_counter() - t1}
        return out

    def retrieve_encoded(
        self, query: RetrievalQuery, qrep: Any, feats: QueryFeatures | None = None
    ) -> list[ScoredItem]:
        """Retrieval with the query already encoded (benchmarks time the embedding forward apart)."""
        self._fresh()
        scopes = [f"user:{query.user_id}"] + ([f"project:{query.project_id}"] if query.project_id else [])
        if any(sc not in self._indexes for sc in scopes) and not self._known(query.user_id, query.project_id):
            return []
        f = feats or features(query)
        delivered = set(query.delivered)
        cands: list[Candidate] = []
        with self._ix_lock:  # a commit on another thread updates indexes in place
            for scope in scopes:
                retriever = self.user_retriever if scope.startswith("user:") else self.project_retriever
                cands.extend(
                    retriever.candidates(self.index(scope), qrep, f, query.task_id, delivered, query.k)
                )
        return select(cands, query.k)

    # ------------------------------------------------------------------ reading
    def snapshot(self, user_id: str, project_id: str = "", as_of: str = "") -> list[MemoryItem]:
        """Every record known at `as_of` (all versions, oldest first), as it looked then."""
        return [item for item, _ in self.snapshot_with_meta(user_id, project_id, as_of)]

    def snapshot_with_meta(
        self, user_id: str, project_id: str = "", as_of: str = ""
    ) -> list[tuple[MemoryItem, ItemMeta]]:
        from pulse.memory.candidates import as_seen

        t = parse_time(as_of, "as_of") if as_of else None
        out: list[tuple[MemoryItem, ItemMeta]] = []
        if not self._known(user_id, project_id):
            return out
        for scope in self.require_scopes(user_id, project_id):
            for item, meta, _ in self.store.scope_items(scope):
                if t is not None and item.valid_from and parse_time(item.valid_from) > t:
                    continue
                out.append((as_seen(item, t), meta))
        return out

    def get(self, item_id: str) -> MemoryItem:
        got = self.store.get(item_id)
        if got is None:
            raise MissingRecordError(f"no record {item_id!r} in {self.store.path}")
        return got[0]

    # ------------------------------------------------------------------ writing
    def conversation(
        self, user_id: str, project_id: str = "", conversation_id: str = "", extract: bool = True
    ) -> Conversation:
        """A writer for one conversation; its commit (pulse/memory/writer.py) plans and writes through
        this memory's store and lookups (`writer.WriteTarget`) and never calls back into anything else."""
        self.require_scopes(user_id, project_id, create=self.auto_create_scopes)
        return Conversation(self, user_id, project_id, conversation_id, extract_candidates=extract)

    def add_items(self, items: Sequence[MemoryItem], meta: dict[str, ItemMeta] | None = None) -> None:
        """Bulk-load validated records (a generated world, an import) in one transaction.

        Scopes are created as needed. Re-adding an identical record is a no-op; a different record
        under an existing id is an error. A record with `supersedes` needs its target (in the batch
        or the store, same scope); an open target gets `valid_to` = the new record's `valid_from`.
        """
        meta = meta or {}
        items = list(items)
        ids = [i.item_id for i in items]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise MemoryStoreError(f"add_items: item_id {dup!r} appears twice in the batch")
        for item in items:
            for field_name in ("valid_from", "valid_to"):
                try:
                    check_time(getattr(item, field_name), f"memory item {item.item_id}: {field_name}")
                except ValueError as e:
                    raise RecordError(str(e)) from None
            if item.valid_from and item.valid_to and parse_time(item.valid_to) < parse_time(item.valid_from):
                raise RecordError(
                    f"memory item {item.item_id}: valid_to {item.valid_to!r} is before valid_from "
                    f"{item.valid_from!r}"
                )
        batch = {i.item_id: i for i in items}
        acyclic: set[str] = set()
        for item in items:  # supersession inside the batch must not loop (a -> b -> a)
            path: list[str] = []
            cur: MemoryItem | None = item
            while cur is not None and cur.item_id not in acyclic:
                if cur.item_id in path:
                    raise MemoryStoreError(
                        f"add_items: record {cur.item_id} is in a supersession cycle "
                        f"({' -> '.join(path[path.index(cur.item_id) :] + [cur.item_id])})"
                    )
                path.append(cur.item_id)
                cur = batch.get(cur.supersedes) if cur.supersedes else None
            acyclic.update(path)
        existing = self.store.get_many(ids)
        fresh: list[MemoryItem] = []
        for item in items:
            if item.item_id in existing:
                old, old_meta, _ = existing[item.item_id]
                # identical, or identical except that a later revision has since ended it
                same = replace(old, valid_to="") == replace(item, valid_to="") and item.valid_to in (
                    "",
                    old.valid_to,
                )
                if not same or old_meta != meta.get(item.item_id, ItemMeta()):
                    raise MemoryStoreError(
                        f"record {item.item_id} already exists in {self.store.path} with different "
                        f"content; a revision needs a new item_id with supersedes={item.item_id!r}"
                    )
                continue
            fresh.append(item)
        by_id = {i.item_id: i for i in fresh}
        targets = self.store.get_many(
            [i.supersedes for i in fresh if i.supersedes and i.supersedes not in by_id]
        )
        for item in fresh:
            if item.supersedes:
                target = by_id.get(item.supersedes) or (
                    targets[item.supersedes][0] if item.supersedes in targets else None
                )
                if target is None:
                    raise MissingRecordError(
                        f"record {item.item_id} supersedes {item.supersedes!r}, which does not "
                        f"exist in the batch or in {self.store.path}"
                    )
                if target.scope != item.scope:
                    raise MemoryStoreError(
                        f"record {item.item_id} ({item.scope}) cannot supersede {target.item_id} "
                        f"({target.scope}): revisions stay in their scope"
                    )
        texts = [graph.embed_text(i) for i in fresh]
        vecs = self.embed_cached(texts)
        now = self.now()
        scopes = {i.scope for i in fresh}
        with self.store.transaction() as db:
            for s in scopes:
                self.store.ensure_scope(db, s, now)
            for item in fresh:
                self.store.insert_item(db, item, meta.get(item.item_id, ItemMeta()))
            for item in fresh:
                if item.supersedes:
                    end = item.valid_from or now
                    self.store.end_validity(db, item.supersedes, end)
            if self.embedder.dense and fresh:
                self.store.put_vectors(
                    db, self.embedder.embedder_id, texts, np.stack([vecs[text_hash(t)] for t in texts])
                )
            self.store.bump(db, scopes)
        self.invalidate(scopes)

    def revise(self, item_id: str, new_item: MemoryItem, meta: ItemMeta | None = None) -> MemoryItem:
        """Operator-level revision: `new_item` supersedes the current record `item_id` (never overwrites)."""
        got = self.store.get(item_id)
        if got is None:
            raise MissingRecordError(
                f"cannot revise record {item_id!r}: it does not exist in {self.store.path}"
            )
        old = got[0]
        if old.valid_to:
            raise MemoryStoreError(
                f"cannot revise record {item_id!r}: it was already superseded at {old.valid_to}"
            )
        new_item = replace(new_item, supersedes=item_id, valid_from=new_item.valid_from or self.now())
        if parse_time(new_item.valid_from) < parse_time(old.valid_from or new_item.valid_from):
            raise MemoryStoreError(
                f"revision {new_item.item_id} at {new_item.valid_from} predates record {item_id} "
                f"(valid from {old.valid_from})"
            )
        self.add_items([new_item], {new_item.item_id: meta} if meta else None)
        return new_item

    # ------------------------------------------------------------------ lookups for writer.WriteTarget
    def infer_topic(self, item: MemoryItem, vec: Any = None) -> str:
        """The Topic of the most similar current fact in the item's scope, else "general".
        `vec`: the item's vector when the caller has it (dense embedders), saving a forward pass."""
        if not self.store.has_scope(item.scope):
            return graph.GENERAL_TOPIC
        ix = self.index(item.scope)
        if not len(ix):
            return graph.GENERAL_TOPIC
        if ix.vectors is not None:
            q = vec if vec is not None else self.embedder.encode_query(graph.embed_text(item))
            idx = ix.probe(q)
            s = np.where(ix.vt[idx] == np.inf, ix.dot(idx, q), -np.inf)
        else:
            idx = np.arange(len(ix))
            s = np.where(
                ix.vt == np.inf, ix.scores.scores(self.embedder.encode_query(graph.embed_text(item))), -np.inf
            )
        best = int(np.argmax(s))
        return (
            ix.items[int(idx[best])].topic or graph.GENERAL_TOPIC if s[best] >= 0.35 else graph.GENERAL_TOPIC
        )

    def link_entities(self, item: MemoryItem) -> tuple[str, ...]:
        """Known entities of the scope that the fact's text names (one identity across Topics)."""
        if not self.store.has_scope(item.scope):
            return ()
        ix = self.index(item.scope)
        return tuple(
            ix.entity_names[k]
            for k in ix.match_entities(graph.words(item.text), set())
            if not k.startswith("tool:")
        )

    def near_duplicate(self, item: MemoryItem, meta: ItemMeta, vec: Any, threshold: float = 0.95) -> str:
        """Id of a current same-kind, slotless fact whose sentence is nearly identical, else ""."""
        if vec is None or item.slot or not self.store.has_scope(item.scope):
            return ""
        ix = self.index(item.scope)
        if ix.vectors is None or not len(ix):
            return ""
        idx = ix.probe(vec)
        sims = ix.dot(idx, vec)
        close = np.flatnonzero(sims >= threshold)  # few: check the record conditions on those only
        ok = [
            j
            for j in close.tolist()
            if ix.vt[idx[j]] == np.inf
            and not ix.has_slot[idx[j]]
            and ix.kinds[idx[j]] == item.kind
            and ix.task_ids[idx[j]] == meta.task_id
        ]
        return ix.items[int(idx[max(ok, key=lambda j: sims[j])])].item_id if ok else ""
