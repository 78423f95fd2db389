"""Turn `UserFact`s into `pulse.core.records.MemoryItem`s with snapshot-local ids.

Ids are short ("m1".."m12") and unique within one snapshot; they are assigned in a shuffled order
by the caller so that an id says nothing about an item's role. A superseded version keeps its
valid_to, and the revising item names it in `supersedes` (DESIGN: a revision never overwrites).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from data_gen.world.preferences import UserFact
from pulse.core.records import MemoryItem, Provenance


def fact_text(fact: UserFact, topic_label: str) -> str:
    """One readable sentence (shown by the rich prompt)."""
    slot = fact.slot.replace("_", " ")
    if fact.kind == "attribute":
        return f"{slot}: {fact.value}"
    if fact.kind == "habit":
        return f"{topic_label}: usually {slot} {fact.value} (an observed habit, not a stated requirement)"
    if not fact.is_current:
        return f"{topic_label}: preferred {slot} {fact.value} until {fact.valid_to[:10]}"
    return f"{topic_label}: prefers {slot} {fact.value}"


def to_memory_items(
    facts: Sequence[UserFact],
    ids: Mapping[str, str],
    scope: str,
    topic_labels: Mapping[str, str] | None = None,
) -> tuple[MemoryItem, ...]:
    """`ids` maps fact key -> item id; a `supersedes` key missing from `ids` is dropped."""
    labels = topic_labels or {}
    return tuple(
        MemoryItem(
            item_id=ids[f.key],
            kind=f.kind,
            scope=scope,
            text=fact_text(f, labels.get(f.topic, f.topic)),
            slot=f.slot,
            value=f.value,
            topic=f.topic,
            entities=(f.value,),
            provenance=Provenance(f.source_kind, f.source_id, f.quote),  # type: ignore[arg-type]
            valid_from=f.valid_from,
            valid_to=f.valid_to,
            supersedes=ids.get(f.supersedes, ""),
        )
        for f in facts
    )
