"""Three-level tasks (Persona2Web §3.1): one task group, one set of gold slot values, three requests.

- L1 fully ambiguous: every slot is "my usual <slot>" (IMPLICIT).
- L2 values given: slot values explicit, except website/location (`hidden_until_l3`) still implicit.
- L3 everything explicit, website and location included.

A request's `args` map each slot to its value, to `IMPLICIT` ("?"), or leave it out (the request
does not mention the slot); `pulse.core.statements.parse_statement` recovers exactly this from the
rendered text.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from data_gen.world.domains import DomainSpec
from data_gen.world.personas import Persona
from data_gen.world.preferences import UserFact
from pulse.core.statements import IMPLICIT

LEVELS: tuple[int, ...] = (1, 2, 3)


@dataclass(frozen=True)
class TaskGroup:
    """One task of one user; its levels and all its prefixes share a split (never split by prefix)."""

    group_id: str  # "<user_id>_<letter>", Persona2Web's task group
    user_id: str
    domain: str
    obj: str  # what the task is about ("slim-fit chinos")
    slots: tuple[str, ...]  # slots the task depends on, in display order
    familiar: bool  # False: a domain the user has no memory for (memory is irrelevant)
    start_time: str  # ISO-8601 of the request


def level_modes(
    spec: DomainSpec, slots: Sequence[str], level: int, values: Mapping[str, str]
) -> dict[str, str]:
    """The request state per slot at a Persona2Web level (the L1/L2/L3 transformation)."""
    if level not in LEVELS:
        raise ValueError(f"level {level} not in {LEVELS}")
    out = {}
    for s in slots:
        hidden = level == 1 or (level == 2 and spec.slot(s).hidden_until_l3)
        out[s] = IMPLICIT if hidden else values[s]
    return out


def request_text(spec: DomainSpec, obj: str, modes: Mapping[str, str]) -> str:
    """Render a request; slots missing from `modes` are not mentioned."""
    parts = [
        spec.slot(s).implicit if v == IMPLICIT else spec.slot(s).explicit.format(v=v)
        for s, v in modes.items()
    ]
    return f"{spec.verb} {obj} {', '.join(parts)}.".replace(" .", ".")


def level_texts(
    spec: DomainSpec, obj: str, slots: Sequence[str], values: Mapping[str, str]
) -> dict[int, str]:
    """All three requests of a task group (useful for eval suites and for reading the data)."""
    return {lv: request_text(spec, obj, level_modes(spec, slots, lv, values)) for lv in LEVELS}


@dataclass(frozen=True)
class TaskParams:
    # probability that a task is in a domain the user has no history in (memory irrelevant)
    p_unfamiliar: float = 0.07
    # relative weights of 1, 2 and 3 task slots
    slot_count_weights: tuple[float, float, float] = (0.3, 0.4, 0.3)
    # probability of forcing a revised-preference slot / a habit slot into a task when one exists
    p_include_revised: float = 0.6
    p_include_habit: float = 0.5
    # tasks start within this many days after the history ends
    start_window_days: int = 60


def make_task_groups(
    persona: Persona,
    facts: Sequence[UserFact],
    domains: Mapping[str, DomainSpec],
    n_tasks: int,
    rng: random.Random,
    start_date: str = "2025-01-02",
    params: TaskParams = TaskParams(),
) -> list[TaskGroup]:
    kinds: dict[tuple[str, str], set[str]] = {}
    for f in facts:
        kinds.setdefault((f.topic, f.slot), set()).add("revised" if f.supersedes else f.kind)
    familiar_pool = [
        d
        for d in persona.domains
        if any(k[0] == d and v & {"preference", "revised"} for k, v in kinds.items())
    ]
    unfamiliar_pool = sorted(set(domains) - set(persona.domains))
    used: list[str] = []
    groups = []
    for t in range(n_tasks):
        letter = chr(ord("A") + t) if t < 26 else f"T{t}"
        familiar = bool(familiar_pool) and not (unfamiliar_pool and rng.random() < params.p_unfamiliar)
        pool = familiar_pool if familiar else unfamiliar_pool
        fresh = [d for d in pool if d not in used] or pool  # like Persona2Web: tasks differ in domain
        dname = rng.choice(fresh)
        used.append(dname)
        spec = domains[dname]
        k = rng.choices((1, 2, 3), weights=params.slot_count_weights)[0]
        if familiar:
            slots = _familiar_slots(spec, kinds, k, rng, params)
        else:
            slots = rng.sample(spec.slot_names, min(k, len(spec.slots)))
        day = rng.randrange(params.start_window_days)
        start = f"{_add_days(start_date, day)}T{rng.randint(8, 21):02d}:{rng.randrange(60):02d}:00"
        groups.append(
            TaskGroup(
                f"{persona.user_id}_{letter}",
                persona.user_id,
                dname,
                rng.choice(spec.objects),
                tuple(slots),
                familiar,
                start,
            )
        )
    return groups


def _familiar_slots(
    spec: DomainSpec, kinds: Mapping[tuple[str, str], set[str]], k: int, rng: random.Random, p: TaskParams
) -> list[str]:
    def with_kind(kind: str) -> list[str]:
        return [s for s in spec.slot_names if kind in kinds.get((spec.name, s), set())]

    # a revised slot has both "preference" (each version) and "revised" (the current one)
    prefs, revised, habits = with_kind("preference"), with_kind("revised"), with_kind("habit")
    chosen: list[str] = []
    if revised and rng.random() < p.p_include_revised:
        chosen.append(rng.choice(revised))
    if not chosen:
        chosen.append(rng.choice(prefs))  # a task is built from at least one preference
    if habits and len(chosen) < k and rng.random() < p.p_include_habit:
        chosen.append(rng.choice(habits))
    rest = [s for s in dict.fromkeys(prefs + habits) if s not in chosen]
    chosen += rng.sample(rest, min(len(rest), k - len(chosen)))
    rng.shuffle(chosen)
    return chosen


def _add_days(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()
