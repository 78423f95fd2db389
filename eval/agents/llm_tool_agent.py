"""An LLM task agent with tool calling over any OpenAI-compatible chat endpoint (the real setting).

The loop: system + user request (with Pulse's initial delivery, if any) -> chat completion with the
benchmark's tools -> every returned tool call becomes a `candidate_call` event and goes through the
pre-commit gate (executed on silent/supplement; on intervene not executed, and the evidence is the
tool message the model sees so it can replan) -> tool results are `tool_result` events -> before
each next completion, pending supplements are added as a "Memory note" message. Stops when the
model answers without tool calls or after `max_turns`. Malformed tool-call JSON, unknown tools and
bad arguments become error tool messages, never crashes. Endpoint failures are retried with
exponential backoff, then raised as `EndpointError` naming the URL (the harness records the
episode as failed). Time per task is measured wall time.
"""

from __future__ import annotations

import json
import time
from typing import Any

from eval.agents.conversation import assistant_turn, run_conversation, tool_call
from eval.episode import EpisodeOutcome, event_maker
from eval.suites.schema import SimTask
from pulse.agent.gate import PreCommitGate

SYSTEM = (
    "You are a helpful assistant that completes the user's task by calling tools. Call the tools "
    "needed, one artifact per call, then reply briefly. Respect the user's stated constraints and "
    "any memory notes about their preferences."
)


class EndpointError(RuntimeError):
    pass


class LLMToolAgent:
    name = "openai"
    simulated = False

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str = "EMPTY",
        max_turns: int = 12,
        temperature: float = 0.0,
        max_tokens: int = 256,
        retries: int = 3,
        backoff_s: float = 0.5,
        timeout_s: float = 60.0,
    ):
        from openai import OpenAI

        if not model or not base_url:
            raise ValueError("agent.model and agent.base_url are required for agent=openai")
        self.model = f"{model}@{base_url}"
        self._model, self.base_url = model, base_url
        self.max_turns, self.temperature, self.max_tokens = max_turns, temperature, max_tokens
        self.retries, self.backoff_s = retries, backoff_s
        self.client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout_s)

    def _complete(self, messages, tools):
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            try:
                return self.client.chat.completions.create(
                    model=self._model,
                    messages=messages,
                    tools=tools,
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                )
            except Exception as e:  # connection errors, 5xx, timeouts
                last = e
                if attempt < self.retries:
                    time.sleep(self.backoff_s * 2**attempt)
        raise EndpointError(
            f"task-agent endpoint {self.base_url} (model {self._model}) failed after "
            f"{self.retries + 1} attempts: {type(last).__name__}: {last}"
        )

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
    return LLMToolAgent(
        cfg.model,
        cfg.base_url,
        cfg.api_key,
        cfg.max_turns,
        cfg.temperature,
        cfg.max_tokens,
        cfg.retries,
        cfg.backoff_s,
        cfg.timeout_s,
    )
