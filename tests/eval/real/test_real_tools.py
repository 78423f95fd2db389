"""Pulse on real tools (issue 18): schema tools per benchmark, scoped gating on Persona2Web, the memory-
following agent, τ² seed histories from the retail database. Real data: skipped without PULSE_DATA_DIR."""

from __future__ import annotations

import pytest
from real_data import real_data

from eval.harness import run_eval
from eval.metrics import read_rows

USERS = "[Alex_Garcia,Casey_Taylor,Cameron_Smith]"


def test_every_real_benchmark_publishes_schema_tools_with_call_kinds():
    from eval.real.persona2web.benchmark import SCHEMAS, Persona2Web
    from eval.real.tau2_retail.benchmark import Tau2Retail
    from pulse.agent.schema import SchemaTool

    p2w = [SchemaTool.from_openai(s, Persona2Web.read_only_tools) for s in SCHEMAS]
    assert {t.name: t.call_kind for t in p2w} == {
        "web_search": "read_only",
        "open_website": "state_changing",
        "submit_answer": "state_changing",
    }
    assert (
        "get_order_details" in Tau2Retail.read_only_tools
        and "cancel_pending_order" not in Tau2Retail.read_only_tools
    )


def _by_level(rows):
    out = {}
    for r in rows:
        n, c = out.get(r["level"], (0, 0))
        out[r["level"]] = (n + r["interventions"], c + r["interventions_correct"])
    return out


def test_persona2web_scoped_gating_request_only(tmp_path, eval_cfg):
    real_data("persona2web")
    out = run_eval(
        eval_cfg(
            tmp_path / "ro",
            "pulse_rule",
            "persona2web",
            [
                "agent=scripted",
                "agent.script=request_only",
                "benchmark.seed_history=synthetic",
                f"benchmark.personas={USERS}",
            ],
        )
    )
    lv = _by_level(read_rows(out / "episodes.jsonl"))
    held = sum(n for n, _ in lv.values())
    assert held >= 12 and sum(c for _, c in lv.values()) / held >= 0.8
    assert lv[3][0] == lv[3][1]  # at level 3 the request names the site: no wrong hold


def test_memory_following_agent_takes_what_memory_delivers(tmp_path, eval_cfg):
    real_data("persona2web")
    web = {}
    for m in ("none", "pulse_rule", "mem0"):
        out = run_eval(
            eval_cfg(
                tmp_path / m,
                m,
                "persona2web",
                ["agent=memory_following", "benchmark.seed_history=synthetic", f"benchmark.personas={USERS}"],
            )
        )
        rows = read_rows(out / "episodes.jsonl")
        assert all(r["status"] == "ok" for r in rows) and rows[0]["simulated"] is True
        web[m] = {
            lv: sum(r["components"]["web_em"] for r in rows if r["level"] == lv) / 9 for lv in (1, 2, 3)
        }
    assert web["none"][1] == 0.0 and web["pulse_rule"][1] >= 0.6  # memory (and its gate) find the site
    assert web["pulse_rule"][3] >= web["none"][3] - 1e-9  # memory never harms an explicit request here


def test_tau2_retail_db_history_is_a_named_variant_and_gold_replay_stays_perfect(tmp_path, eval_cfg):
    real_data("tau2/retail")
    from eval.config import BenchmarkConfig
    from eval.registry import BENCHMARKS

    b = BENCHMARKS.get("tau2_retail")(BenchmarkConfig(name="tau2_retail", seed_history="retail_db"))
    assert b.name.endswith("nonstandard") and "retail database" in b.nonstandard
    h = b.seed_history("task_0")
    assert h.sessions and "My email is" in h.sessions[0].turns[0].text
    assert all(s.time < "2025" for s in h.sessions)
    ids = "[task_0,task_1,task_2,task_3,task_4,task_5,task_6,task_7]"
    out = run_eval(
        eval_cfg(
            tmp_path / "t2",
            "pulse_rule",
            "tau2_retail",
            [
                "agent=scripted",
                "agent.script=gold",
                "benchmark.seed_history=retail_db",
                f"benchmark.personas={ids}",
            ],
        )
    )
    rows = read_rows(out / "episodes.jsonl")
    assert [r["score"] for r in rows] == [1.0] * 8 and sum(r["interventions"] for r in rows) == 0


def test_bad_history_kind_is_refused_by_name(tmp_path, eval_cfg):
    real_data("persona2web")
    with pytest.raises(Exception, match="seed_history"):
        run_eval(eval_cfg(tmp_path / "bad", "none", "persona2web", ["benchmark.seed_history=retail_db"]))
