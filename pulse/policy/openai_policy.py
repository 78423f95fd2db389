"""Policy served by any OpenAI-compatible chat endpoint (`vllm serve`, a hosted API)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pulse.core.policy_io import PolicyInput, PromptStyle, render_prompt
from pulse.llm.endpoint import EndpointClient, EndpointConfig
from pulse.policy.base import PolicyOutput, outputs_from_texts


class OpenAIPolicy:
    """A policy served by an OpenAI-compatible chat endpoint: greedy completions, `concurrency` requests at a
    time."""

    def __init__(
        self,
        endpoint: EndpointConfig,
        prompt_style: PromptStyle = "rich",
        max_new_tokens: int = 64,
        concurrency: int = 8,
        chat_template_kwargs: dict | None = None,
    ):
        self.client = EndpointClient(endpoint, role="policy")
        self.name = f"openai:{endpoint.model}@{self.client.base_url}"
        self.model = endpoint.model
        self.base_url = self.client.base_url
        self.prompt_style = prompt_style
        self.max_new_tokens = max_new_tokens
        self.concurrency = concurrency
        # sent with every request: the server renders the prompt the checkpoint was trained on
        self.chat_template_kwargs = dict(chat_template_kwargs or {})

    def _one(self, inp: PolicyInput) -> tuple[str, int]:
        extra = {"chat_template_kwargs": self.chat_template_kwargs} if self.chat_template_kwargs else {}
        r = self.client.complete(
            render_prompt(inp, self.prompt_style), max_tokens=self.max_new_tokens, temperature=0.0, **extra
        )
        choice = r.choices[0]
        text = choice.message.content or ""
        if choice.finish_reason == "length":
            text += "\u2026[truncated]"
        return text, (r.usage.completion_tokens if r.usage else 0)

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        """One `PolicyOutput` per input, each from one request (a completion cut by the length cap is marked
        truncated, so it does not parse); raises the endpoint client's errors."""
        with ThreadPoolExecutor(self.concurrency) as pool:
            results = list(pool.map(self._one, inputs))
        return outputs_from_texts([t for t, _ in results], inputs, self.prompt_style, [n for _, n in results])
