"""World layer: histories hide preferences as repetition, and the derivation recovers them.

Run: .venv/bin/python -m pytest tests/data_gen -q
"""

from __future__ import annotations

import random

from data_gen.build import generate_examples
from data_gen.config import GenDataConfig
from data_gen.world.domains import HISTORY_TYPES, DomainSpec, SlotSpec
from data_gen.world.history import generate_history
from data_gen.world.personas import make_persona
from data_gen.world.preferences import derive_facts
from data_gen.world.tasks import level_modes, level_texts
from data_gen.world.vocab_web import WEB_DOMAINS


def test_derivation_recovers_ground_truth():
    for i in range(30):
        rng = random.Random(i)
        persona = make_persona(i, rng, WEB_DOMAINS)
        history = generate_history(persona, WEB_DOMAINS, rng)
        facts = {(f.topic, f.slot, f.is_current): f for f in derive_facts(history)}
        derived_slots = {(f.topic, f.slot) for f in facts.values()}
        for t in persona.truths:
            cur = facts.get((t.domain, t.slot, True))
            if t.status == "none":
                assert cur is None, t
                continue
            assert cur is not None and cur.kind == t.status and cur.value == t.value, (t, cur)
            old = facts.get((t.domain, t.slot, False))
            assert (old.value if old else "") == t.old_value, (t, old)
            if old:
                assert cur.supersedes == old.key and old.valid_to == cur.valid_from
        # one-off domains and noise never become facts
        assert {d for d, _ in derived_slots} <= set(persona.domains)


def test_history_is_a_year_of_typed_web_actions():
    rng = random.Random(0)
    persona = make_persona(0, rng, WEB_DOMAINS)
    history = generate_history(persona, WEB_DOMAINS, rng)
    stamps = [e.timestamp for e in history]
    assert stamps == sorted(stamps) and stamps[0] >= "2024-01-01" and stamps[-1] < "2025-01-01"
    assert {e.type for e in history} <= set(HISTORY_TYPES)
    assert set(history[0].to_dict()) == {"timestamp", "type", "object", "website"}
    assert len({e.entry_id for e in history}) == len(history)
    assert all(e.website for e in history)


def test_levels_follow_persona2web():
    spec = WEB_DOMAINS["apparel"]
    vals = {"size": "32x32", "site": "kohls.com"}
    assert level_modes(spec, ["size", "site"], 1, vals) == {"size": "?", "site": "?"}
    assert level_modes(spec, ["size", "site"], 2, vals) == {"size": "32x32", "site": "?"}
    assert level_modes(spec, ["size", "site"], 3, vals) == vals
    texts = level_texts(spec, "slim-fit chinos", ["size", "site"], vals)
    assert "my usual size" in texts[1] and "32x32" in texts[2] and "kohls.com" not in texts[2]
    assert "kohls.com" in texts[3]


def test_other_domains_are_data_not_code():
    # a professional domain, passed in as data: the generator needs no change
    pharmacy = DomainSpec(
        "pharmacy",
        "pharmacy ordering",
        ("amoxicillin 500mg", "insulin pens", "flu vaccines"),
        (
            SlotSpec(
                "site",
                ("mckesson.com", "cardinalhealth.com", "amerisource.com"),
                "on {v}",
                "on my usual portal",
                hidden_until_l3=True,
            ),
            SlotSpec("pack", ("30ct", "90ct", "500ct"), "in {v} packs", "in my usual pack size"),
            SlotSpec("generic", ("generic", "brand", "either"), "as {v}", "as I usually order"),
        ),
        "search_catalog",
        "place_order",
        ("web_search", "web_visit", "purchase"),
        "Order",
    )
    notes = {"notes": WEB_DOMAINS["notes"], "pharmacy": pharmacy, "courses": WEB_DOMAINS["courses"]}
    cfg = GenDataConfig(seed=1, n_users=12, tasks_per_user=2)
    exs = [e for s in generate_examples(cfg, domains=notes).values() for e in s]
    assert exs and {e.task_topic for e in exs} <= set(notes)
    assert any(e.task_topic == "pharmacy" for e in exs)
