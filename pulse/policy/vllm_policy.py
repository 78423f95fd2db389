"""vLLM policy for GPUs. vLLM is an optional extra (`pip install .[gpu]` in a GPU environment) and
is imported only when this backend is chosen.

What `pulse train` writes loads as it is: a merged model folder (SFT `final/`, `pulse export`) is the
engine's model; a LoRA adapter folder (GRPO `final/`, which has no config.json) is served on top of
its base (`base_model_name_or_path` in adapter_config.json) with `enable_lora` and `max_lora_rank`
read from the adapter (vLLM refuses an adapter of a rank above its `max_lora_rank`, 16 by default).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pulse.config.schema import ConfigError
from pulse.core.policy_io import PolicyInput, PromptStyle, render_prompt
from pulse.policy.base import PolicyOutput, outputs_from_texts
from pulse.policy.record import adapter_rank

# vLLM's `dtype` takes torch names only; the schema also allows the short spellings trl uses.
VLLM_DTYPES = {"bf16": "bfloat16", "fp32": "float32", "fp16": "float16"}


def vllm_dtype(dtype: str) -> str:
    """The torch dtype name vLLM takes for a dtype ("bf16" -> "bfloat16"; others unchanged)."""
    return VLLM_DTYPES.get(dtype, dtype)


def engine_args(name_or_path: str, dtype: str, gpu_memory_utilization: float) -> tuple[dict, dict | None]:
    """(the LLM(...) keyword arguments, the LoRA adapter {name, path} or None) for a checkpoint."""
    args = {"dtype": vllm_dtype(dtype), "gpu_memory_utilization": gpu_memory_utilization}
    rank = adapter_rank(name_or_path)
    if rank is None:
        return {"model": name_or_path, **args}, None
    cfg = json.loads((Path(name_or_path) / "adapter_config.json").read_text())
    base = cfg.get("base_model_name_or_path")
    if not isinstance(base, str) or not base:
        raise ConfigError(f"policy.name_or_path: {name_or_path}/adapter_config.json names no base model")
    return (
        {"model": base, "enable_lora": True, "max_lora_rank": rank, "max_loras": 1, **args},
        {"name": Path(name_or_path).name or "adapter", "path": str(Path(name_or_path).resolve())},
    )


class VLLMPolicy:
    """A vLLM engine as a policy (a merged model or a LoRA adapter on its base); raises RuntimeError when vLLM
    is not installed."""

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
        kwargs, adapter = engine_args(name_or_path, dtype, gpu_memory_utilization)
        self.llm = LLM(**kwargs)
        self.lora_request = None
        if adapter is not None:
            from vllm.lora.request import LoRARequest

            self.lora_request = LoRARequest(adapter["name"], 1, adapter["path"])
        self.params = SamplingParams(temperature=0.0, max_tokens=max_new_tokens)

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        """One `PolicyOutput` per input, greedy, in one `chat` call; a completion cut by the length cap is
        marked truncated, so it does not parse."""
        convs = [render_prompt(i, self.prompt_style) for i in inputs]
        outs = self.llm.chat(
            convs,
            self.params,
            use_tqdm=False,
            lora_request=self.lora_request,
            chat_template_kwargs=self.chat_template_kwargs,
        )
        texts = [
            o.outputs[0].text + ("\u2026[truncated]" if o.outputs[0].finish_reason == "length" else "")
            for o in outs
        ]
        return outputs_from_texts(
            texts, inputs, self.prompt_style, [len(o.outputs[0].token_ids) for o in outs]
        )
