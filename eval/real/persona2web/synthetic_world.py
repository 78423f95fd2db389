"""Persona2Web's synthetic world: its 50 real users and 150 task groups as the generator's personas,
domains and task groups, and the synthetic memory a history generated from them yields.

Used by `pulse gen-data source=persona2web` (data_gen/build.py: generated users anchored on the real
ones) and by the benchmark's `seed_history=synthetic` and its memory-following agent's vocabulary
(benchmark.py); both read the groups with loader.py (no licence: nothing of it is committed).

Each real task group becomes a `DomainSpec` whose slots are the group's level-2 preference values
(each with distractor values drawn from *other* groups' values), its level-3 website and, where it
has one, its level-3 location; each real user becomes a `Persona` who holds
exactly the group's gold values as preferences. From there the existing generator runs unchanged:
year-long histories are *synthesized* from that gold (Persona2Web publishes no histories), facts are
derived back from them, and labeled prefixes are built by the same case types and gold rule. The
request texts are the generator's own renderings (not Persona2Web's intents); only the users, the
task groups, the levels and the gold values are real.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from data_gen.world.domains import DomainSpec, SlotSpec
from data_gen.world.history import generate_history
from data_gen.world.memory_items import to_memory_items
from data_gen.world.personas import Persona, PersonaParams, SlotTruth
from data_gen.world.preferences import attribute_facts, derive_facts
from data_gen.world.tasks import TaskGroup
from data_gen.world.vocab_web import CITIES, HOUSEHOLDS, OCCUPATIONS

ANCHOR_PREFIX = "p2w_"  # user ids of anchored users: "p2w_<First>_<Last>"
# slot names of a group's level-2 values, in order (none is a statements cue word such as "standard")
PREF_SLOTS = ("choice", "option", "requirement", "spec", "detail", "extra")
_CUT = re.compile(
    r"\s+(?:in my|that|with my|for my|on my|at my|from my|near my|within my|under my|by my)\b", re.I
)


def _site(group: Mapping[str, Any]) -> str:
    return re.split(r"\s+or\s+", str(group["L3_website"]).strip(), flags=re.I)[0].lower().replace(" ", "")


def _city(group: Mapping[str, Any]) -> str:
    loc = str(group.get("L3_location") or "")
    return loc.split(",")[0].strip() if loc else ""


def _clean(value: str) -> str:
    return re.sub(r"\s+", " ", value.replace("**", "")).strip()


def group_domain(
    group: Mapping[str, Any], pools: Mapping[str, Sequence[str]], rng: random.Random
) -> DomainSpec:
    """The task group as a domain: one slot per level-2 value, the site, and the location if any."""
    l1 = _clean(str(group.get("L1") or group["task_group"]))
    verb, _, rest = l1.partition(" ")
    obj = _CUT.split(rest)[0].strip(" .") or rest or "it"
    golds = list(dict.fromkeys(_clean(v) for v in group["L2_values"]))
    site, city = _site(group), _city(group)
    used = [g.lower() for g in (*golds, site, city) if g]

    def distractors(pool: Sequence[str]) -> tuple[str, ...]:
        # values no other slot of this domain shares or overlaps ("San Diego" vs "downtown San Diego
        # office"): the statements parser must tell the slots apart
        free = [v for v in pool if not any(v.lower() in u or u in v.lower() for u in used)]
        picked = tuple(rng.sample(free, 4))
        used.extend(v.lower() for v in picked)
        return picked

    slots = []
    for i, value in enumerate(golds):
        name = PREF_SLOTS[i] if i < len(PREF_SLOTS) else f"pref{i}"
        others = [v for v in pools["values"] if v not in pools["cities"] and v not in pools["sites"]]
        slots.append(SlotSpec(name, (value, *distractors(others)), "with {v}", f"with my usual {name}"))
    slots.append(
        SlotSpec(
            "site", (site, *distractors(pools["sites"])), "on {v}", "on my usual site", hidden_until_l3=True
        )
    )
    if city:
        slots.append(
            SlotSpec(
                "location",
                (city, *distractors(pools["cities"])),
                "in {v}",
                "in my usual area",
                hidden_until_l3=True,
            )
        )
    return DomainSpec(
        f"p2w_{group['task_group'].lower()}",
        " ".join(l1.lower().split()[:6]),
        (obj,),
        tuple(slots),
        "search_site",
        "choose_option",
        verb=verb or "Find",
    )


def pools_of(groups: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    values = sorted({_clean(v) for g in groups for v in g["L2_values"]})
    sites = sorted({_site(g) for g in groups})
    cities = sorted({_city(g) for g in groups if _city(g)} | set(CITIES))
    return {"values": values, "sites": sites, "cities": cities}


def anchored_users(
    groups: Sequence[Mapping[str, Any]], seed: int, params: PersonaParams | None = None
) -> list[tuple[Persona, dict[str, DomainSpec], list[TaskGroup]]]:
    """(persona, its domains, its task groups) per real user, deterministic in `seed` (`params`:
    the generator's persona knobs, default `PersonaParams()`)."""
    params = params if params is not None else PersonaParams()
    pools = pools_of(groups)
    by_user: dict[str, list[Mapping[str, Any]]] = {}
    for g in groups:
        by_user.setdefault(str(g["user"]), []).append(g)
    out = []
    for user, gs in sorted(by_user.items()):
        rng = random.Random(f"pulse-p2w:{seed}:{user}")
        domains = {}
        truths = []
        for g in sorted(gs, key=lambda g: g["slot"]):
            spec = group_domain(g, pools, rng)
            domains[spec.name] = spec
            for s in spec.slots:  # the gold value is the current preference (sometimes revised from another)
                old = rng.choice(s.values[1:]) if rng.random() < params.p_revised else ""
                truths.append(
                    SlotTruth(
                        spec.name,
                        s.name,
                        "preference",
                        s.values[0],
                        old,
                        rng.uniform(0.35, 0.65) if old else 0.0,
                    )
                )
        home = next((_city(g) for g in gs if _city(g)), rng.choice(CITIES))
        attributes = (
            ("home_city", home),
            ("occupation", rng.choice(OCCUPATIONS)),
            ("household", rng.choice(HOUSEHOLDS)),
        )
        persona = Persona(
            f"{ANCHOR_PREFIX}{user}", user, home, attributes, tuple(sorted(domains)), tuple(truths)
        )
        tasks = []
        for day, g in enumerate(sorted(gs, key=lambda g: g["slot"])):
            spec = domains[f"p2w_{g['task_group'].lower()}"]
            start = f"2025-01-{2 + 3 * day:02d}T{rng.randint(8, 21):02d}:{rng.randrange(60):02d}:00"
            tasks.append(
                TaskGroup(
                    g["task_group"], persona.user_id, spec.name, spec.objects[0], spec.slot_names, True, start
                )
            )
        out.append((persona, domains, tasks))
    return out


def synthetic_seed_memory(
    groups: Sequence[Mapping[str, Any]], user: str, seed: int = 0, anchored: Sequence[tuple] | None = None
) -> tuple:
    """A real user's *synthetic* memory: facts derived from a history generated from its gold values
    (what `source=persona2web` trains on), as `MemoryItem`s in scope `user:<user>`; () for an unknown user.
    `anchored`: `anchored_users(groups, seed)` when the caller keeps it (it is the same for every user,
    and building it over all groups costs far more than one user's history)."""
    # all groups: the same distractor pools
    for persona, domains, _ in anchored if anchored is not None else anchored_users(groups, seed):
        if persona.name != user:
            continue
        rng = random.Random(f"pulse-data:{seed}:{persona.user_id}")  # the stream gen-data uses
        facts = derive_facts(generate_history(persona, domains, rng)) + attribute_facts(persona)
        ids = {f.key: f"m{i + 1}" for i, f in enumerate(facts)}
        return to_memory_items(facts, ids, f"user:{user}", {d.name: d.label for d in domains.values()})
    return ()
