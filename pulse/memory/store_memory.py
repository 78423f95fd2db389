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

Its parts: scopes, retrieval, reading and writing (here), the scope indexes and query cache
(`ScopeIndexes`, store_indexes.py), the write path's index lookups (`WriteLookups`, store_lookups.py),
a bulk load's checks (store_batch.py) and the store itself (`MemoryStore`, store.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory import graph
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
from pulse.memory.query_features import QueryFeatures, features
from pulse.memory.retrieval_flat import FlatRetriever
from pulse.memory.retrieval_graph import GraphRetriever
from pulse.memory.store import MemoryStore, text_hash
from pulse.memory.store_batch import check_batch, check_targets, new_records
from pulse.memory.store_indexes import ScopeIndexes
from pulse.memory.store_lookups import WriteLookups
from pulse.memory.timeutil import parse_time, utc_now
from pulse.memory.wal_checkpoint import DEFAULT_SYNC
from pulse.memory.writer import Conversation

Retriever = GraphRetriever | FlatRetriever


class StoreMemory(ScopeIndexes, WriteLookups):
    """Implements `pulse.memory.interface.Memory` on a SQLite memory root.

    Args: the memory `root`, the `embedder`, the retrievers of the user and the project layer (the
    memory kind, module docstring), the `clock`, `create` (False: a missing store is an error),
    `auto_create_scopes`, the cache sizes and the store's `sync` mode. Reads and retrieval of an
    unknown user or project raise `UnknownScopeError` (unless `auto_create_scopes`: they return
    nothing); writes go through `conversation()` (pulse/memory/writer.py) or `add_items()`.
    """

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
        self._init_caches(index_cache_size, query_cache_size)
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

    # ------------------------------------------------------------------ retrieval
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
        t = parse_time(as_of, "as_of") if as_of else None
        out: list[tuple[MemoryItem, ItemMeta]] = []
        if not self._known(user_id, project_id):
            return out
        for scope in self.require_scopes(user_id, project_id):
            out.extend(self._scope_seen(scope, t))
        return out

    def scope_snapshot(self, scope: str, as_of: str = "") -> list[MemoryItem]:
        """Every record of one scope ("project:<id>") known at `as_of` (all versions, oldest first), as it
        looked then; [] for an unknown scope. Cheaper than `snapshot` when only that scope matters
        (the project's decisions at the start of a task: the user's scope may hold far more)."""
        if not self.store.has_scope(scope):
            return []
        t = parse_time(as_of, "as_of") if as_of else None
        return [item for item, _ in self._scope_seen(scope, t)]

    def _scope_seen(self, scope: str, t) -> list[tuple[MemoryItem, ItemMeta]]:
        from pulse.memory.candidates import as_seen

        return [
            (as_seen(item, t), meta)
            for item, meta, _ in self.store.scope_items(scope)
            if t is None or not item.valid_from or parse_time(item.valid_from) <= t
        ]

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
        Raises RecordError (bad times) or MemoryStoreError / MissingRecordError, and then writes nothing.
        """
        meta = meta or {}
        items = list(items)
        check_batch(items)
        fresh = new_records(self.store, items, meta)
        check_targets(self.store, fresh)
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
