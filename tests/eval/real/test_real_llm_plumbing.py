"""Plumbing only: one episode of each real benchmark with the LLM task agent, the LLM user simulator
and the LLM judge, all over real HTTP (the `openai` client) against the local OpenAI-compatible
server (eval/serving/local_server.py) serving a tiny random-init model. The numbers mean nothing;
the test checks that every part is called and recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_data import real_data

from eval.harness import run_eval
from eval.metrics import read_rows

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(scope="module")
def server(tiny_model_dir):
    from eval.serving.local_server import serve_in_thread

    srv, url = serve_in_thread(tiny_model_dir, max_tool_calls=2, max_text_tokens=6)
    yield url
    srv.shutdown()


def _llm(server, with_user=True, with_judge=True):
    ov = [
        "agent=openai",
        "agent.model=local",
        f"agent.base_url={server}",
        "agent.max_turns=4",
        "agent.max_tokens=6",
    ]
    if with_user:
        ov += [
            "benchmark.user.model=local",
            f"benchmark.user.base_url={server}",
            "benchmark.user.max_tokens=6",
        ]
    if with_judge:
        ov += [
            "benchmark.judge.model=local",
            f"benchmark.judge.base_url={server}",
            "benchmark.judge.max_tokens=8",
        ]
    return ov


def test_tau2_episode_with_llm_agent_user_and_judge(server, tmp_path, eval_cfg):
    real_data("tau2/retail")
    out = run_eval(
        eval_cfg(
            tmp_path,
            "pulse_rule",
            "tau2_retail",
            _llm(server) + ["benchmark.personas=[task_2]", "agent.max_turns=1"],
        )
    )
    row = read_rows(out / "episodes.jsonl")[0]
    assert row["status"] == "ok", row.get("error")
    assert row["simulated"] is False and row["llm_calls"] == 1 and row["tool_calls"] + row["tool_errors"] >= 1
    assert row["termination"] in ("user_stop", "max_steps")
    # τ² judges only episodes that ended by a stop; ask the judge endpoint directly for one that did
    from eval.config import BenchmarkConfig
    from eval.episode import EpisodeOutcome
    from eval.real.tau2_retail.benchmark import load
    from pulse.llm.endpoint import ChatConfig

    ep = ChatConfig(model="local", base_url=server, max_tokens=8)
    b = load(BenchmarkConfig(name="tau2_retail", personas=["task_2"], judge=ep, user=ep))
    env = b.open_env("task_2")
    env.begin(b.tasks[0])
    s = b.score(
        b.tasks[0],
        env,
        EpisodeOutcome(
            extra={
                "termination": "user_stop",
                "transcript": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "There are 10 options."},
                ],
            }
        ),
    )
    assert "NL_ASSERTION" in s.detail["evaluated_basis"] and b.judge.endpoint.calls == 1
    assert b.user_simulator(b.tasks[0]).first_message() is not None and b.user_endpoint.calls == 1


def test_pibench_episode_with_hidden_intent_user_and_checklist_judge(server, tmp_path, eval_cfg):
    out = run_eval(
        eval_cfg(
            tmp_path,
            "pulse_rule",
            "pibench",
            _llm(server) + [f"benchmark.path={FIXTURES / 'pibench'}", "benchmark.personas=[beta]"],
        )
    )
    row = read_rows(out / "episodes.jsonl")[0]
    assert row["status"] == "ok", row.get("error")
    assert row["score_detail"]["judge"] == "llm" and row["score_detail"]["proc"]["intents"] == 1
    assert row["llm_calls"] >= 2


def test_persona2web_episode_with_llm_agent(server, tmp_path, eval_cfg):
    out = run_eval(
        eval_cfg(
            tmp_path,
            "pulse_rule",
            "persona2web",
            _llm(server, False, False)
            + [f"benchmark.path={FIXTURES / 'persona2web'}", "benchmark.max_tasks=1"],
        )
    )
    row = read_rows(out / "episodes.jsonl")[0]
    assert row["status"] == "ok", row.get("error")
    assert row["tool_calls"] >= 1 and set(row["components"]) == {"web_em", "pref_r", "loc"}
