"""Flat top-k retrieval (the paper's Flat Memory ablation).

The same records (text, provenance, times, conditions) with no Topics, entities or slots: rank every
record the cutoff allows by similarity to the query with the same embedder, return the top k *among
records that have some similarity to the query* (score > `min_similarity`). Without that floor a
top-k retriever pads its answer with records that share nothing with the query (BM25 score 0), which
delivers unrelated preferences to the task agent by accident; fewer than k records come back when
fewer are similar, and none when nothing is.
Plain top-k: the episode's delivery log (`RetrievalQuery.delivered`) is not consulted, so a record
delivered before is returned again whenever it ranks (the structured retriever's information-gain
step is part of what the ablation removes).
Flat memory knows when a record was written (`valid_from` <= cutoff) but has no revision structure,
so by default superseded versions stay in the ranking with their validity shown — that is exactly
what the ablation removes. Task-scoped records stay in their task (that is a visibility rule, not
structure).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from pulse.memory.candidates import Candidate, seen_at
from pulse.memory.query_features import QueryFeatures
from pulse.memory.scope_index import ScopeIndex
from pulse.utils.topk import top_k


@dataclass(frozen=True)
class FlatRetrievalConfig:
    """The flat retriever's knobs: whether superseded versions are hidden, the similarity floor."""

    # True drops superseded versions (a flat store that still honours valid_to); False = the ablation.
    hide_superseded: bool = False
    # A record is returned only if its similarity to the query is strictly above this (the
    # embedder's scale: BM25 scores are divided by the best score, so in [0, 1], and 0 means no
    # query term in common; cosines for dense embedders). 0.0 = "any similarity at all". Dense
    # embedders give unrelated sentences small positive cosines (MiniLM: ~0.0-0.2), so a
    # deployment on them should raise it, e.g. to 0.2.
    min_similarity: float = 0.0


class FlatRetriever:
    """Flat top-k retrieval (the module docstring) with the same `candidates(...)` interface as
    `GraphRetriever`: the k most similar valid records (score > `min_similarity`), best first."""

    name = "flat"

    def __init__(self, config: FlatRetrievalConfig | None = None):
        self.config = config or FlatRetrievalConfig()

    def candidates(
        self, ix: ScopeIndex, qrep: Any, f: QueryFeatures, task_id: str, delivered: set[str], k: int
    ) -> list[Candidate]:
        """The k most similar valid records of one scope as candidates, best first (empty if none scores above
        `min_similarity`)."""
        n = len(ix)
        if n == 0:
            return []
        valid = ix.valid_mask(f.as_of, task_id, current_only=self.config.hide_superseded)
        raw = np.asarray(ix.scores.scores(qrep), np.float32)
        final = np.where(valid & (raw > self.config.min_similarity), raw, np.float32(-np.inf))
        top_n = min(n, k)
        idx = top_k(final, top_n)
        return [
            Candidate(
                score=float(final[i]),
                item=partial(seen_at, ix.items, i, f.as_of),
                reason=f"flat top-{k}: similarity {final[i]:.2f}"
                + ("; superseded version" if ix.vt[i] != np.inf and f.as_of is None else ""),
                delivered=False,
            )
            for i in idx.tolist()
            if np.isfinite(final[i])
        ]
