"""The LLM task agent runs an episode over real HTTP against a local OpenAI-compatible server
that serves a tiny local transformers model with constrained tool calling."""

from __future__ import annotations

import pytest

from eval.harness import run_eval
from eval.metrics import read_rows


@pytest.fixture(scope="module")
def server(tiny_model_dir):
    from eval.serving.local_server import serve_in_thread

    srv, url = serve_in_thread(tiny_model_dir, max_tool_calls=3)
    yield url
    srv.shutdown()


def test_llm_agent_episode_over_http(server, tmp_path, eval_cfg):
    import openai

    r = openai.OpenAI(base_url=server, api_key="x").chat.completions.create(
        model="local",
        messages=[{"role": "user", "content": "hi"}],
        tools=[
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "parameters": {
                        "type": "object",
                        "properties": {"a": {"type": "string", "enum": ["x", "y"]}},
                    },
                },
            }
        ],
    )
    assert r.choices[0].message.tool_calls[0].function.name == "f"

    cfg = eval_cfg(
        tmp_path,
        "pulse_rule",
        "mcp_persona_sim",
        [
            "agent=openai",
            "agent.model=local",
            f"agent.base_url={server}",
            "benchmark.max_tasks=1",
            "benchmark.personas=[mcp_user_01]",
            "agent.max_turns=5",
        ],
    )
    out = run_eval(cfg)
    row = read_rows(out / "episodes.jsonl")[0]
    assert row["status"] == "ok", row.get("error")
    assert row["simulated"] is False and row["llm_calls"] >= 2
    assert row["tool_calls"] + row["tool_errors"] + row["interventions"] >= 1


def test_unreachable_endpoint_fails_the_episode_clearly(tmp_path, eval_cfg):
    cfg = eval_cfg(
        tmp_path,
        "none",
        "mcp_persona_sim",
        [
            "agent=openai",
            "agent.model=m",
            "agent.base_url=http://127.0.0.1:9/v1",
            "agent.retries=1",
            "agent.backoff_s=0.01",
            "agent.timeout_s=2",
            "benchmark.max_tasks=1",
            "benchmark.personas=[mcp_user_01]",
        ],
    )
    row = read_rows(run_eval(cfg) / "episodes.jsonl")[0]
    assert row["status"] == "failed" and "EndpointError" in row["error"] and "127.0.0.1:9" in row["error"]


def test_a_user_who_stops_in_the_first_message_ends_the_conversation():
    """τ²'s orchestrator checks every user message for the stop token, the first one included: the
    agent then gets no turn (a weak user-simulator model can stop at once)."""
    from types import SimpleNamespace

    from eval.agents.conversation import run_conversation

    class StopAtOnce:
        def first_message(self):
            return "###STOP###"

        def is_stop(self, text):
            return "###STOP###" in text

    class NoTurns:
        max_turns = 8

        def _complete(self, messages, tools):
            raise AssertionError("the agent must not be asked after the user stopped")

    class Session:
        def start(self, ev):
            return None

        def decide_call(self, ev):
            raise AssertionError("no call can be proposed")

        def end(self, completed):
            return SimpleNamespace(blocking_s=0.0)

    task = SimpleNamespace(task_id="t", time="", request_text="", system_prompt="")
    bench = SimpleNamespace(user_simulator=lambda task: StopAtOnce())
    env = SimpleNamespace(tool_schemas=lambda: [])
    out = run_conversation(NoTurns(), task, env, Session(), bench)
    assert out.extra["termination"] == "user_stop" and out.llm_calls == 0
