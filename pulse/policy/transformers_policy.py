"""Local transformers policy: batched greedy decoding on CPU or one GPU (`device`, resolved from
`policy.device` by pulse/policy/factory.py: cuda when one is visible)."""

from __future__ import annotations

from collections.abc import Sequence

from pulse.core.policy_io import PolicyInput, PromptStyle, render_prompt
from pulse.policy.base import PolicyOutput, outputs_from_texts
from pulse.policy.end_tokens import end_token_ids
from pulse.utils.gc_settle import settle_after_load


class TransformersPolicy:
    """A local transformers model as a policy: greedy decoding on `device`, `batch_size` prompts per
    `generate()` call."""

    def __init__(
        self,
        name_or_path: str,
        prompt_style: PromptStyle = "compact",
        dtype: str = "float32",
        max_new_tokens: int = 32,
        batch_size: int = 32,
        device: str = "cpu",
        chat_template_kwargs: dict | None = None,
    ):
        import torch

        from pulse.models.loading import load_model, load_tokenizer

        self.name = f"transformers:{name_or_path}"
        self.prompt_style = prompt_style
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.chat_template_kwargs = chat_template_kwargs or {}
        self.tokenizer = load_tokenizer(name_or_path)
        self.model = load_model(name_or_path, dtype).to(device).eval()
        self.device = device
        self.end_ids = end_token_ids(self.tokenizer, getattr(self.model, "generation_config", None))
        self._torch = torch
        settle_after_load()  # the imports' and the model's long-lived objects: out of every full collection

    def _prompt_texts(self, inputs: Sequence[PolicyInput]) -> list[str]:
        return [
            self.tokenizer.apply_chat_template(
                render_prompt(i, self.prompt_style),
                tokenize=False,
                add_generation_prompt=True,
                **self.chat_template_kwargs,
            )
            for i in inputs
        ]

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        """One `PolicyOutput` per input; a completion without an end token (cut by `max_new_tokens`) is marked
        truncated, so it does not parse."""
        texts, counts = [], []
        prompts = self._prompt_texts(inputs)
        for start in range(0, len(prompts), self.batch_size):
            batch = self.tokenizer(
                prompts[start : start + self.batch_size],
                return_tensors="pt",
                padding=True,
                add_special_tokens=False,
            ).to(self.device)
            with self._torch.inference_mode():
                out = self.model.generate(
                    **batch,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                    pad_token_id=self.tokenizer.pad_token_id,
                    eos_token_id=self.end_ids,
                )
            new = out[:, batch["input_ids"].shape[1] :]
            for row in new:
                ids = row.tolist()
                ends = [k for k, t in enumerate(ids) if t in self.end_ids]
                terminated = bool(ends)
                if terminated:
                    ids = ids[: ends[0]]
                text = self.tokenizer.decode(ids, skip_special_tokens=True)
                # A completion cut by the length cap is not a finished answer: mark it unparseable.
                texts.append(text if terminated else text + "\u2026[truncated]")
                counts.append(len(ids))
        return outputs_from_texts(texts, inputs, self.prompt_style, counts)
