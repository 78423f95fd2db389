"""vLLM policy for GPUs. vLLM is an optional extra (`pip install .[gpu]` in a GPU environment) and
is imported only when this backend is chosen."""

from __future__ import annotations

from collections.abc import Sequence

from pulse.core.policy_io import PolicyInput, PromptStyle, render_prompt
from pulse.policy.base import PolicyOutput, outputs_from_texts


class VLLMPolicy:
    def __init__(
        self,
        name_or_path: str,
        prompt_style: PromptStyle = "rich",
        dtype: str = "bfloat16",
        max_new_tokens: int = 64,
        gpu_memory_utilization: float = 0.85,
        chat_template_kwargs: dict | None = None,
    ):
        try:
            from vllm import LLM, SamplingParams
        except ImportError as e:
            raise RuntimeError(
                "policy.backend=vllm needs vLLM: install the `gpu` extra on a CUDA machine "
                "(pip install -e '.[gpu]')"
            ) from e
        self.name = f"vllm:{name_or_path}"
        self.prompt_style = prompt_style
        self.chat_template_kwargs = chat_template_kwargs or {}
        self.llm = LLM(model=name_or_path, dtype=dtype, gpu_memory_utilization=gpu_memory_utilization)
        self.params = SamplingParams(temperature=0.0, max_tokens=max_new_tokens)

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        convs = [render_prompt(i, self.prompt_style) for i in inputs]
        outs = self.llm.chat(
            convs, self.params, use_tqdm=False, chat_template_kwargs=self.chat_template_kwargs
        )
        texts = [
            o.outputs[0].text + ("\u2026[truncated]" if o.outputs[0].finish_reason == "length" else "")
            for o in outs
        ]
        return outputs_from_texts(
            texts, inputs, self.prompt_style, [len(o.outputs[0].token_ids) for o in outs]
        )
