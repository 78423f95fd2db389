"""independent_sim: determinism, validation round trip, independence from Pulse's world/rule/parser,
enum-consistent gold, an unambiguous vocabulary, and every required situation in every seed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from eval.suites.independent_sim import NAME, generate, load
from eval.suites.independent_sim.vocab import PERSONAS
from eval.suites.schema import suite_from_json

ROOT = Path(__file__).resolve().parents[3]
FORBIDDEN = ("data_gen", "pulse.core.gold", "pulse.core.statements", "eval.suites.generator")
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def suites():
    return {s: generate(s) for s in SEEDS}


def test_deterministic_and_seed_dependent(suites):
    assert json.dumps(generate(0).to_json(), sort_keys=True) == json.dumps(
        suites[0].to_json(), sort_keys=True
    )
    assert json.dumps(suites[0].to_json(), sort_keys=True) != json.dumps(suites[1].to_json(), sort_keys=True)


def test_round_trip_validates(suites):
    for s in suites.values():
        back = suite_from_json(json.loads(json.dumps(s.to_json())))
        assert back == s


def test_imports_nothing_of_pulse_world_rule_or_parser():
    code = (
        "import sys, eval.suites.independent_sim as m; m.generate(0); print('\\n'.join(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    loaded = out.split()
    bad = [m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)]
    assert not bad, f"independent_sim pulls in {bad}"
    assert "eval.suites.independent_sim.generator" in loaded


def test_decision_prefix_matches_writeback():
    from eval.suites.independent_sim.generator import DECISION_PREFIX as ours
    from pulse.agent.writeback import DECISION_PREFIX

    assert ours == DECISION_PREFIX


def test_gold_and_defaults_in_tool_enums(suites):
    for s in suites.values():
        for t in s.tasks:
            tools = {x.name: x for x in s.persona(t.user_id).tools}
            assert 2 <= len(t.steps) <= 4 and t.checkpoints
            done: dict[str, str] = {}
            for st in t.steps:
                for a in st.args:
                    enum = tools[st.tool].params[a.slot]
                    assert a.gold in enum and a.default in enum, (t.task_id, a)
                    if a.source == "carried":
                        assert done[a.carry_from] == a.gold, (t.task_id, a)
                    if a.source == "inapplicable":
                        assert a.gold == a.default and a.slot not in t.request_args
                    done[f"{st.step_id}.{a.slot}"] = a.gold
            for slot, v in t.request_args.items():
                assert v == "?" or any(v in x.params.get(slot, ()) for x in tools.values())


def test_own_vocabulary_disjoint_from_other_suites(suites):
    from eval.suites.mcp_persona_sim import vocab as vocab_mcp
    from eval.suites.pibench_sim import vocab as vocab_pibench

    theirs_slots, theirs_tools = set(), set()
    for d in vocab_pibench.PERSONAS.values():
        for name, (_, _, params, _) in d["tools"].items():
            theirs_tools.add(name)
            theirs_slots |= set(params)
    for tools in vocab_mcp.SERVICES.values():
        for name, (_, params) in tools.items():
            theirs_tools.add(name)
            theirs_slots |= set(params)
    s = suites[0]
    ours_tools = {t.name for p in s.personas for t in p.tools}
    assert not ours_tools & theirs_tools and not set(s.vocabulary) & theirs_slots


def test_surface_forms_map_to_one_value_per_persona(suites):
    s = suites[0]
    owner: dict[str, str] = {}
    for user, d in PERSONAS.items():
        slots = {sl for _, _, _, ps in d["tools"].values() for sl in ps} | set(d["decision"])
        for sl in slots:
            assert owner.setdefault(sl, user) == user, f"slot {sl} shared by personas"
        forms: dict[str, set[tuple[str, str]]] = {}
        for sl in slots:
            assert list(s.vocabulary[sl]) == [x for x in PERSONAS[user]["slots"][sl][1]]
            for v, surf in s.vocabulary[sl].items():
                assert surf[0] == v
                for f in surf:
                    forms.setdefault(f.lower(), set()).add((sl, v))
        for f, owners in forms.items():
            assert len(owners) == 1, f"{user}: form {f!r} -> {owners}"
        # no form inside another (slot, value)'s form as whole words (a reader would see both)
        for f, (o,) in ((f, tuple(o)) for f, o in forms.items()):
            for g, (o2,) in ((g, tuple(o2)) for g, o2 in forms.items()):
                if o != o2 and f != g:
                    assert not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", g), (user, f, g)
        for tag, phrases in d["contexts"].items():
            assert s.conditions[tag] == tuple(phrases)
            for ph in phrases:
                assert ph.lower() not in forms


def _situations(s, user=None):
    tasks = [t for t in s.tasks if user is None or t.user_id == user]
    src = Counter(a.source for t in tasks for st in t.steps for a in st.args)
    personas = [p for p in s.personas if user is None or p.user_id == user]
    texts = [x.text for p in personas for h in p.history for x in h.turns] + [t.request_text for t in tasks]
    canon = {v for sl in s.vocabulary.values() for v in sl}
    paraphrased = any(
        f != v and f.lower() in txt.lower()
        for txt in texts
        for sl in s.vocabulary.values()
        for v, forms in sl.items()
        for f in forms
    )
    own_projects = {t.project_id for t in tasks if t.project_id}
    hist_projects = {h.project_id for p in personas for h in p.history if h.project_id}
    other_users = {
        h.scope
        for p in personas
        for h in p.history
        if h.scope != f"user:{p.user_id}" and h.scope.startswith("user:")
    }
    msgs = [st.user_message_text for t in tasks for st in t.steps if st.user_message]
    return {
        "paraphrase": paraphrased and bool(canon),
        "conditional": src["conditional"] > 0,
        "inapplicable": src["inapplicable"] > 0,
        "revised": src["revised"] > 0,
        "carried": src["carried"] > 0,
        "user_message": src["user_message"] > 0,
        "message_change": any("from now on" in m for m in msgs),
        "message_reveal": any("for this" in m for m in msgs),
        "other_project_decisions": bool(hist_projects - own_projects) and len(own_projects) >= 2,
        "other_users": bool(other_users),
        "ignore_memory": any(
            t.category == "ignore_memory"
            and not t.project_id
            and all(
                a.source in ("explicit", "habit_override", "inapplicable", "default", "carried")
                for st in t.steps
                for a in st.args
            )
            for t in tasks
        ),
        "late_stage": any(c.stage == "late" for t in tasks for c in t.checkpoints),
        "depends_on": any(t.depends_on for t in tasks),
    }


def test_every_situation_in_every_seed_and_persona(suites):
    for seed, s in suites.items():
        assert len(s.personas) == 6
        for p in s.personas:
            n = sum(t.user_id == p.user_id for t in s.tasks)
            assert 12 <= n <= 16
            missing = [k for k, ok in _situations(s, p.user_id).items() if not ok]
            assert not missing, f"seed {seed} persona {p.user_id}: missing {missing}"


def test_conditional_tasks_name_their_context(suites):
    for s in suites.values():
        for t in s.tasks:
            for tag in t.context:
                assert any(ph.lower() in t.request_text.lower() for ph in s.conditions[tag]), t.task_id


def test_history_reads_back_with_the_suite_reader(suites):
    reader = pytest.importorskip("eval.suites.reader")
    for s, p in ((suite, persona) for suite in suites.values() for persona in suite.personas):
        slots = {sl for t in p.tools for sl in t.params}
        r = reader.ValueReader(s.vocabulary, s.conditions, slots)
        facts = {(m.slot, m.value) for m in p.memory if m.is_current}
        for h in p.history:
            for turn in h.turns:
                if turn.role == "tool":
                    continue
                for rv in r.read(turn.text):
                    assert rv.slot in slots
                total, read = r.mention_counts(turn.text)
                assert total == read, (p.user_id, turn.text)
        # every current fact is read from some user turn with its value
        said = {
            (rv.slot, rv.value)
            for h in p.history
            for x in h.turns
            if x.role == "user"
            for rv in r.read(x.text)
        }
        assert facts <= said, (p.user_id, facts - said)
        for t in s.tasks:
            if t.user_id != p.user_id:
                continue
            got = {(rv.slot, rv.value) for rv in r.read(t.request_text)}
            want = {(k, v) for k, v in t.request_args.items() if v != "?"}
            assert got == want, (t.task_id, got, want)


def test_load_applies_personas_and_max_tasks():
    from eval.benchmark import BenchmarkDataError
    from eval.config import BenchmarkConfig

    cfg = BenchmarkConfig(name=NAME, personas=["physio", "sre_lead"], max_tasks=3)
    s = load(cfg)  # the suite behind the benchmark protocol
    assert (
        s.name == NAME
        and s.suite.name == NAME
        and Counter(t.user_id for t in s.tasks) == {"physio": 3, "sre_lead": 3}
    )
    with pytest.raises(BenchmarkDataError):
        load(BenchmarkConfig(name=NAME, personas=["nobody"]))


def test_registered_and_fast():
    import time

    from eval.registry import BENCHMARKS

    assert "independent_sim" in BENCHMARKS
    t0 = time.perf_counter()
    generate(7)
    assert time.perf_counter() - t0 < 2.0
