"""The in-memory caches of a `StoreMemory` (pulse/memory/store_memory.py): one retrieval index per
scope (built from the store on first use, kept up to date with every commit, this process's or
another's, and compacted in small steps) and the encodings of recent query texts.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from pulse.memory import scope_index
from pulse.memory.embedders.base import Embedder
from pulse.memory.interface import RetrievalQuery
from pulse.memory.query_features import query_text
from pulse.memory.scope_build import build_scope_index, embed_with_cache
from pulse.memory.scope_compaction import catch_up
from pulse.memory.scope_index import ScopeIndex
from pulse.memory.store import MemoryStore


class ScopeIndexes:
    """The scope indexes and the query cache, one part of `StoreMemory` (which provides `store` and
    `embedder` and calls `_init_caches` from its constructor).

    `index(scope)` is the scope's current index (least recently used ones beyond `index_cache_size`
    are dropped, rebuilt on their next use); `invalidate(scopes)` takes in a commit; `_fresh()` takes
    in other processes' commits; `advance_compactions()` steps pending compactions;
    `encode_query(query)` is the query's encoding, from an LRU cache of `query_cache_size` texts.
    Thread-safe: retrieval may run on a worker thread while another thread commits.
    """

    store: MemoryStore
    embedder: Embedder

    def _init_caches(self, index_cache_size: int, query_cache_size: int) -> None:
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
