"""An LLM task agent with tool calling over any OpenAI-compatible chat endpoint (the real setting).

The loop: system + user request (with Pulse's initial delivery, if any) -> chat completion with the
benchmark's tools -> every returned tool call becomes a `candidate_call` event and goes through the
pre-commit gate (executed on silent/supplement; on intervene not executed, and the evidence is the
tool message the model sees so it can replan) -> tool results are `tool_result` events -> before
each next completion, pending supplements are added as a "Memory note" message. Stops when the
model answers without tool calls or after `max_turns`. Malformed tool-call JSON, unknown tools and
bad arguments become error tool messages, never crashes. The endpoint is `agent.*` (a
`pulse.llm.endpoint.ChatConfig`; configs/agent/openai.yaml points it at the run's `endpoint`);
failures are retried with exponential backoff, then raised as `EndpointError` naming the URL (the
harness records the episode as failed). Time per task is measured wall time.
"""

from __future__ import annotations

import json
import time
from typing import Any

from eval.agents.conversation import assistant_turn, run_conversation, tool_call
from eval.episode import EpisodeOutcome, event_maker
from eval.suites.schema import SimTask
from pulse.agent.gate import PreCommitGate
from pulse.config.schema import ConfigError
from pulse.llm.endpoint import ChatConfig, EndpointClient

SYSTEM = (
    "You are a helpful assistant that completes the user's task by calling tools. Call the tools "
    "needed, one artifact per call, then reply briefly. Respect the user's stated constraints and "
    "any memory notes about their preferences."
)


class LLMToolAgent:
    """The LLM task agent (`agent=openai`, the module docstring): built from a `ChatConfig` endpoint
    (ConfigError when it has no model and URL), `run(task, env, session, seed, bench)` plays one episode, a
    generated suite's task or a real benchmark's conversation, and returns its `EpisodeOutcome`; endpoint
    failures raise `EndpointError`."""

    name = "openai"
    simulated = False

    def __init__(self, endpoint: ChatConfig, max_turns: int = 12):
        if not endpoint.configured:
            raise ConfigError(
                "agent.model and agent.base_url are required for agent=openai (or endpoint=local|vllm|openai "
                "with endpoint.model)"
            )
        self.client = EndpointClient(endpoint, role="task-agent")
        self.model = f"{endpoint.model}@{endpoint.base_url}"
        self.max_turns = max_turns

    def _complete(self, messages, tools):
        return self.client.complete(messages, tools=tools)

    def check(self, bench) -> None:
        """An LLM agent runs every benchmark: a generated suite's plan, a real one's conversation."""

    def run(self, task, env, session, seed: int, bench) -> EpisodeOutcome:
        if not isinstance(task, SimTask):  # a real benchmark's task (eval/real/): user <-> assistant turns
            return run_conversation(self, task, env, session, bench)
        return self._run_suite_task(task, env, session)

    def _run_suite_task(self, task: SimTask, env, session) -> EpisodeOutcome:
        t_start = time.perf_counter()
        out = EpisodeOutcome()
        event = event_maker(task)

        tools = env.tool_schemas()
        request = event("request", text=task.request_text, role="user")  # text only: Pulse parses it
        first = session.start(request)
        user_text = task.request_text + (f"\n\nWhat I remember about you:\n{first.message}" if first else "")
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": user_text},
        ]
        gold = {s.artifact: {a.slot: a.gold for a in s.args} for s in task.steps}
        gate = PreCommitGate(executor=env, decide=session.decide_call)
        pending_user = {i: s for i, s in enumerate(task.steps) if s.user_message}
        for turn in range(self.max_turns):
            if turn in pending_user:  # the user's mid-task message arrives at this turn
                s = pending_user[turn]
                messages.append({"role": "user", "content": s.user_message_text})
                session.observe(event("message", role="user", text=s.user_message_text))
            msg, calls = assistant_turn(self, session, messages, tools, out, event)
            if not calls:
                break
            for c in calls:
                tool_call(
                    c,
                    gate,
                    session,
                    messages,
                    out,
                    event,
                    # correct: the held call differs from the gold on an argument of its artifact
                    correct=lambda args: any(
                        str(args.get(s)) != g for s, g in gold.get(str(args.get("name", "")), {}).items()
                    ),
                    result_text=json.dumps,
                    result_args=lambda r: {k: str(v) for k, v in (r or {}).items()},
                )
        stats = session.end(True)
        out.seconds = time.perf_counter() - t_start
        out.memory_blocking_s = stats.blocking_s
        return out


def build(cfg) -> LLMToolAgent:
    """From `agent.*` (an AgentConfig: its ChatConfig keys are the endpoint)."""
    return LLMToolAgent(cfg, cfg.max_turns)
