"""A valid memory snapshot for one decision point: the task's memory plus distractors.

The snapshot always holds every fact about the task's slots (current preferences, their superseded
versions, habits), so the gold label computed from it is the label the full memory implies.
Distractors come from other slots of the same topic, other topics and profile attributes; a fact
from another topic whose slot name equals a task slot (a dining `budget` in a shopping task) is
left out, because the compact prompt groups memory by slot name only and would show it as if it
were about this task. Ids "m1".."mN" are assigned after shuffling, so ids carry no role.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from data_gen.world.memory_items import to_memory_items
from data_gen.world.preferences import UserFact
from pulse.core.records import MemoryItem


@dataclass(frozen=True)
class SnapshotPool:
    """Precomputed per task group: the facts that must be in and the distractor units."""

    task_facts: tuple[UserFact, ...]
    distractor_units: tuple[tuple[UserFact, ...], ...]  # a revised pair travels together


def snapshot_pool(facts: Sequence[UserFact], topic: str, task_slots: Sequence[str]) -> SnapshotPool:
    task = tuple(f for f in facts if f.topic == topic and f.slot in task_slots)
    units: dict[tuple[str, str], list[UserFact]] = {}
    for f in facts:
        if f.slot not in task_slots:
            units.setdefault((f.topic, f.slot), []).append(f)
    return SnapshotPool(task, tuple(tuple(u) for u in units.values()))


def assemble_snapshot(
    pool: SnapshotPool,
    rng: random.Random,
    scope: str,
    min_items: int,
    max_items: int,
    topic_labels: Mapping[str, str] | None = None,
) -> tuple[MemoryItem, ...]:
    chosen = list(pool.task_facts)
    target = rng.randint(max(min_items, len(chosen)), max(max_items, len(chosen)))
    for unit in rng.sample(pool.distractor_units, len(pool.distractor_units)):
        if len(chosen) + len(unit) <= target:
            chosen.extend(unit)
        if len(chosen) >= target:
            break
    rng.shuffle(chosen)
    ids = {f.key: f"m{i + 1}" for i, f in enumerate(chosen)}
    return to_memory_items(chosen, ids, scope, topic_labels)
