"""Issue 30 item 8: any suite JSON runs under its own name (`benchmark=suite_file`), `pulse tables`
keeps different suites apart, checkpoints are validated at load, `pulse suite-shape` counts a suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eval.config import BenchmarkConfig
from eval.suites import independent_sim, mcp_persona_sim, pibench_sim
from eval.suites.schema import SuiteError, load_suite, suite_from_json

ROOT = Path(__file__).resolve().parents[3]
_BIN = Path(sys.executable).parent / "pulse"
PULSE = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "pulse.cli"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([*PULSE, *args], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)


def tiny_suite(name: str = "my_suite", version: str = "0.3") -> dict:
    """One persona, one task (the first of a pibench_sim chain), renamed: a suite of its own."""
    d = json.loads(json.dumps(pibench_sim.generate(0).to_json()))
    task = d["tasks"][0]
    assert not task["depends_on"]
    d["personas"] = [p for p in d["personas"] if p["user_id"] == task["user_id"]]
    d.update(name=name, version=version, tasks=[task])
    return d


def _write(path: Path, d: dict) -> Path:
    path.write_text(json.dumps(d))
    return path


def _run(tmp_path, eval_cfg, path: Path, out: str, overrides=()):
    from eval.harness import run_eval

    return run_eval(
        eval_cfg(
            tmp_path / out, "none", benchmark="suite_file", overrides=[f"benchmark.path={path}", *overrides]
        )
    )


# -- a suite file under its own name ------------------------------------------------------------


def test_suite_file_runs_under_its_own_name_and_version(tmp_path, eval_cfg):
    from eval.metrics import read_rows

    path = _write(tmp_path / "mine.json", tiny_suite())
    out = _run(tmp_path, eval_cfg, path, "run")
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 1
    assert rows[0]["benchmark"] == "my_suite" and rows[0]["suite_version"] == "0.3"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["suite"]["name"] == "my_suite" and manifest["suite"]["version"] == "0.3"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["benchmark"] == "my_suite" and summary["suite_version"] == "0.3"


def test_suite_file_needs_a_path_and_its_own_name(tmp_path):
    from eval.registry import BENCHMARKS
    from pulse.config.schema import ConfigError

    load = BENCHMARKS.get("suite_file")
    with pytest.raises(ConfigError, match=r"benchmark\.path"):
        load(BenchmarkConfig(name="suite_file"))
    taken = _write(tmp_path / "taken.json", tiny_suite(name="independent_sim"))
    with pytest.raises(SuiteError, match=r"taken\.json: key 'name': 'independent_sim'"):
        load(BenchmarkConfig(name="suite_file", path=str(taken)))
    # a generated suite's benchmark.path still takes only a file with that suite's name
    with pytest.raises(SuiteError, match=r"'my_suite' is not 'pibench_sim'.*benchmark=suite_file"):
        BENCHMARKS.get("pibench_sim")(
            BenchmarkConfig(name="pibench_sim", path=str(_write(tmp_path / "m.json", tiny_suite())))
        )


def test_cli_missing_path_exits_2_naming_the_key(tmp_path):
    r = _cli("eval", "benchmark=suite_file", "method=none", "progress=false", f"out_dir={tmp_path / 'run'}")
    assert r.returncode == 2, r.stderr[-2000:]
    assert "benchmark.path" in r.stderr and "Traceback" not in r.stderr


def test_configs_compose():
    from hydra import compose, initialize_config_dir

    from eval.config import EvalConfig
    from eval.suites.shape import SuiteShapeConfig
    from pulse.cli.support import CONFIG_DIR
    from pulse.config.schema import to_typed

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        typed = to_typed(compose("eval", ["benchmark=suite_file", "benchmark.path=x.json"]), EvalConfig)
        assert typed.benchmark.name == "suite_file" and typed.benchmark.path == "x.json"
        shape = to_typed(compose("suite_shape", ["suite=pibench_sim", "seed=2"]), SuiteShapeConfig)
        assert (shape.suite, shape.seed) == ("pibench_sim", 2)


# -- pulse tables keeps suites apart ------------------------------------------------------------


def test_tables_refuse_a_cell_of_two_suite_versions(tmp_path, eval_cfg):
    from eval.tables import TableError, collect

    a = _run(tmp_path, eval_cfg, _write(tmp_path / "a.json", tiny_suite(version="1.0")), "a")
    b = _run(tmp_path, eval_cfg, _write(tmp_path / "b.json", tiny_suite(version="1.1")), "b", ["seed=1"])
    c = _run(tmp_path, eval_cfg, tmp_path / "a.json", "c", ["seed=1"])
    assert len(collect([a, c])[("*", "none", "my_suite")]) == 2  # two seeds of one suite
    with pytest.raises(TableError) as e:
        collect([a, b])
    msg = str(e.value)
    assert str(a) in msg and str(b) in msg and "suite_version" in msg and "'1.0' vs '1.1'" in msg


def test_tables_refuse_a_cell_of_two_suite_seeds(tmp_path, eval_cfg):
    from eval.tables import TableError, collect

    d = tiny_suite()
    a = _run(tmp_path, eval_cfg, _write(tmp_path / "a.json", d), "a")
    b = _run(tmp_path, eval_cfg, _write(tmp_path / "b.json", {**d, "seed": 7}), "b", ["seed=1"])
    with pytest.raises(TableError, match="suite_seed"):
        collect([a, b])


# -- checkpoints validated at load --------------------------------------------------------------


def _independent() -> dict:
    return json.loads(json.dumps(independent_sim.generate(0).to_json()))


def _carried(d: dict) -> tuple[int, int, int]:
    for i, t in enumerate(d["tasks"]):
        for j, s in enumerate(t["steps"]):
            for k, a in enumerate(s["args"]):
                if a["source"] == "carried":
                    return i, j, k
    raise AssertionError("independent_sim has carried arguments")


def _bad_stage(d):
    d["tasks"][2]["checkpoints"][1]["stage"] = "latest"
    return 2, "checkpoint 1", "key 'stage'"


def _bad_source(d):
    d["tasks"][2]["checkpoints"][1]["source"] = "telepathy"
    return 2, "checkpoint 1", "key 'source'"


def _bad_slot(d):
    d["tasks"][2]["checkpoints"][0]["slot"] = "colour"
    return 2, "checkpoint 0", "key 'slot': slot 'colour' is written by no step"


def _bad_artifact(d):
    d["tasks"][2]["checkpoints"][0]["artifact"] = "nowhere"
    return 2, "checkpoint 0", "key 'artifact'"


def _bad_value(d):
    d["tasks"][2]["checkpoints"][0]["expected"] = "nope"
    return 2, "checkpoint 0", "key 'expected': 'nope'"


def _carry_on_uncarried(d):
    i, j, k = _carried(d)
    a = d["tasks"][i]["steps"][j]["args"][k]
    a["source"] = "explicit"  # keeps its carry_from
    return i, f"steps[{j}].args[{k}]", "key 'carry_from'"


def _carry_from_later(d):
    i, j, k = _carried(d)
    a = d["tasks"][i]["steps"][j]["args"][k]
    a["carry_from"] = f"{d['tasks'][i]['steps'][j]['step_id']}.{a['slot']}"  # its own step: not earlier
    return i, f"steps[{j}].args[{k}]", "carry_from"


@pytest.mark.parametrize(
    "spoil",
    [_bad_stage, _bad_source, _bad_slot, _bad_artifact, _bad_value, _carry_on_uncarried, _carry_from_later],
)
def test_malformed_checkpoint_is_refused_naming_file_task_and_key(spoil, tmp_path):
    d = _independent()
    i, record, key = spoil(d)
    path = _write(tmp_path / "suite.json", d)
    with pytest.raises(SuiteError) as e:
        load_suite(path)
    msg = str(e.value)
    assert "suite.json" in msg and d["tasks"][i]["task_id"] in msg and record in msg and key in msg, msg


@pytest.mark.parametrize("gen", [pibench_sim, mcp_persona_sim, independent_sim])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_generated_suite_passes_its_own_validation(gen, seed):
    s = gen.generate(seed)
    assert suite_from_json(json.loads(json.dumps(s.to_json())), gen.NAME) == s


def test_generated_suite_loaders_still_load(tmp_path):
    from eval.registry import BENCHMARKS

    for name in ("pibench_sim", "mcp_persona_sim", "independent_sim"):
        bench = BENCHMARKS.get(name)(BenchmarkConfig(name=name))
        assert bench.name == name and bench.tasks and len(bench.fingerprint) == 64
        path = tmp_path / f"{name}.json"
        bench.suite.save(path)  # a saved copy still loads under the generated suite's name
        again = BENCHMARKS.get(name)(BenchmarkConfig(name=name, path=str(path)))
        assert again.fingerprint == bench.fingerprint


# -- pulse suite-shape ---------------------------------------------------------------------------


def small_suite() -> dict:
    """A hand-written suite: 1 user, 2 tools, 2 tasks, 3 steps, 5 checkpoints."""

    def arg(slot, gold, source, carry=""):
        return {"slot": slot, "gold": gold, "source": source, "default": gold, "carry_from": carry}

    def cp(i, artifact, slot, expected, stage, source):
        return {"checkpoint_id": f"c{i}", "artifact": artifact, "slot": slot, "expected": expected,
                "stage": stage, "source": source}  # fmt: skip

    tools = [
        {"name": "paint", "service": "studio", "description": "", "params": {"colour": ["red", "blue"]}},
        {"name": "frame", "service": "studio", "description": "", "params": {"wood": ["oak", "pine"]}},
    ]
    t1 = {
        "task_id": "t1", "user_id": "u1", "category": "home", "level": 1, "request_text": "paint, frame",
        "request_args": {}, "depends_on": [],
        "steps": [
            {"step_id": "t1_s1", "tool": "paint", "artifact": "a1", "stage": "early",
             "args": [arg("colour", "red", "preference")]},
            {"step_id": "t1_s2", "tool": "frame", "artifact": "a2", "stage": "late",
             "args": [arg("wood", "oak", "project")]},
        ],
        "checkpoints": [cp(1, "a1", "colour", "red", "early", "preference"),
                        cp(2, "a2", "wood", "oak", "late", "project")],
    }  # fmt: skip
    t2 = {
        "task_id": "t2", "user_id": "u1", "category": "work", "level": 3, "request_text": "paint it blue",
        "request_args": {"colour": "blue"}, "depends_on": ["t1"],
        "steps": [{"step_id": "t2_s1", "tool": "paint", "artifact": "a3", "stage": "middle",
                   "args": [arg("colour", "blue", "explicit")]}],
        "checkpoints": [cp(3, "a3", "colour", "blue", "middle", "explicit"),
                        cp(4, "a3", "colour", "blue", "early", "explicit"),
                        cp(5, "a3", "colour", "blue", "late", "explicit")],
    }  # fmt: skip
    return {
        "name": "small",
        "version": "0.1",
        "seed": 5,
        "personas": [{"user_id": "u1", "role": "", "memory": [], "tools": tools}],
        "tasks": [t1, t2],
    }


def test_suite_shape_counts_a_known_suite(tmp_path):
    path = _write(tmp_path / "small.json", small_suite())
    out = tmp_path / "shape.json"
    r = _cli("suite-shape", f"path={path}", f"out={out}")
    assert r.returncode == 0, r.stderr[-2000:]
    sh = json.loads(out.read_text())
    assert (sh["name"], sh["version"], sh["seed"]) == ("small", "0.1", 5)
    assert (sh["users"], sh["tasks"], sh["steps"], sh["tools"], sh["checkpoints"]) == (1, 2, 3, 2, 5)
    assert sh["checkpoints_per_stage"] == {"early": 2, "middle": 1, "late": 2}
    assert sh["checkpoints_per_source"] == {"explicit": 3, "preference": 1, "project": 1}
    assert sh["tasks_per_category"] == {"home": 1, "work": 1} and sh["tasks_per_level"] == {"1": 1, "3": 1}
    assert sh["args"] == 3 and sh["args_memory_sourced"] == 2
    lines = dict(line.split(None, 1) for line in r.stdout.splitlines() if line and not line.startswith(" "))
    assert lines["suite"].startswith("small v0.1 seed 5") and lines["tasks"].strip() == "2"
    assert lines["steps"].strip() == "3" and lines["users"].strip() == "1"


def test_suite_shape_of_a_generated_suite_matches_it():
    from eval.suites.shape import shape

    s = mcp_persona_sim.generate(0)
    sh = shape(s)
    assert sh["tasks"] == len(s.tasks) and sh["users"] == len(s.personas)
    assert (
        sum(sh["checkpoints_per_stage"].values())
        == sh["checkpoints"]
        == sum(len(t.checkpoints) for t in s.tasks)
    )
    assert sum(sh["tasks_per_category"].values()) == sh["tasks"] and len(sh["tasks_per_category"]) == 7


# -- item 6: less template text --------------------------------------------------------------------


@pytest.mark.parametrize("gen", [pibench_sim, mcp_persona_sim, independent_sim])
def test_artifact_ids_and_subgoals_do_not_carry_tool_names(gen):
    s = gen.generate(0)
    for t in s.tasks:
        names = [x.name for x in s.persona(t.user_id).tools]
        for st in t.steps:
            assert not any(n in st.artifact for n in names), st.artifact
            words = st.tool.replace("_", " ")
            assert st.tool not in st.subgoal and not st.subgoal.startswith(words), st.subgoal
            assert not st.subgoal.startswith(words.split()[0] + " the " + words.split()[-1]), st.subgoal


@pytest.mark.parametrize("gen", [pibench_sim, mcp_persona_sim])
def test_request_subgoals_state_no_value(gen):
    """The work's words never state a tool value: the request states exactly its request_args."""
    from pulse.core.statements import parse_statement, vocab_from_params

    s = gen.generate(1)
    for t in s.tasks:
        vocab = vocab_from_params({k: v for x in s.persona(t.user_id).tools for k, v in x.params.items()})
        for st in t.steps:
            assert parse_statement(st.subgoal, vocab) == {}, st.subgoal
