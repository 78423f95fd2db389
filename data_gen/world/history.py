"""Year-long histories of web actions in which preferences show up only as repetition.

Each entry is Persona2Web's memory-bank record `{timestamp, type, object, website}` plus the
structured slot values it reveals (`slots`), which the derivation reads. A domain without a site
slot (a tool service of the eval suites, `DomainSpec.site_slot == ""`) has past tool calls as
entries, with the service as their website. A held preference is
repeated with at most two one-off deviations; a revised preference switches value once; a habit is
a majority (~60%) with varied alternatives; a slot without a pattern cycles through values. Other
domains add sparse one-off entries and generic noise (news, weather) as distractors.

The deviation counts are fixed by construction (not sampled), so the derivation thresholds in
`data_gen.world.preferences` recover the ground truth exactly; tests check this.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from data_gen.world.domains import DomainSpec
from data_gen.world.personas import Persona, SlotTruth

NOISE: tuple[tuple[str, str, str], ...] = (
    ("web_search", "weather this weekend", "weather.com"),
    ("web_visit", "local news front page", "cnn.com"),
    ("web_search", "how to fix a leaky faucet", "google.com"),
    ("web_visit", "NBA scores", "espn.com"),
    ("web_search", "python list comprehension", "stackoverflow.com"),
    ("web_visit", "article on sleep and productivity", "wikipedia.org"),
    ("web_search", "best hiking trails nearby", "alltrails.com"),
    ("web_visit", "stock market summary", "finance.yahoo.com"),
)


@dataclass(frozen=True)
class HistoryEntry:
    entry_id: str  # "h12"
    timestamp: str  # ISO-8601, seconds
    type: str  # one of domains.KNOWN_HISTORY_TYPES
    object: str  # readable description of the target entity
    website: str
    domain: str = ""  # "" for generic noise
    slots: tuple[tuple[str, str], ...] = ()  # structured slot values this entry reveals

    def to_dict(self) -> dict[str, Any]:
        """Persona2Web memory-bank record (reference §3.2)."""
        return {
            "timestamp": self.timestamp,
            "type": self.type,
            "object": self.object,
            "website": self.website,
        }


@dataclass(frozen=True)
class HistoryParams:
    # first day of the year-long history (ISO date) and its length in days
    start_date: str = "2024-01-01"
    days: int = 365
    # entries per active domain, inclusive range; more entries = stronger, slower-to-generate patterns
    min_entries_per_domain: int = 18
    max_entries_per_domain: int = 30
    # probability that an entry reveals a given non-site slot (the site is always revealed)
    p_observe: float = 0.6
    # inactive domains that get one-off distractor entries, and entries each (kept below min_obs)
    max_oneoff_domains: int = 2
    max_oneoff_entries: int = 3
    # generic entries with no domain (news, weather) per user
    noise_entries: int = 30


# Observations a pattern needs so that the derivation (min_obs=5, segments>=5) can see it.
_NEED = {"preference": 7, "revised": 13, "habit": 7, "none": 0}


def generate_history(
    persona: Persona,
    domains: Mapping[str, DomainSpec],
    rng: random.Random,
    params: HistoryParams = HistoryParams(),
) -> tuple[HistoryEntry, ...]:
    start = datetime.fromisoformat(params.start_date)
    span = params.days * 86400
    raw: list[tuple[int, str, str, str, str, tuple[tuple[str, str], ...]]] = []
    for dname in persona.domains:
        spec = domains[dname]
        n = rng.randint(params.min_entries_per_domain, params.max_entries_per_domain)
        times = sorted(rng.randrange(span) for _ in range(n))
        per_entry: list[dict[str, str]] = [{} for _ in range(n)]
        for slot in spec.slots:
            truth = persona.truth(dname, slot.name) or SlotTruth(dname, slot.name, "none")
            idx = _observing(n, slot.name == spec.site_slot, truth, rng, params.p_observe)
            for i, v in zip(idx, _pattern(truth, len(idx), slot.values, rng)):
                per_entry[i][slot.name] = v
        for t, vals in zip(times, per_entry):
            raw.append(_entry(spec, t, vals, rng))
    inactive = sorted(set(domains) - set(persona.domains))
    for dname in rng.sample(inactive, min(len(inactive), params.max_oneoff_domains)):
        spec = domains[dname]
        for _ in range(rng.randint(1, params.max_oneoff_entries)):
            vals = {
                s.name: rng.choice(s.values)
                for s in spec.slots
                if s.name == spec.site_slot or rng.random() < params.p_observe
            }
            raw.append(_entry(spec, rng.randrange(span), vals, rng))
    for _ in range(params.noise_entries):
        typ, obj, site = rng.choice(NOISE)
        raw.append((rng.randrange(span), typ, obj, site, "", ()))
    raw.sort(key=lambda r: r[0])
    return tuple(
        HistoryEntry(f"h{i}", (start + timedelta(seconds=t)).isoformat(), typ, obj, site, dom, slots)
        for i, (t, typ, obj, site, dom, slots) in enumerate(raw)
    )


def _entry(spec: DomainSpec, t: int, vals: dict[str, str], rng: random.Random):
    obj = rng.choice(spec.objects)
    detail = " ".join(spec.slot(s).explicit.format(v=v) for s, v in vals.items() if s != spec.site_slot)
    slots = tuple(sorted(vals.items()))
    site = vals[spec.site_slot] if spec.site_slot else spec.name  # a domain without a site: its own name
    return (t, rng.choice(spec.history_types), f"{obj} {detail}".strip(), site, spec.name, slots)


def _observing(n: int, is_site: bool, truth: SlotTruth, rng: random.Random, p_observe: float) -> list[int]:
    if is_site:
        return list(range(n))
    idx = [i for i in range(n) if rng.random() < p_observe]
    need = _NEED["revised" if truth.revised else truth.status]
    if len(idx) < need:
        idx = sorted(set(idx) | set(rng.sample(range(n), min(n, need))))
    return idx


def _pattern(truth: SlotTruth, m: int, values: tuple[str, ...], rng: random.Random) -> list[str]:
    """The value sequence (in time order) for m observations of one slot."""
    others = [v for v in values if v != truth.value]
    if truth.status == "preference" and truth.revised:
        k = min(max(6, round(m * truth.change_frac)), m - 6)  # both segments >= 6
        seq = [truth.old_value] * k + [truth.value] * (m - k)
        # at most one one-off per segment, never next to the switch (keeps the change point exact)
        for lo, hi in ((0, k - 2), (k + 2, m)):
            if hi - lo >= 6:
                seq[rng.randrange(lo, hi)] = rng.choice(
                    [v for v in values if v not in (truth.value, truth.old_value)]
                )
        return seq
    if truth.status == "preference":
        seq = [truth.value] * m
        n_dev = 2 if m >= 16 else 1 if m >= 8 else 0  # one-off deviations, each a different value
        for i, v in zip(rng.sample(range(m), n_dev), rng.sample(others, n_dev)):
            seq[i] = v
        return seq
    if truth.status == "habit":
        h = round(0.62 * m)  # share in [0.5, 0.8): a regularity, not a constraint
        alts = rng.sample(others, min(len(others), rng.randint(2, 3)))
        habit_pos = set(rng.sample(range(m), h))
        out, j = [], 0
        for i in range(m):
            if i in habit_pos:
                out.append(truth.value)
            else:
                out.append(alts[j % len(alts)])  # cycling: no alternative dominates any window
                j += 1
        return out
    cyc = list(values)
    rng.shuffle(cyc)
    return [cyc[i % len(cyc)] for i in range(m)]
