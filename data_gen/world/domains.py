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
# History action types of a tool workspace (professional tools, personal apps): a past call of one of
# the domain's tools. Used by the offline eval suites' domains (eval/suites/generator.py).
TOOL_HISTORY_TYPES: tuple[str, ...] = ("tool_call",)
KNOWN_HISTORY_TYPES: tuple[str, ...] = HISTORY_TYPES + TOOL_HISTORY_TYPES


@dataclass(frozen=True)
class SlotSpec:
    """One preference slot of a domain.

    `explicit` and `implicit` are request phrases: `explicit` is formatted with `{v}` (L2/L3),
    `implicit` is the Persona2Web L1 phrase ("in my usual size"). `hidden_until_l3` marks slots
    that Persona2Web keeps implicit at L2 and states only at L3 (the website and the location).
    `default` is the value a task agent uses when nothing informs it (a tool argument's default);
    when set, held preferences and habits are drawn from the other values (`held_values`), since a
    preference equal to the agent's default would never show in a task. "" = no default (web slots).
    """

    name: str
    values: tuple[str, ...]  # short tokens so a tiny model can compare them; at least 3
    explicit: str  # e.g. "in size {v}"
    implicit: str  # e.g. "in my usual size"
    hidden_until_l3: bool = False
    default: str = ""

    def __post_init__(self) -> None:
        if len(set(self.values)) < 3:
            raise ValueError(f"slot {self.name}: needs at least 3 distinct values (deviation/none patterns)")
        if self.default and self.default not in self.values:
            raise ValueError(
                f"slot {self.name}: default {self.default!r} is not one of its values {self.values}"
            )

    @property
    def held_values(self) -> tuple[str, ...]:
        """Values a user can hold as a preference or habit (all values but the agent's default)."""
        return tuple(v for v in self.values if v != self.default) if self.default else self.values


@dataclass(frozen=True)
class DomainSpec:
    """A domain: its objects, slots, tools and history action types.

    `site_slot` names the slot every history entry reveals and carries as its `website`
    (Persona2Web's memory-bank field); a web domain's is "site". A domain without one (a tool
    service such as a document editor) sets "": its entries carry the domain name as `website`.
    The site slot is a habit more often than other slots (`PersonaParams.p_site_habit`), and so
    are the slots named in `habit_prone` (e.g. which notes app: usual, not required).
    """

    name: str  # also the memory `topic`
    label: str  # human-readable, used in memory-item sentences ("apparel shopping")
    objects: tuple[str, ...]  # what a task or history entry is about ("slim-fit chinos")
    slots: tuple[SlotSpec, ...]
    search_tool: str  # candidate call that looks things up
    commit_tool: str  # candidate call that commits (buy / book / save)
    history_types: tuple[str, ...] = HISTORY_TYPES  # which action types occur in this domain
    verb: str = "Find"  # request verb ("Find", "Book", "Save")
    site_slot: str = "site"  # "" = no site slot (entries' website is the domain name)
    habit_prone: tuple[str, ...] = ()  # slots that are habits as often as a site

    def __post_init__(self) -> None:
        names = [s.name for s in self.slots]
        if len(set(names)) != len(names):
            raise ValueError(f"domain {self.name}: duplicate slot names {names}")
        if not names:
            raise ValueError(f"domain {self.name}: needs at least one slot")
        if self.site_slot and self.site_slot not in names:
            raise ValueError(
                f"domain {self.name}: site_slot {self.site_slot!r} is not one of its slots {names} "
                "(history entries carry a website; set site_slot='' for a domain without one)"
            )
        unknown = set(self.habit_prone) - set(names)
        if unknown:
            raise ValueError(f"domain {self.name}: habit_prone slots {sorted(unknown)} are not among {names}")
        bad = set(self.history_types) - set(KNOWN_HISTORY_TYPES)
        if bad:
            raise ValueError(f"domain {self.name}: unknown history types {sorted(bad)}")

    def site_like(self, slot: str) -> bool:
        """The site slot and the habit-prone slots (habits more often than other slots)."""
        return slot == self.site_slot or slot in self.habit_prone

    def slot(self, name: str) -> SlotSpec:
        for s in self.slots:
            if s.name == name:
                return s
        raise KeyError(f"domain {self.name} has no slot {name!r}; slots: {[s.name for s in self.slots]}")

    @property
    def slot_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.slots)
