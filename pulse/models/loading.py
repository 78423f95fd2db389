"""Load a causal LM and its tokenizer from a hub id or a local path, with or without a LoRA adapter.

One code path for the tiny CPU model, a merged checkpoint, a LoRA adapter directory (its
`adapter_config.json` names the base) and `Qwen/Qwen3-8B`. A missing local path is a clear error,
not a hub lookup that fails deep inside transformers.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class ModelLoadError(RuntimeError):
    pass


def _looks_local(name: str) -> bool:
    return name.startswith((".", "/", "~")) or Path(name).exists() or name.count("/") != 1


def check_model_path(name_or_path: str, key: str = "model.name_or_path") -> None:
    """Fail early, naming the config key, when a local model path does not exist."""
    if _looks_local(name_or_path) and not Path(name_or_path).expanduser().exists():
        raise ModelLoadError(f"{key}: model path {name_or_path!r} does not exist (build it first, e.g. "
                             f"`pulse demo` builds the tiny model, or give a hub id like Qwen/Qwen3-8B)")


def resolve_dtype(dtype: str) -> Any:
    import torch

    table = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16,
             "bf16": torch.bfloat16, "float16": torch.float16, "fp16": torch.float16, "auto": "auto"}
    if dtype not in table:
        raise ModelLoadError(f"model.dtype: {dtype!r} not in {sorted(table)}")
    return table[dtype]


def load_tokenizer(name_or_path: str):
    from transformers import AutoTokenizer

    adapter = Path(name_or_path) / "adapter_config.json"
    tok_src = name_or_path
    if adapter.exists() and not (Path(name_or_path) / "tokenizer_config.json").exists():
        tok_src = json.loads(adapter.read_text())["base_model_name_or_path"]
    tok = AutoTokenizer.from_pretrained(tok_src)
    tok.padding_side = "left"  # decoder-only batched generation
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def load_model(name_or_path: str, dtype: str = "float32", merge_adapter: bool = True):
    """Load weights; a LoRA adapter directory is applied to its base (and merged for inference)."""
    from transformers import AutoModelForCausalLM

    check_model_path(name_or_path)
    torch_dtype = resolve_dtype(dtype)
    adapter = Path(name_or_path) / "adapter_config.json"
    try:
        if adapter.exists():
            from peft import PeftModel

            base_path = json.loads(adapter.read_text())["base_model_name_or_path"]
            check_model_path(base_path, key=f"{adapter}: base_model_name_or_path")
            base = AutoModelForCausalLM.from_pretrained(base_path, dtype=torch_dtype)
            model = PeftModel.from_pretrained(base, name_or_path)
            return model.merge_and_unload() if merge_adapter else model
        return AutoModelForCausalLM.from_pretrained(name_or_path, dtype=torch_dtype)
    except ModelLoadError:
        raise
    except (OSError, ValueError) as e:
        raise ModelLoadError(f"could not load model {name_or_path!r}: {e}") from e
