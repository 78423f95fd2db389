"""Policy served by any OpenAI-compatible chat endpoint (`vllm serve`, a hosted API)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pulse.core.policy_io import PolicyInput, PromptStyle, render_prompt
from pulse.policy.base import PolicyOutput, outputs_from_texts


class EndpointError(RuntimeError):
    pass


class OpenAIPolicy:
    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str = "EMPTY",
        prompt_style: PromptStyle = "rich",
        max_new_tokens: int = 64,
        retries: int = 4,
        backoff_s: float = 0.5,
        concurrency: int = 8,
        timeout_s: float = 60.0,
    ):
        from openai import OpenAI

        self.name = f"openai:{model}@{base_url}"
        self.model = model
        self.base_url = base_url
        self.prompt_style = prompt_style
        self.max_new_tokens = max_new_tokens
        self.retries = retries
        self.backoff_s = backoff_s
        self.concurrency = concurrency
        # Retries are ours (with backoff and a clear final error), not the client's silent ones.
        self.client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout_s)

    def _one(self, inp: PolicyInput) -> tuple[str, int]:
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            try:
                r = self.client.chat.completions.create(
                    model=self.model,
                    messages=render_prompt(inp, self.prompt_style),
                    max_tokens=self.max_new_tokens,
                    temperature=0.0,
                )
                choice = r.choices[0]
                text = choice.message.content or ""
                if choice.finish_reason == "length":
                    text += "\u2026[truncated]"
                return text, (r.usage.completion_tokens if r.usage else 0)
            except Exception as e:  # network errors, 5xx, timeouts
                last = e
                time.sleep(self.backoff_s * 2**attempt)
        raise EndpointError(
            f"policy endpoint {self.base_url} (model {self.model}) failed after "
            f"{self.retries + 1} attempts: {type(last).__name__}: {last}"
        )

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        with ThreadPoolExecutor(self.concurrency) as pool:
            results = list(pool.map(self._one, inputs))
        return outputs_from_texts([t for t, _ in results], inputs, self.prompt_style, [n for _, n in results])
