"""Typed description of a domain the world generator can simulate (data, not code branches).

A `DomainSpec` says which objects a user deals with in a domain, which preference slots it has
(each with a small value vocabulary and the phrases a request uses for it), which tools a task
agent calls, and which history action types occur. Web shopping, flights, note apps or a
pharmacist's ordering system are all just different `DomainSpec` values; the generator code never
branches on a domain name. See `data_gen/world/vocab_web.py` for the Persona2Web-style set.
"""
from __future__ import annotations

from dataclasses import dataclass

# History action types, as in Persona2Web's memory banks (reference §3.2, normalised tokens).
HISTORY_TYPES: tuple[str, ...] = ("web_search", "web_visit", "purchase", "booking", "review_rating")


@dataclass(frozen=True)
class SlotSpec:
    """One preference slot of a domain.

    `explicit` and `implicit` are request phrases: `explicit` is formatted with `{v}` (L2/L3),
    `implicit` is the Persona2Web L1 phrase ("in my usual size"). `hidden_until_l3` marks slots
    that Persona2Web keeps implicit at L2 and states only at L3 (the website and the location).
    """

    name: str
    values: tuple[str, ...]  # short tokens so a tiny model can compare them; at least 3
    explicit: str  # e.g. "in size {v}"
    implicit: str  # e.g. "in my usual size"
    hidden_until_l3: bool = False

    def __post_init__(self) -> None:
        if len(set(self.values)) < 3:
            raise ValueError(f"slot {self.name}: needs at least 3 distinct values (deviation/none patterns)")


@dataclass(frozen=True)
class DomainSpec:
    """A domain: its objects, slots, tools and history action types."""

    name: str  # also the memory `topic`
    label: str  # human-readable, used in memory-item sentences ("apparel shopping")
    objects: tuple[str, ...]  # what a task or history entry is about ("slim-fit chinos")
    slots: tuple[SlotSpec, ...]
    search_tool: str  # candidate call that looks things up
    commit_tool: str  # candidate call that commits (buy / book / save)
    history_types: tuple[str, ...] = HISTORY_TYPES  # which action types occur in this domain
    verb: str = "Find"  # request verb ("Find", "Book", "Save")

    def __post_init__(self) -> None:
        names = [s.name for s in self.slots]
        if len(set(names)) != len(names):
            raise ValueError(f"domain {self.name}: duplicate slot names {names}")
        if "site" not in names:
            raise ValueError(f"domain {self.name}: every domain needs a 'site' slot (history entries carry a website)")
        bad = set(self.history_types) - set(HISTORY_TYPES)
        if bad:
            raise ValueError(f"domain {self.name}: unknown history types {sorted(bad)}")

    def slot(self, name: str) -> SlotSpec:
        for s in self.slots:
            if s.name == name:
                return s
        raise KeyError(f"domain {self.name} has no slot {name!r}; slots: {[s.name for s in self.slots]}")

    @property
    def slot_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.slots)
