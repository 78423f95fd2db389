"""One OpenAI-compatible endpoint (`vllm serve`, a hosted API, eval/serving/local_server.py): its typed
config and the one client every caller uses: the policy backend (pulse/policy/openai_policy.py), the
LLM task agent (eval/agents/llm_tool_agent.py), the real benchmarks' user simulators and judges
(eval/real/), the baselines' memory-side LLM (eval/methods/memory_llm.py) and the embeddings client
(pulse/memory/embedders/openai_api.py).

    client = EndpointClient(ChatConfig(model="local", base_url="http://127.0.0.1:8011/v1"), role="judge")
    text = client.chat([{"role": "user", "content": "hi"}])          # plain text
    reply = client.complete(messages, tools=tools)                    # a ChatCompletion (tool calls)
    verdict = client.chat_json(messages)                              # the first JSON object, or None
    vectors = client.embed(["a", "b"])                                # /v1/embeddings

The `openai` client is built once per endpoint with its own retries off: every request is retried
here, `retries` times after the first attempt, waiting `backoff_s * 2**attempt` seconds between
attempts (connection errors, timeouts, 408/409/429 and 5xx; any other 4xx is not retried), then one
`EndpointError` naming the caller's role, the URL and the model (the harness records the episode as
failed). `json_reply` parses the first JSON object of a reply; a reply without one is reported
(None), never guessed.

Hydra: the `endpoint` group (configs/endpoint/{none,local,vllm,openai}.yaml) is the run's endpoint;
`pulse eval` points the task agent, the user simulator, the judge and the memory-side LLM (llm=openai)
at it by interpolation, so `endpoint=local` or `endpoint.base_url=URL endpoint.model=M` moves them
all, and `agent.base_url=...`, `benchmark.judge.model=...`, `llm.timeout_s=...` still override one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pulse.config.schema import ConfigError, knob

T = TypeVar("T")


@dataclass(frozen=True)
class EndpointConfig:
    """Where an OpenAI-compatible endpoint is and how it is called ("" model or base_url = none)."""

    model: str = ""  # model name on the endpoint
    # e.g. http://127.0.0.1:8011/v1; "" = the openai client's default (OPENAI_BASE_URL, else api.openai.com)
    base_url: str = ""
    api_key: str = "EMPTY"  # the key itself (local servers accept any); never hashed, never logged
    # name of an environment variable holding the key (e.g. OPENAI_API_KEY); when set it replaces
    # api_key and must be set in the environment
    api_key_env: str = ""
    timeout_s: float = knob(60.0, gt=0.0)  # seconds per request
    retries: int = knob(3, ge=0)  # attempts after the first, with exponential backoff
    backoff_s: float = knob(0.5, ge=0.0)  # first wait; doubles after every failed attempt

    @property
    def configured(self) -> bool:
        return bool(self.model and self.base_url)


@dataclass(frozen=True)
class ChatConfig(EndpointConfig):
    """An endpoint plus how one caller samples chat completions from it."""

    temperature: float = knob(0.0, ge=0.0)  # 0 = greedy
    max_tokens: int = knob(512, ge=1)  # completion cap per call (tokens)


class EndpointError(RuntimeError):
    """An endpoint request failed after its retries; the message names the role, URL and model."""


def api_key(cfg: EndpointConfig, role: str = "endpoint") -> str:
    """The key to send: `$api_key_env` when named (an unset variable is a ConfigError), else api_key."""
    if cfg.api_key_env:
        value = os.environ.get(cfg.api_key_env, "")
        if not value:
            raise ConfigError(
                f"{role} endpoint {cfg.base_url or '(openai default)'}: api_key_env names "
                f"${cfg.api_key_env}, which is not set"
            )
        return value
    return cfg.api_key or "EMPTY"


def _retryable(err: Exception) -> bool:
    """Connection errors, timeouts, 408/409/429 and 5xx (what the openai client itself retries)."""
    status = getattr(err, "status_code", None)
    return not (isinstance(status, int) and 400 <= status < 500 and status not in (408, 409, 429))


class EndpointClient:
    """The one `openai.OpenAI` client of one endpoint, with our retries and one error."""

    def __init__(self, cfg: EndpointConfig, role: str = "endpoint"):
        from openai import OpenAI

        self.cfg, self.role, self.model = cfg, role, cfg.model
        self.client = OpenAI(
            base_url=cfg.base_url or None, api_key=api_key(cfg, role), max_retries=0, timeout=cfg.timeout_s
        )
        self.base_url = cfg.base_url or str(self.client.base_url).rstrip("/")
        self.calls = 0  # successful requests

    @property
    def label(self) -> str:
        return f"{self.model}@{self.base_url}"

    def request(self, send: Callable[[], T]) -> T:
        """`send()` with retries and backoff; EndpointError naming the URL when every attempt failed."""
        last: Exception | None = None
        attempts = 0
        for attempt in range(self.cfg.retries + 1):
            attempts += 1
            try:
                out = send()
                self.calls += 1
                return out
            except Exception as e:  # connection errors, timeouts, HTTP errors
                last = e
                if not _retryable(e):
                    break
                if attempt < self.cfg.retries:
                    time.sleep(self.cfg.backoff_s * 2**attempt)
        raise EndpointError(
            f"{self.role} endpoint {self.base_url} (model {self.model}) failed after {attempts} "
            f"attempt{'s' if attempts != 1 else ''}: {type(last).__name__}: {last}"
        ) from last

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """One chat completion (the `openai` ChatCompletion: tool calls, finish_reason, usage).
        temperature / max_tokens default to the config's (a ChatConfig), else greedy and uncapped.
        `chat_template_kwargs` (e.g. Qwen3's {"enable_thinking": False}) goes in the request body,
        where vLLM's server passes it to the chat template; sent only when given (non-empty)."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if isinstance(self.cfg, ChatConfig):
            kwargs.update(temperature=self.cfg.temperature, max_tokens=self.cfg.max_tokens)
        else:
            kwargs["temperature"] = 0.0
        if temperature is not None:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if tools is not None:
            kwargs["tools"] = list(tools)
        if response_format is not None:
            kwargs["response_format"] = response_format
        if chat_template_kwargs:
            kwargs["extra_body"] = {"chat_template_kwargs": dict(chat_template_kwargs)}
        return self.request(lambda: self.client.chat.completions.create(**kwargs))

    def chat(self, messages: Sequence[dict[str, Any]], **kw: Any) -> str:
        """The text of one completion ("" when the model said nothing)."""
        return self.complete(messages, **kw).choices[0].message.content or ""

    def chat_json(self, messages: Sequence[dict[str, Any]], **kw: Any) -> dict[str, Any] | None:
        """The first JSON object of one completion, or None when it holds none (never guessed)."""
        return json_reply(self.chat(messages, **kw))

    def embed(self, texts: Sequence[str], dimensions: int | None = None) -> list[list[float]]:
        """One /v1/embeddings request; the vectors in input order."""
        kwargs: dict[str, Any] = {"model": self.model, "input": list(texts)}
        if dimensions:
            kwargs["dimensions"] = dimensions
        resp = self.request(lambda: self.client.embeddings.create(**kwargs))
        return [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]


def optional_client(cfg: EndpointConfig, role: str) -> EndpointClient | None:
    """A client when `cfg` names a model and a URL, None when it does not (the caller's offline path)."""
    return EndpointClient(cfg, role) if cfg.configured else None


def json_reply(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (fenced, bare or inside prose), or None."""
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
            if isinstance(obj, dict):
                return obj
        except json.JSONDecodeError:
            pass
        start = text.find("{", start + 1)
    return None
