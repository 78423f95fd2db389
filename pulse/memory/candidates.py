"""Per-scope retrieval candidates and the merge step every retriever shares.

Retrievers score each scope on its own (a user and a project never mix inside one index), then
`select` merges them: information gain drops items already delivered in this episode unless nothing
new qualifies, and the top k by score are returned with their reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pulse.core.records import MemoryItem
from pulse.memory.interface import ScoredItem
from pulse.memory.timeutil import parse_time


@dataclass(frozen=True)
class Candidate:
    """One scored item of one scope before the merge: its score, the item and the reason (each possibly a
    callable worked out only if selected), and whether it was already delivered in this episode."""

    score: float
    # callables are only worked out for the candidates selected (an index keeps its records packed)
    item: MemoryItem | Callable[[], MemoryItem]
    reason: str | Callable[[], str]
    delivered: bool

    def record(self) -> MemoryItem:
        """The memory item (calling the deferred callable if there is one)."""
        return self.item() if callable(self.item) else self.item

    def why(self) -> str:
        """The reason text (calling the deferred callable if there is one)."""
        return self.reason() if callable(self.reason) else self.reason


def as_seen(item: MemoryItem, as_of: float | None) -> MemoryItem:
    """The record as it looked at the cutoff: a revision after `as_of` had not ended it yet."""
    if as_of is not None and item.valid_to and parse_time(item.valid_to) > as_of:
        return replace(item, valid_to="")
    return item


def seen_at(items: Sequence[MemoryItem], i: int, as_of: float | None) -> MemoryItem:
    """Record i as seen at the cutoff: a `Candidate.item` is `partial(seen_at, ix.items, i, as_of)`, made
    only if the candidate is selected (an index keeps its records packed)."""
    return as_seen(items[i], as_of)


def select(cands: list[Candidate], k: int) -> list[ScoredItem]:
    """Merge candidates into the top `k` scored items, best first: those not yet delivered if any, else all of
    them, with "already delivered" added to their reason."""
    fresh = [c for c in cands if not c.delivered]
    pool = fresh if fresh else [c for c in cands]
    pool.sort(key=lambda c: -c.score)
    out = []
    for c in pool[:k]:
        reason = c.why() if not c.delivered else c.why() + "; already delivered (nothing new qualifies)"
        out.append(ScoredItem(item=c.record(), score=round(float(c.score), 6), reason=reason))
    return out
