"""One OpenAI-compatible chat endpoint for user simulators and judges (the `openai` client).

Retries with exponential backoff, then `EndpointError` naming the URL (the harness records the
episode as failed). `json_reply` parses the first JSON object in a completion; a reply without
one is reported as unparseable, never guessed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any


class EndpointError(RuntimeError):
    pass


class ChatEndpoint:
    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str = "EMPTY",
        temperature: float = 0.0,
        max_tokens: int = 512,
        retries: int = 2,
        backoff_s: float = 0.5,
        timeout_s: float = 60.0,
        role: str = "endpoint",
    ):
        from openai import OpenAI

        self.model, self.base_url, self.role = model, base_url, role
        self.temperature, self.max_tokens, self.retries, self.backoff_s = (
            temperature,
            max_tokens,
            retries,
            backoff_s,
        )
        self.client = OpenAI(base_url=base_url, api_key=api_key or "EMPTY", max_retries=0, timeout=timeout_s)
        self.calls = 0

    @property
    def label(self) -> str:
        return f"{self.model}@{self.base_url}"

    def chat(self, messages: Sequence[dict[str, Any]]) -> str:
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            try:
                r = self.client.chat.completions.create(
                    model=self.model,
                    messages=list(messages),
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                )
                self.calls += 1
                return r.choices[0].message.content or ""
            except Exception as e:  # connection errors, 5xx, timeouts
                last = e
                if attempt < self.retries:
                    time.sleep(self.backoff_s * 2**attempt)
        raise EndpointError(
            f"{self.role} endpoint {self.base_url} (model {self.model}) failed after "
            f"{self.retries + 1} attempts: {type(last).__name__}: {last}"
        )


def json_reply(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (fenced or bare), or None."""
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


def endpoint_from(cfg, role: str) -> ChatEndpoint | None:
    """A `ChatEndpoint` from an `EndpointConfig` (None when no model/base_url is configured)."""
    if not cfg.model or not cfg.base_url:
        return None
    return ChatEndpoint(
        cfg.model,
        cfg.base_url,
        cfg.api_key,
        cfg.temperature,
        cfg.max_tokens,
        cfg.retries,
        cfg.backoff_s,
        cfg.timeout_s,
        role=role,
    )
