"""One client for the memory-side LLM calls of every method (extraction, update decisions,
summaries, note analysis, reminders), configured by the `llm=` config group.

    llm = build_llm(cfg.llm)
    out = llm.json_call("mem0.extract", system, user, standin=lambda: {"facts": [...]})

Two backends behind one call:
- `openai`: any OpenAI-compatible chat endpoint (a served Qwen3, vLLM, a hosted API, or
  `python -m eval.serving.local_server`), through the `openai` package, asking for a JSON object.
  A reply that is not a JSON object is a counted parse failure and yields `{}` (the method then
  does what its algorithm does with an empty answer); it never raises into the episode.
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


class OpenAIChatLLM(MemoryLLM):
    """Any OpenAI-compatible /v1/chat/completions endpoint, JSON-object replies."""

    offline = False

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str,
        temperature: float,
        max_tokens: int,
        timeout_s: float,
        retries: int,
    ):
        super().__init__()
        from openai import OpenAI

        self.client = OpenAI(
            base_url=base_url or None, api_key=api_key or "EMPTY", timeout=timeout_s, max_retries=retries
        )
        self.model, self.temperature, self.max_tokens = model, temperature, max_tokens
        self.label = f"llm: {model}" + (f" @ {base_url}" if base_url else "")

    def _complete(self, purpose, system, user, standin):
        t0 = time.perf_counter()
        r = self.client.chat.completions.create(
            model=self.model,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            response_format={"type": "json_object"},
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        )
        text = r.choices[0].message.content or ""
        try:
            out = json.loads(_json_part(text))
            ok = isinstance(out, dict)
        except json.JSONDecodeError:
            out, ok = {}, False
        if not ok:
            self.parse_failures += 1
            out = {}
        return out, text, time.perf_counter() - t0, ok


def _json_part(text: str) -> str:
    """The outermost {...} of a reply (small models wrap JSON in prose or code fences)."""
    a, b = text.find("{"), text.rfind("}")
    return text[a : b + 1] if 0 <= a < b else text


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
        client = OpenAIChatLLM(
            cfg.model, cfg.base_url, cfg.api_key, cfg.temperature, cfg.max_tokens, cfg.timeout_s, cfg.retries
        )
    client.config = cfg
    return client
