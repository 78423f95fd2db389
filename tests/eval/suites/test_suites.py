from __future__ import annotations

import json

import pytest

from eval.suites import mcp_persona_sim, pibench_sim
from eval.suites.schema import SuiteError, load_suite, suite_from_json
from eval.suites.scoring import check_task, task_score
from eval.suites.workspace import make_env
from pulse.agent.gate import ToolCallError


@pytest.mark.parametrize("gen", [pibench_sim, mcp_persona_sim])
def test_generation_is_deterministic_and_round_trips(gen, tmp_path):
    a, b = gen.generate(0), gen.generate(0)
    assert a == b and a != gen.generate(1)
    a.save(tmp_path / "s.json")
    assert load_suite(tmp_path / "s.json") == a


def test_suite_shapes():
    pb = pibench_sim.generate(0)
    assert {p.user_id for p in pb.personas} == {
        "researcher",
        "marketer",
        "pharmacist",
        "law_trainee",
        "financier",
    }
    assert any(t.depends_on for t in pb.tasks) and pb.metric == "comp"
    sources = {c.source for t in pb.tasks for c in t.checkpoints}
    assert {"preference", "revised", "project", "habit_override", "explicit"} <= sources
    mp = mcp_persona_sim.generate(0)
    assert (
        len(mp.categories) == 7
        and {t.category for t in mp.tasks} == set(mp.categories)
        and mp.metric == "acc"
    )


def test_bad_suite_file_names_record_and_key(tmp_path):
    d = json.loads(json.dumps(pibench_sim.generate(0).to_json()))
    del d["tasks"][3]["steps"][1]["tool"]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    with pytest.raises(SuiteError, match=r"bad.json: tasks\[3\].*steps\[1\]: missing key 'tool'"):
        load_suite(p)
    d = json.loads(json.dumps(pibench_sim.generate(0).to_json()))
    d["tasks"][0]["steps"][0]["args"][0]["gold"] = "nope"
    with pytest.raises(SuiteError, match=r"tasks\[0\].*gold 'nope'"):
        suite_from_json(d)
    p.write_text("{not json")
    with pytest.raises(SuiteError, match="not valid JSON"):
        load_suite(p)


def test_direct_and_mcp_tools_agree_and_score():
    suite = mcp_persona_sim.generate(0, n_personas=1)
    task = suite.tasks[0]
    states = []
    for transport in ("direct", "mcp"):
        env = make_env(suite.persona(task.user_id).tools, transport)
        try:
            for s in task.steps:
                env(s.tool, {"name": s.artifact, **{a.slot: a.gold for a in s.args}})
            with pytest.raises(ToolCallError, match="unknown tool"):
                env("nope", {})
            with pytest.raises(ToolCallError):
                env(task.steps[0].tool, {"name": "x", task.steps[0].args[0].slot: "not-a-value"})
            states.append(env.state)
        finally:
            env.close()
    assert states[0] == states[1]
    assert task_score(check_task(task, states[0]), "acc") == 1.0
    assert task_score(check_task(task, {}), "acc") == 0.0
