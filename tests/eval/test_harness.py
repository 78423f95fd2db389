from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.harness import run_eval
from eval.metrics import read_rows
from eval.registry import AGENTS, BENCHMARKS, METHODS
from pulse.registry import RegistryError

CONF = Path(__file__).resolve().parents[2] / "configs"


def test_registries_suggest_close_names():
    with pytest.raises(RegistryError, match="did you mean 'pulse'"):
        METHODS.get("pulsee")
    with pytest.raises(RegistryError, match="pibench_sim"):
        BENCHMARKS.get("pibench_simm")
    assert set(AGENTS.names()) == {"simulated", "openai", "scripted", "memory_following"}


def test_run_dir_contents_and_resume_skips_finished(tmp_path, eval_cfg):
    cfg = eval_cfg(tmp_path, overrides=["benchmark.max_tasks=2", "benchmark.personas=[researcher,marketer]"])
    out = run_eval(cfg, "x: 1\n")
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 4 and all(r["status"] == "ok" and r["simulated"] for r in rows)
    man = json.loads((out / "manifest.json").read_text())
    assert man["agent"]["simulated"] and man["suite"]["version"] and man["seed"] == 0 and man["git_commit"]
    assert man["memory"] == "pulse.memory.open_memory(kind='structured', embedder='bm25')"
    assert (out / "summary.json").exists() and (out / "config.yaml").exists()
    mtime = (out / "episodes.jsonl").stat().st_mtime_ns
    run_eval(cfg)
    assert len(read_rows(out / "episodes.jsonl")) == 4
    assert (out / "episodes.jsonl").stat().st_mtime_ns == mtime  # nothing rerun
    # a partial chain (crash after its first task, torn last line) is rerun from its start
    lines = (out / "episodes.jsonl").read_text().splitlines()
    keep = [line for line in lines if json.loads(line)["task_id"] != "marketer_task_002"]
    (out / "episodes.jsonl").write_text("\n".join(keep) + '\n{"torn')
    run_eval(cfg)
    rows = read_rows(out / "episodes.jsonl")
    assert sorted(r["task_id"] for r in rows) == sorted(
        ["researcher_task_001", "researcher_task_002", "marketer_task_001", "marketer_task_002"]
    )


def test_failed_episode_is_recorded_and_run_continues(tmp_path, failing_agent, eval_cfg):
    cfg = eval_cfg(tmp_path, overrides=["benchmark.max_tasks=2", "benchmark.personas=[researcher]"])
    out = run_eval(cfg)
    rows = {r["task_id"]: r for r in read_rows(out / "episodes.jsonl")}
    assert (
        rows["researcher_task_001"]["status"] == "failed" and "boom" in rows["researcher_task_001"]["error"]
    )
    assert rows["researcher_task_002"]["status"] == "ok"
    assert json.loads((out / "summary.json").read_text())["failed"] == 1


def test_missing_checkpoint_is_a_clear_config_error(tmp_path, eval_cfg):
    from pulse.config.schema import ConfigError

    with pytest.raises(ConfigError, match="policy.name_or_path"):
        run_eval(eval_cfg(tmp_path, method="pulse", overrides=["benchmark.max_tasks=1"]))


METHOD_NAMES = sorted(p.stem for p in (CONF / "method").glob("*.yaml"))


FIRST_PERSONA = {
    "pibench_sim": "researcher",
    "mcp_persona_sim": "mcp_user_01",
    "independent_sim": "consultant",
}


@pytest.mark.parametrize("benchmark", sorted(FIRST_PERSONA))
@pytest.mark.parametrize("method", METHOD_NAMES)
def test_every_method_runs_one_episode_on_every_suite(method, benchmark, tmp_path, tiny_model_dir, eval_cfg):
    persona = FIRST_PERSONA[benchmark]
    cfg = eval_cfg(
        tmp_path,
        method,
        benchmark,
        ["benchmark.max_tasks=1", f"benchmark.personas=[{persona}]"],
        model_dir=tiny_model_dir,
    )
    out = run_eval(cfg)
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 1 and rows[0]["status"] == "ok", rows[0].get("error")
    assert 0.0 <= rows[0]["score"] <= 1.0 and rows[0]["method"] == method


def test_untrained_policy_parse_failures_act_as_silent(tmp_path, tiny_model_dir, eval_cfg):
    cfg = eval_cfg(
        tmp_path,
        "pulse_no_rl",
        overrides=["benchmark.max_tasks=3", "benchmark.personas=[researcher]"],
        model_dir=tiny_model_dir,
    )
    rows = read_rows(run_eval(cfg) / "episodes.jsonl")
    calls = sum(r["policy_calls"] for r in rows)
    assert all(r["status"] == "ok" for r in rows) and calls > 0
    assert sum(r["parse_failures"] for r in rows) >= calls - len(rows)
    assert sum(r["interventions"] for r in rows) == 0


def test_tables_render_markdown_latex_and_plots(tmp_path, eval_cfg):
    from eval.tables import render

    for seed in (0, 1):
        for method in ("none", "pulse_rule"):
            run_eval(
                eval_cfg(
                    tmp_path / f"{method}{seed}",
                    method,
                    overrides=["benchmark.max_tasks=1", "benchmark.personas=[researcher]", f"seed={seed}"],
                )
            )
    md = render([tmp_path], tmp_path / "tables")
    assert "(sim)" in md and "±" in md and "Simulated task agent" in md
    assert (tmp_path / "tables" / "tables.tex").exists()
    assert list((tmp_path / "tables").glob("stage_accuracy_*.png"))


def test_method_memory_kinds_are_pulse_memory_kinds_with_the_papers_layers(tmp_path):
    """Every method config names a pulse.memory kind; Flat + User keeps the structured *user* part,
    Flat + Project the structured *project* part (the paper's ablation rows)."""
    from method_configs import method_configs

    from eval.memory_backends import open_chain_memory
    from pulse.memory import KINDS

    cfgs = method_configs()
    # Pulse's configs and `none` (the baselines keep their own memory: eval/methods/<impl>.py)
    kinds = {k: c["memory"] for k, c in cfgs.items() if c["impl"] in ("pulse", "none")}
    assert set(kinds.values()) <= set(KINDS)
    assert kinds["pulse_flat_user"] == "flat_user" and kinds["pulse_flat_project"] == "flat_project"
    expect = {
        "flat_user": ("graph", "flat"),
        "flat_project": ("flat", "graph"),
        "flat": ("flat", "flat"),
        "structured": ("graph", "graph"),
    }
    for kind, layers in expect.items():
        mem = open_chain_memory(kind, tmp_path / kind, "u1", ["p1"], [])
        assert (mem.user_retriever.name, mem.project_retriever.name) == layers
        mem.close()


def test_unknown_memory_kind_is_a_clear_error(tmp_path, eval_cfg):
    from pulse.config.schema import ConfigError

    # rejected when the config is typed, before any store is opened, with the valid choices
    with pytest.raises(ConfigError, match=r"method.memory.*flat_usr.*flat_user"):
        eval_cfg(tmp_path / "run", overrides=["method.memory=flat_usr", "benchmark.max_tasks=1"])


@pytest.mark.parametrize("kind", ["flat", "flat_user", "flat_project", "structured"])
def test_every_memory_kind_keeps_projects_isolated(tmp_path, kind):
    """No kind, flat ones included, returns another project's records."""
    from eval.memory_backends import open_chain_memory
    from pulse.core.records import MemoryItem, Provenance
    from pulse.memory import RetrievalQuery

    items = [
        MemoryItem(
            f"{p}-tpl",
            "project_state",
            f"project:{p}",
            f"Project {p} decided latex template = {v}.",
            slot="latex_template",
            value=v,
            topic=p,
            provenance=Provenance("tool_receipt"),
            valid_from="2025-01-01T00:00:00",
        )
        for p, v in (("p1", "article"), ("p2", "revtex"))
    ]
    mem = open_chain_memory(kind, tmp_path / kind, "u1", ["p1", "p2"], items)
    from pulse.core.records import Event

    q = RetrievalQuery(
        "u1",
        "p1",
        subgoal="latex template revtex article",
        candidate_call=Event("candidate_call", 1, tool="approve_plan", args={"latex_template": "revtex"}),
    )
    hits = mem.retrieve(q)
    assert [h.item.item_id for h in hits] == ["p1-tpl"]
    mem.close()


def test_embedder_is_a_run_config_knob(tmp_path, eval_cfg):
    """Every store of a run uses the configured embedder (recorded in the manifest; part of the
    config hash), and a typo in its name fails when the config is typed."""
    from pulse.config.schema import ConfigError

    small = ["benchmark.max_tasks=1", "benchmark.personas=[researcher]"]
    out = run_eval(eval_cfg(tmp_path / "hash", overrides=[*small, "embedder.name=hash"]))
    man = json.loads((out / "manifest.json").read_text())
    assert man["memory"] == "pulse.memory.open_memory(kind='structured', embedder='hash')"
    rows = read_rows(out / "episodes.jsonl")
    assert rows and rows[0]["status"] == "ok"
    bm25 = run_eval(eval_cfg(tmp_path / "bm25", overrides=small))
    assert read_rows(bm25 / "episodes.jsonl")[0]["config_hash"] != rows[0]["config_hash"]
    with pytest.raises(ConfigError, match=r"embedder.name.*bm25"):
        eval_cfg(tmp_path / "x", overrides=[*small, "embedder.name=bm52"])
