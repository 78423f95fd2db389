"""Flat top-k retrieval (the paper's Flat Memory ablation).

The same records (text, provenance, times, conditions) with no Topics, entities or slots: rank every
record the cutoff allows by similarity to the query with the same embedder, return the top k.
Flat memory knows when a record was written (`valid_from` <= cutoff) but has no revision structure,
so by default superseded versions stay in the ranking with their validity shown — that is exactly
what the ablation removes. Task-scoped records stay in their task (that is a visibility rule, not
structure).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pulse.memory.candidates import Candidate, as_seen
from pulse.memory.query_features import QueryFeatures
from pulse.memory.scope_index import ScopeIndex


@dataclass(frozen=True)
class FlatRetrievalConfig:
    # True drops superseded versions (a flat store that still honours valid_to); False = the ablation.
    hide_superseded: bool = False


class FlatRetriever:
    name = "flat"

    def __init__(self, config: FlatRetrievalConfig | None = None):
        self.config = config or FlatRetrievalConfig()

    def candidates(self, ix: ScopeIndex, qrep: Any, f: QueryFeatures, task_id: str, delivered: set[str],
                   k: int) -> list[Candidate]:
        n = len(ix)
        if n == 0:
            return []
        valid = ix.valid_mask(f.as_of, task_id, current_only=self.config.hide_superseded)
        raw = np.asarray(ix.scores.scores(qrep), np.float32)
        final = np.where(valid, raw, np.float32(-np.inf))
        top_n = min(n, k)
        idx = np.argpartition(-final, top_n - 1)[:top_n] if top_n < n else np.arange(n)
        idx = idx[np.argsort(-final[idx])]
        return [Candidate(score=float(final[i]), item=as_seen(ix.items[i], f.as_of),
                          reason=f"flat top-{k}: similarity {final[i]:.2f}" +
                                 ("; superseded version" if ix.items[i].valid_to and f.as_of is None else ""),
                          delivered=False)
                for i in idx.tolist() if np.isfinite(final[i])]
