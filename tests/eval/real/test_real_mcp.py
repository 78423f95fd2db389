"""transport=mcp: the real benchmarks' tools served by a real MCP server score as the direct ones."""

from __future__ import annotations

from pathlib import Path

from real_data import real_data

from eval.harness import run_eval
from eval.metrics import read_rows

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _scores(tmp_path, eval_cfg, bench, overrides):
    out = {}
    for transport in ("direct", "mcp"):
        rows = read_rows(
            run_eval(
                eval_cfg(
                    tmp_path / transport,
                    "pulse_rule",
                    bench,
                    ["agent=scripted", f"benchmark.transport={transport}", *overrides],
                )
            )
            / "episodes.jsonl"
        )
        assert all(r["status"] == "ok" for r in rows), rows[0].get("error")
        out[transport] = [
            (r["task_id"], r["score"], r.get("components"), r["tool_calls"], r["tool_errors"]) for r in rows
        ]
    return out


def test_tau2_gold_replay_over_mcp_matches_direct(tmp_path, eval_cfg):
    real_data("tau2/retail")
    s = _scores(
        tmp_path,
        eval_cfg,
        "tau2_retail",
        ["benchmark.personas=[task_0,task_2,task_5,task_10,task_46,task_105]"],
    )
    assert s["direct"] == s["mcp"] and len(s["mcp"]) == 6 and all(x[2]["DB"] == 1.0 for x in s["mcp"])


def test_persona2web_and_pibench_fixtures_over_mcp_match_direct(tmp_path, eval_cfg):
    s = _scores(tmp_path / "p2w", eval_cfg, "persona2web", [f"benchmark.path={FIXTURES / 'persona2web'}"])
    assert s["direct"] == s["mcp"] and [x[1] for x in s["mcp"]] == [1.0, 1.0, 1.0]
    s = _scores(
        tmp_path / "pb", eval_cfg, "pibench", ["agent.script=noop", f"benchmark.path={FIXTURES / 'pibench'}"]
    )
    assert s["direct"] == s["mcp"]


def test_workspace_file_tools_over_mcp(tmp_path):
    from eval.config import BenchmarkConfig
    from eval.real.pibench.benchmark import load

    b = load(BenchmarkConfig(name="pibench", path=str(FIXTURES / "pibench")))
    env = b.open_env("alpha", "mcp")
    try:
        assert "read_file" in env.list_tools() and "mcp_appworld_simple_note__login" in env.list_tools()
        env("write_file", {"path": "n.md", "content": "hello"})
        assert env("read_file", {"path": "n.md"}) == "hello"
        import pytest

        from pulse.agent.gate import ToolCallError

        with pytest.raises(ToolCallError, match="outside the workspace"):
            env("read_file", {"path": "../../etc/passwd"})
    finally:
        env.close()
