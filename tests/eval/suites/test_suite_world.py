"""The offline suites are built on the one world model, `data_gen.world`.

Their seed user memory is exactly what data_gen.world derives for each suite persona (persona ->
year of tool-call history -> preferences, habits and revisions from repetition -> memory items),
gold preference values and sources come from that memory, request and message texts parse to the
suite's own args with Pulse's parser, and the suites stay deterministic with every source present.

Run: .venv/bin/python -m pytest -q tests/eval/suites/test_suite_world.py
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from data_gen.config import GenDataConfig
from data_gen.world.domains import DomainSpec, SlotSpec
from data_gen.world.history import generate_history
from data_gen.world.memory_items import to_memory_items
from data_gen.world.personas import make_persona
from data_gen.world.preferences import attribute_facts, derive_facts
from eval.methods.pulse_method import tools_vocab
from eval.suites import generator, mcp_persona_sim, pibench_sim
from eval.suites.generator import service_domains
from eval.suites.schema import ARG_SOURCES
from pulse.core.statements import parse_statement

GENS = (pibench_sim, mcp_persona_sim)


@cache
def suite(name: str, seed: int = 0):
    return {g.NAME: g for g in GENS}[name].generate(seed)


def specs(gen):
    if gen is pibench_sim:
        return [pibench_sim.persona_spec(u) for u in pibench_sim.PERSONAS]
    return [mcp_persona_sim.persona_spec(k) for k in range(6)]


def world_of(gen, spec, seed: int = 0):
    """data_gen.world run directly (not through the suite generator) for one suite persona."""
    rng = random.Random(gen.stream(seed, spec.user_id))
    domains = service_domains(spec)
    cfg = GenDataConfig()
    persona = make_persona(0, rng, domains, cfg.persona_params(), occupation=spec.occupation)
    history = generate_history(persona, domains, rng, cfg.history_params())
    return persona, domains, derive_facts(history) + attribute_facts(persona)


def canonical(items):
    """Items with their shuffled ids replaced by content, `supersedes` by the target's content."""
    key = {m.item_id: (m.kind, m.topic, m.slot, m.value, m.valid_from) for m in items}
    return [
        (
            m.kind,
            m.scope,
            m.topic,
            m.slot,
            m.value,
            m.text,
            m.entities,
            m.provenance,
            m.valid_from,
            m.valid_to,
            key.get(m.supersedes, m.supersedes),
        )
        for m in items
    ]


@pytest.mark.parametrize("gen", GENS)
def test_seed_user_memory_is_what_the_world_derives(gen):
    s = suite(gen.NAME)
    for spec in specs(gen):
        persona, domains, facts = world_of(gen, spec)
        scope = f"user:{spec.user_id}"
        labels = {d.name: d.label for d in domains.values()}
        expected = to_memory_items(facts, {f.key: f.key for f in facts}, scope, labels)
        got = [m for m in s.persona(spec.user_id).memory if m.scope == scope]
        assert canonical(got) == canonical(expected), spec.user_id
        # everything else is the suite's own project layer
        rest = [m for m in s.persona(spec.user_id).memory if m.scope != scope]
        assert all(
            m.kind == "project_state" and m.scope == f"project:{m.topic}" and m.topic in spec.projects
            for m in rest
        )
        # the world recovers its ground truth on the suite's domains, and held values are never the
        # tool argument's default (a preference equal to the agent's guess would never show)
        current = {(f.topic, f.slot): f for f in facts if f.kind != "attribute" and f.is_current}
        for t in persona.truths:
            f = current.get((t.domain, t.slot))
            assert (f.kind, f.value) == (t.status, t.value) if t.status != "none" else f is None, (t, f)
            if f is not None:
                assert f.value != domains[t.domain].slot(t.slot).default


def test_generator_calls_the_world_layer(monkeypatch):
    calls: dict[str, int] = {}
    for name in ("make_persona", "generate_history", "derive_facts", "attribute_facts", "to_memory_items"):
        real = getattr(generator, name)

        def spy(*a, _real=real, _name=name, **kw):
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*a, **kw)

        monkeypatch.setattr(generator, name, spy)
    pibench_sim.generate(0)
    mcp_persona_sim.generate(0)
    assert calls == {n: 11 for n in calls} and len(calls) == 5  # once per persona: 5 + 6
    # no second world model beside it: the old sampler of preference roles is gone
    assert not hasattr(generator.PersonaSpec, "role_weights")


@pytest.mark.parametrize("gen", GENS)
def test_revisions_and_habits_are_supersession_chains_like_the_training_data(gen):
    s = suite(gen.NAME)
    mem = [m for p in s.personas for m in p.memory]
    revised = [m for m in mem if m.supersedes]
    assert revised and any(m.kind == "habit" for m in mem)
    for p in s.personas:
        by_id = {m.item_id: m for m in p.memory}
        assert len(by_id) == len(p.memory) and all(i.startswith("m") for i in by_id)
        for m in p.memory:
            if m.supersedes:
                old = by_id[m.supersedes]
                assert old.kind == m.kind == "preference" and old.slot == m.slot and old.value != m.value
                assert old.valid_to == m.valid_from and not m.valid_to
                assert m.provenance.source_kind == old.provenance.source_kind == "history"


@pytest.mark.parametrize("gen", GENS)
def test_gold_values_and_sources_come_from_the_derived_memory(gen):
    s = suite(gen.NAME)
    for user, chain in s.chains().items():
        mem = s.persona(user).memory
        current = {
            m.slot: m for m in mem if m.scope == f"user:{user}" and not m.valid_to and m.kind != "attribute"
        }
        told: dict[str, tuple[str, str]] = {}  # slot -> (value, task) a user message revised it to
        decided: dict[tuple[str, str], tuple[str, str]] = {}  # (project, slot) -> (value, task)
        for t in chain:
            for cp in t.checkpoints:
                src, slot = cp.source, cp.slot
                if src in ("preference", "revised") and slot in told:
                    assert src == "revised" and cp.expected == told[slot][0] and told[slot][1] in t.depends_on
                elif src == "preference":
                    m = current[slot]
                    assert m.kind == "preference" and not m.supersedes and m.value == cp.expected
                elif src == "revised":
                    m = current[slot]
                    assert m.kind == "preference" and m.supersedes and m.value == cp.expected
                elif src == "habit_override":
                    assert current[slot].kind == "habit" and current[slot].value != cp.expected
                    assert t.request_args[slot] == cp.expected
                elif src == "project":
                    seeded = [m for m in mem if m.scope == f"project:{t.project_id}" and m.slot == slot]
                    if (t.project_id, slot) in decided:  # recorded by an earlier task's approve_plan
                        value, by = decided[(t.project_id, slot)]
                        assert value == cp.expected and by in t.depends_on and not seeded
                    else:
                        assert [m.value for m in seeded] == [cp.expected]
            for st in t.steps:
                for slot, v in st.user_message.items():
                    told[slot] = (v, t.task_id)
                if st.tool == "approve_plan":  # records the project's still undecided slots
                    for a in st.args:
                        if not any(m.scope == f"project:{t.project_id}" and m.slot == a.slot for m in mem):
                            decided.setdefault((t.project_id, a.slot), (a.gold, t.task_id))


@pytest.mark.parametrize("gen", GENS)
def test_request_and_message_texts_parse_exactly_with_the_tools_vocabulary(gen):
    s = suite(gen.NAME)
    n_msg = 0
    for t in s.tasks:
        vocab = tools_vocab(s.persona(t.user_id).tools)
        assert parse_statement(t.request_text, vocab) == t.request_args, t.task_id
        for st in t.steps:
            if st.user_message or st.user_message_text:
                n_msg += 1
                assert parse_statement(st.user_message_text, vocab) == st.user_message, st.step_id
    assert n_msg > 0


def test_suites_are_deterministic_with_their_shapes_and_every_source():
    for gen in GENS:
        assert gen.VERSION == "2.1"  # 2.1: text only (eval/suites/pibench_sim/)
        assert gen.generate(0) == suite(gen.NAME) and gen.generate(1) != suite(gen.NAME)
    pb, mp = suite("pibench_sim"), suite("mcp_persona_sim")
    assert len(pb.personas) == 5 and all(len(c) == 8 for c in pb.chains().values())
    assert len(mp.personas) == 6 and all(
        sorted(t.category for t in c) == sorted(mp.categories) for c in mp.chains().values()
    )
    # the generated suites have no conditional, inapplicable or carried arguments (independent_sim has)
    legacy = set(ARG_SOURCES) - {"conditional", "inapplicable", "carried"}
    assert {c.source for t in pb.tasks for c in t.checkpoints} == legacy
    assert {c.source for t in mp.tasks for c in t.checkpoints} == legacy - {"project"}
    assert {t.level for t in pb.tasks} == {t.level for t in mp.tasks} == {1, 2, 3}
    # tasks come after the year of history their memory was derived from
    for s in (pb, mp):
        last = max(m.valid_from for p in s.personas for m in p.memory)
        assert min(t.time for t in s.tasks) > last


def test_world_generalisation_keeps_web_domains_and_checks_new_fields():
    with pytest.raises(ValueError, match="site_slot"):
        DomainSpec("d", "d", ("x",), (SlotSpec("a", ("1", "2", "3"), "{v}", "my a"),), "s", "c")
    with pytest.raises(ValueError, match="default"):
        SlotSpec("a", ("1", "2", "3"), "{v}", "my a", default="4")
    with pytest.raises(ValueError, match="history types"):
        DomainSpec(
            "d",
            "d",
            ("x",),
            (SlotSpec("a", ("1", "2", "3"), "{v}", "my a"),),
            "s",
            "c",
            ("made_up",),
            site_slot="",
        )
    spec = SlotSpec("a", ("1", "2", "3"), "{v}", "my a", default="1")
    assert spec.held_values == ("2", "3") and SlotSpec("a", ("1", "2", "3"), "{v}", "my a").held_values == (
        "1",
        "2",
        "3",
    )
