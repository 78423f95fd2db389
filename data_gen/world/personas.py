"""Personas: who the simulated user is and which preferences/habits they really hold (ground truth).

The ground truth (`SlotTruth`) only drives the history generator; the memory the policy sees is
*derived back* from the history (`data_gen.world.preferences`), as in Persona2Web where
preferences are implicit in a year of web actions. Tests check the derivation recovers the truth.

Pure functions of a `random.Random`; vocabularies come in as `DomainSpec`s, so the same code makes
professional or personal-app personas when given other domains.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from data_gen.world.domains import DomainSpec
from data_gen.world.vocab_web import CITIES, FIRST_NAMES, HOUSEHOLDS, LAST_NAMES, OCCUPATIONS

SlotStatus = Literal["preference", "habit", "none"]


@dataclass(frozen=True)
class SlotTruth:
    """What the user really holds for one (domain, slot)."""

    domain: str
    slot: str
    status: SlotStatus
    value: str = ""  # current preferred / habitual value ("" for none)
    old_value: str = ""  # value preferred before a revision; "" when never revised
    change_frac: float = 0.0  # where in the history year the revision happened (0..1)

    @property
    def revised(self) -> bool:
        return bool(self.old_value)


@dataclass(frozen=True)
class Persona:
    user_id: str
    name: str  # "First_Last", Persona2Web style
    home_city: str
    attributes: tuple[tuple[str, str], ...]  # (slot, value) plain facts, e.g. ("occupation", "nurse")
    domains: tuple[str, ...]  # domains with a history (and so with memory)
    truths: tuple[SlotTruth, ...]

    def truth(self, domain: str, slot: str) -> SlotTruth | None:
        for t in self.truths:
            if t.domain == domain and t.slot == slot:
                return t
        return None


@dataclass(frozen=True)
class PersonaParams:
    # number of domains a persona is active in (has history and memory for), inclusive range
    min_active_domains: int = 4
    max_active_domains: int = 6
    # probability that a non-site slot is a held preference / an observed habit (else no pattern)
    p_preference: float = 0.65
    p_habit: float = 0.2
    # the website slot is a habit more often (the Notion-vs-Obsidian case: usual, not required)
    p_site_habit: float = 0.35
    # probability that a preference was revised during the history year (old version superseded)
    p_revised: float = 0.3
    # probability that a location preference is the home city (else another city)
    p_location_home: float = 0.85


def make_persona(
    index: int,
    rng: random.Random,
    domains: Mapping[str, DomainSpec],
    params: PersonaParams = PersonaParams(),
    occupation: str = "",
) -> Persona:
    """`occupation` fixes the occupation attribute (e.g. an eval suite's professional role); the
    random draw still happens, so the rest of the persona is the same either way."""
    name = f"{rng.choice(FIRST_NAMES)}_{rng.choice(LAST_NAMES)}"
    home = rng.choice(CITIES)
    drawn = rng.choice(OCCUPATIONS)
    attributes = (
        ("home_city", home),
        ("occupation", occupation or drawn),
        ("household", rng.choice(HOUSEHOLDS)),
    )
    k = min(len(domains), rng.randint(params.min_active_domains, params.max_active_domains))
    active = tuple(sorted(rng.sample(sorted(domains), k)))
    truths: list[SlotTruth] = []
    for dname in active:
        spec = domains[dname]
        dom_truths = [_slot_truth(spec, s.name, home, rng, params) for s in spec.slots]
        if not any(t.status == "preference" for t in dom_truths):
            # every active domain has at least one preference, so it can carry a personalized task
            i = rng.randrange(len(dom_truths))
            dom_truths[i] = _preference(spec, dom_truths[i].slot, home, rng, params)
        truths.extend(dom_truths)
    return Persona(f"u{index:04d}", name, home, attributes, active, tuple(truths))


def _slot_truth(spec: DomainSpec, slot: str, home: str, rng: random.Random, p: PersonaParams) -> SlotTruth:
    p_habit = p.p_site_habit if spec.site_like(slot) else p.p_habit
    r = rng.random()
    if r < p_habit:
        return SlotTruth(spec.name, slot, "habit", rng.choice(spec.slot(slot).held_values))
    if r < p_habit + p.p_preference:
        return _preference(spec, slot, home, rng, p)
    return SlotTruth(spec.name, slot, "none")


def _preference(spec: DomainSpec, slot: str, home: str, rng: random.Random, p: PersonaParams) -> SlotTruth:
    values = spec.slot(slot).values
    held = spec.slot(slot).held_values
    value = (
        home if slot == "location" and home in held and rng.random() < p.p_location_home else rng.choice(held)
    )
    if rng.random() < p.p_revised:
        old = rng.choice([v for v in values if v != value])
        return SlotTruth(spec.name, slot, "preference", value, old, rng.uniform(0.35, 0.65))
    return SlotTruth(spec.name, slot, "preference", value)
