"""Derive implicit preferences and habits from the repetition in a history (no LLM).

Per (domain, slot), the values an entry reveals form a time-ordered sequence. Rules, in order:
1. revision: the sequence splits into two segments (each >= `min_segment` observations) whose
   dominant values differ and each hold >= `preference_share` of their segment. The earlier value
   becomes a superseded preference (valid_to = the switch), the later one a current preference that
   names it in `supersedes`.
2. preference: the top value holds >= `preference_share` of all observations (one-offs tolerated).
3. habit: the top value holds >= `habit_share`: a regularity that must not be enforced.
4. otherwise nothing, and nothing either with fewer than `min_obs` observations (one-off domains).

Attributes (home city, occupation) come from the persona profile, not from the history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from data_gen.world.history import HistoryEntry
from data_gen.world.personas import Persona

FactKind = Literal["preference", "habit", "attribute"]
PROFILE_TOPIC = "profile"


@dataclass(frozen=True)
class UserFact:
    """A memory-worthy fact about a user, before it gets a snapshot-local item id."""

    key: str  # stable within a user: "<topic>.<slot>" (+ ".old" for a superseded version)
    kind: FactKind
    topic: str  # domain name, or "profile" for attributes
    slot: str
    value: str
    valid_from: str = ""
    valid_to: str = ""  # "" = current
    supersedes: str = ""  # key of the version this one revises
    source_kind: str = "history"  # provenance source kind (records.SOURCE_KINDS)
    source_id: str = ""  # history entry id supporting the fact
    quote: str = ""  # that entry's text
    support: int = 0  # observations agreeing with the value
    total: int = 0  # observations of the slot

    @property
    def is_current(self) -> bool:
        return not self.valid_to


@dataclass(frozen=True)
class DeriveParams:
    min_obs: int = 5  # fewer observations of a slot: no fact (one-offs are not preferences)
    preference_share: float = 0.8  # share of the top value that makes it a held preference
    habit_share: float = 0.5  # share that makes it a habit (below preference_share)
    min_segment: int = 5  # observations on each side of a revision


_Obs = tuple[str, str, HistoryEntry]  # (timestamp, value, entry)


def derive_facts(
    history: Iterable[HistoryEntry], as_of: str = "", params: DeriveParams = DeriveParams()
) -> tuple[UserFact, ...]:
    """Preferences and habits implied by the history entries before `as_of` ("" = all)."""
    by_slot: dict[tuple[str, str], list[_Obs]] = {}
    for e in history:
        if not e.domain or (as_of and e.timestamp >= as_of):
            continue
        for slot, value in e.slots:
            by_slot.setdefault((e.domain, slot), []).append((e.timestamp, value, e))
    facts: list[UserFact] = []
    for (domain, slot), obs in sorted(by_slot.items()):
        if len(obs) >= params.min_obs:
            facts.extend(_slot_facts(domain, slot, obs, params))
    return tuple(facts)


def _slot_facts(domain: str, slot: str, obs: list[_Obs], p: DeriveParams) -> list[UserFact]:
    values = [v for _, v, _ in obs]
    counts = Counter(values)
    key = f"{domain}.{slot}"
    split = _change_point(values, counts, p)
    if split is not None:
        i, old, new = split
        first_old = next(o for o in obs if o[1] == old)
        old_fact = UserFact(
            f"{key}.old",
            "preference",
            domain,
            slot,
            old,
            first_old[0],
            obs[i][0],
            source_id=first_old[2].entry_id,
            quote=first_old[2].object,
            support=values[:i].count(old),
            total=i,
        )
        new_fact = UserFact(
            key,
            "preference",
            domain,
            slot,
            new,
            obs[i][0],
            supersedes=old_fact.key,
            source_id=obs[i][2].entry_id,
            quote=obs[i][2].object,
            support=values[i:].count(new),
            total=len(values) - i,
        )
        return [old_fact, new_fact]
    top, c = counts.most_common(1)[0]
    share = c / len(values)
    if share < p.habit_share:
        return []
    kind: FactKind = "preference" if share >= p.preference_share else "habit"
    first = next(o for o in obs if o[1] == top)
    return [
        UserFact(
            key,
            kind,
            domain,
            slot,
            top,
            first[0],
            source_id=first[2].entry_id,
            quote=first[2].object,
            support=c,
            total=len(values),
        )
    ]


def _change_point(values: list[str], counts: Counter, p: DeriveParams) -> tuple[int, str, str] | None:
    """Best split i (old = values[:i], new = values[i:]) between the two most frequent values."""
    top2 = [v for v, _ in counts.most_common(2)]
    if len(top2) < 2:
        return None
    n = len(values)
    best: tuple[int, int, str, str] | None = None  # (score, i, old, new)
    for old, new in ((top2[0], top2[1]), (top2[1], top2[0])):
        left_old, right_new = 0, counts[new]
        for i in range(1, n):  # split before index i
            left_old += values[i - 1] == old
            right_new -= values[i - 1] == new
            if i < p.min_segment or n - i < p.min_segment:
                continue
            if left_old >= p.preference_share * i and right_new >= p.preference_share * (n - i):
                score = left_old + right_new
                if best is None or score > best[0]:
                    best = (score, i, old, new)
    return None if best is None else (best[1], best[2], best[3])


def attribute_facts(persona: Persona) -> tuple[UserFact, ...]:
    """Plain profile facts (kind attribute); slots never collide with domain slots."""
    return tuple(
        UserFact(
            f"{PROFILE_TOPIC}.{slot}",
            "attribute",
            PROFILE_TOPIC,
            slot,
            value,
            source_kind="user_statement",
            quote=f"{slot.replace('_', ' ')}: {value}",
        )
        for slot, value in persona.attributes
    )
