"""The memory-side LLM of every method (extraction, update decisions, summaries, note analysis,
reminders), configured by the `llm=` config group.

    llm = build_llm(cfg.llm)
    out = llm.json_call("mem0.extract", system, user, standin=lambda: {"facts": [...]})

Two backends behind one call:
- `openai`: any OpenAI-compatible chat endpoint (a served Qwen3, vLLM, a hosted API, or
  `python -m eval.serving.local_server`), through the one endpoint client (`pulse.llm.endpoint`:
  retries with backoff, then `EndpointError` naming the URL), asking for a JSON object. The first
  JSON object of the reply is the answer (`json_reply`); a reply without one is a counted parse
  failure and yields `{}` (the method then does what its algorithm does with an empty answer).
- `offline`: no model. Each call runs the call site's deterministic *stand-in* (`standin`), which
  returns the JSON object the prompt asks for. Every method's stand-ins are built from the same
  rules (eval/methods/standins.py: Pulse's rule-based extractor, slot/value comparison for update
  decisions, bank entries that match the next call for reminders), so offline rows compare memory
  designs, not LLMs. Offline calls take no real time; their latency is *modelled* with the
  simulated task agent's own formula (`latency_s + latency_s_per_1k_tokens * tokens / 1000`), so
  seconds per task count a memory's LLM calls the same way the task agent's calls are counted.

Either way each call's tokens are counted (`pulse.agent.tokens.count_tokens` of the prompt text sent
and of the JSON text returned): these counts go into the Store / Retrieve tokens of the method that
made the call. `label` names what backed the memory; every row and table carries it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pulse.agent.tokens import count_tokens
from pulse.llm.endpoint import ChatConfig, EndpointClient, json_reply


@dataclass(frozen=True)
class LLMCall:
    """What one memory-side call cost."""

    purpose: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float  # measured (endpoint) or modelled (offline)
    ok: bool = True

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class MemoryLLM:
    """Base: token accounting and the call log; subclasses implement `_complete`."""

    label = ""
    offline = True

    def __init__(self):
        self.calls: list[LLMCall] = []
        self.parse_failures = 0

    def json_call(
        self, purpose: str, system: str, user: str, standin: Callable[[], dict[str, Any]]
    ) -> tuple[dict[str, Any], LLMCall]:
        out, text, seconds, ok = self._complete(purpose, system, user, standin)
        call = LLMCall(purpose, count_tokens(system) + count_tokens(user), count_tokens(text), seconds, ok)
        self.calls.append(call)
        return out, call

    def _complete(self, purpose, system, user, standin) -> tuple[dict[str, Any], str, float, bool]:
        raise NotImplementedError


class OfflineLLM(MemoryLLM):
    """Deterministic stand-ins with a modelled latency (see the module docstring)."""

    def __init__(self, latency_s: float, latency_s_per_1k_tokens: float, label: str):
        super().__init__()
        self.latency_s = latency_s
        self.per_1k = latency_s_per_1k_tokens
        self.label = label

    def _complete(self, purpose, system, user, standin):
        out = standin()
        text = json.dumps(out, ensure_ascii=False, sort_keys=True)
        tokens = count_tokens(system) + count_tokens(user) + count_tokens(text)
        return out, text, self.latency_s + self.per_1k * tokens / 1000, True


class EndpointLLM(MemoryLLM):
    """Any OpenAI-compatible /v1/chat/completions endpoint, JSON-object replies."""

    offline = False

    def __init__(self, cfg: ChatConfig):
        super().__init__()
        self.endpoint = EndpointClient(cfg, role="memory LLM")
        self.label = f"llm: {cfg.model}" + (f" @ {cfg.base_url}" if cfg.base_url else "")

    def _complete(self, purpose, system, user, standin):
        t0 = time.perf_counter()
        text = self.endpoint.chat(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            response_format={"type": "json_object"},
        )
        out = json_reply(text)
        if out is None:
            self.parse_failures += 1
        return out or {}, text, time.perf_counter() - t0, out is not None


def build_llm(cfg) -> MemoryLLM:
    """The run's memory-side LLM from its `LLMConfig` (eval/config.py); `.config` keeps the config."""
    from pulse.config.schema import ConfigError

    if cfg.name == "offline":
        if cfg.mem0ai_crosscheck:
            raise ConfigError(
                "llm.mem0ai_crosscheck=true needs llm=openai (the mem0ai package calls a real LLM)"
            )
        label = (
            f"stand-in: rule extractor + slot/value rules (modelled {cfg.latency_s:g} s + "
            f"{cfg.latency_s_per_1k_tokens:g} s/1k tok per call)"
        )
        client: MemoryLLM = OfflineLLM(cfg.latency_s, cfg.latency_s_per_1k_tokens, label)
    else:
        if not cfg.model:
            raise ConfigError(
                "llm.model: llm=openai needs a model name (and llm.base_url for a local endpoint)"
            )
        client = EndpointLLM(cfg)
    client.config = cfg
    return client
