"""Labeller rules on hand-built inputs, and the labeller re-applied to every generated example.

Run: .venv/bin/python -m pytest tests/data_gen -q
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from data_gen.build import generate_examples
from data_gen.cases import CASES
from data_gen.config import GenDataConfig
from pulse.agent.rule_policy import RulePolicy
from pulse.core.gold import BINDING_KINDS, gold_decision
from pulse.core.records import Event, MemoryItem


def pref(i, slot, value, kind="preference", valid_to="", supersedes=""):
    return MemoryItem(
        i,
        kind,
        "user:u1",
        f"{slot} {value}",
        slot=slot,
        value=value,
        topic="apparel",
        valid_to=valid_to,
        supersedes=supersedes,
    )


def req(**args):
    return Event("request", 0, args=args)


def call(step=1, **args):
    return Event("candidate_call", step, tool="search_products", args=args)


def msg(role, step=1, **args):
    return Event("message", step, role=role, args=args)


def result(step=2):
    return Event("tool_result", step, tool="search_products", args={"n_results": "3"})


def decide(prefix, snapshot):
    d = gold_decision(tuple(prefix), tuple(snapshot))
    return d.action, d.evidence


SIZE = pref("m1", "size", "32x32")


def test_conflict_intervenes_with_current_preference():
    assert decide([req(size="?"), call(size="34x32")], [SIZE]) == ("intervene", ("m1",))


def test_intervene_only_at_candidate_call():
    # the same wrong value in an agent message is a supplement (misstated), never an intervention
    assert decide([req(size="?"), msg("agent", size="34x32")], [SIZE]) == ("supplement", ("m1",))
    assert decide([req(size="?"), msg("user", size="34x32")], [SIZE])[0] == "silent"


def test_explicit_request_value_overrides_memory():
    assert decide([req(size="34x32"), call(size="34x32")], [SIZE])[0] == "silent"
    assert decide([req(size="?"), msg("user", size="34x32"), call(2, size="34x32")], [SIZE])[0] == "silent"


def test_habit_is_not_a_constraint():
    habit = pref("m1", "site", "notion.so", kind="habit")
    assert decide([req(site="?"), call(site="obsidian.md")], [habit])[0] == "silent"
    assert decide([req(site="?"), result()], [habit])[0] == "silent"


def test_revised_preference_only_current_version_counts():
    old = pref("m1", "size", "30x30", valid_to="2024-06-01T00:00:00")
    new = pref("m2", "size", "32x32", supersedes="m1")
    assert decide([req(size="?"), call(size="32x32")], [old, new])[0] == "silent"
    assert decide([req(size="?"), call(size="30x30")], [old, new]) == ("intervene", ("m2",))


def test_omitted_preference_is_supplemented_at_choice_points():
    for last in (call(), result(), msg("agent")):
        assert decide([req(size="?"), last], [SIZE]) == ("supplement", ("m1",)), last.kind
    # not when the request does not refer to the slot, nor at the request itself
    assert decide([req(), call()], [SIZE])[0] == "silent"
    assert decide([req(size="?")], [SIZE])[0] == "silent"


def test_already_delivered_value_is_not_repeated():
    prefix = [req(size="?"), msg("memory", size="32x32"), call(2)]
    assert decide(prefix, [SIZE])[0] == "silent"


def test_misstated_then_corrected_then_used_intervenes():
    prefix = [
        req(size="?"),
        msg("agent", size="34x32"),
        msg("memory", 2, size="32x32"),
        call(3, size="34x32"),
    ]
    assert decide(prefix, [SIZE]) == ("intervene", ("m1",))


def test_irrelevant_memory_is_silent():
    other = pref("m1", "cuisine", "thai")
    assert decide([req(size="?"), call(size="34x32")], [other])[0] == "silent"


def test_intervene_takes_precedence_and_collects_all_slots():
    budget = pref("m2", "budget", "$60")
    prefix = [req(size="?", budget="?"), call(size="34x32", budget="$100")]
    assert decide(prefix, [SIZE, budget]) == ("intervene", ("m1", "m2"))


def test_agent_plan_stating_a_value_is_not_an_override():
    # a task agent announcing the value it will use does not make that value the user's choice
    prefix = [req(size="?"), msg("agent", size="34x32"), call(2, size="34x32")]
    assert decide(prefix, [SIZE]) == ("intervene", ("m1",))
    # ...and announcing the right value makes a later supplement unnecessary
    assert decide([req(size="?"), msg("agent", size="32x32"), call(2)], [SIZE])[0] == "silent"


def test_project_decisions_bind_like_preferences():
    decision = MemoryItem("p1", "project_state", "project:x", "tracker wandb", slot="tracker", value="wandb")
    assert decide([req(tracker="?"), call(tracker="mlflow")], [decision]) == ("intervene", ("p1",))
    assert decide([req(tracker="mlflow"), call(tracker="mlflow")], [decision])[0] == "silent"


# -- every generated example ----------------------------------------------------------------------
@lru_cache(maxsize=1)
def small():
    return generate_examples(GenDataConfig(seed=3, n_users=40))


def all_examples():
    return [e for exs in small().values() for e in exs]


def test_gold_recomputes_from_policy_input_on_every_example():
    for e in all_examples():
        assert gold_decision(e.inp.prefix, e.inp.snapshot) == e.gold, e.example_id
        assert e.gold.action == CASES[e.case_type].action, e.example_id


def test_labels_are_legal_and_evidence_is_current_preferences():
    for e in all_examples():
        items = {m.item_id: m for m in e.inp.snapshot}
        assert len(items) == len(e.inp.snapshot), "item ids unique within a snapshot"
        if e.gold.action == "intervene":
            assert e.inp.last_event.kind == "candidate_call", e.example_id
        if e.gold.action == "silent":
            assert not e.gold.evidence
        else:
            assert e.gold.evidence
            for i in e.gold.evidence:
                assert items[i].kind in BINDING_KINDS and items[i].is_current, (e.example_id, i)


def test_snapshots_are_valid():
    for e in all_examples():
        assert 3 <= len(e.inp.snapshot) <= 12
        ids = {m.item_id: m for m in e.inp.snapshot}
        for m in e.inp.snapshot:
            assert m.valid_from <= e.as_of and (not m.valid_to or m.valid_to <= e.as_of)
            if m.supersedes:
                old = ids[m.supersedes]  # the superseded version is always in the snapshot
                assert old.valid_to and old.slot == m.slot and old.topic == m.topic
        assert 1 <= len(e.inp.prefix) <= 6 and 1 <= len(e.task_slots) <= 3


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_case_type_present(case):
    assert any(e.case_type == case for e in all_examples())


@pytest.mark.parametrize("style", ["compact", "compact_marked"])
def test_label_is_a_function_of_the_compact_prompt(style):
    # a small model only sees its compact prompt: identical prompts must never carry different
    # labels (in the prompt's own ids, the form the model is trained on)
    from pulse.core.policy_io import gold_completion, render_prompt

    seen: dict[str, str] = {}
    for e in all_examples():
        key = render_prompt(e.inp, style)[0]["content"]
        label = gold_completion(e.inp, e.gold, style)
        assert seen.setdefault(key, label) == label, key


def test_rule_policy_equals_the_gold_label_on_the_test_split():
    test = small()["test"]
    outs = RulePolicy().decide_batch([e.inp for e in test])
    assert len(test) > 20
    assert [o.decision for o in outs] == [e.gold for e in test]


def test_request_args_are_pulses_parse_of_the_request_text():
    # the prefix's request args are what Pulse's own parser reads from the text, for every example
    from data_gen.build import domain_vocab
    from data_gen.world.vocab_web import WEB_DOMAINS
    from pulse.core.statements import parse_statement

    for e in all_examples()[:300]:
        first = e.inp.prefix[0]
        assert first.args == parse_statement(first.text, domain_vocab(WEB_DOMAINS[e.task_topic])), (
            e.example_id
        )
