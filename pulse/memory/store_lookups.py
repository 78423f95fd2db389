"""What the write path asks of a `StoreMemory`'s scope indexes while it plans a conversation's commit
(the lookups of `writer.WriteTarget`, pulse/memory/writer.py): a new fact's Topic, the known entities
its text names, and a current fact it nearly repeats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory import graph
from pulse.memory.embedders.base import Embedder
from pulse.memory.interface import ItemMeta
from pulse.memory.scope_index import ScopeIndex
from pulse.memory.store import MemoryStore


class WriteLookups:
    """The index lookups of `writer.WriteTarget`, one part of `StoreMemory` (which provides `store`,
    `embedder` and `index(scope)`, pulse/memory/store_indexes.py). Each reads the current records of
    the item's scope and answers "nothing" (the general Topic, no entities, "") for an unknown scope.
    """

    store: MemoryStore
    embedder: Embedder
    index: Callable[[str], ScopeIndex]

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
