"""Load a causal LM and its tokenizer from a hub id or a local path, with or without a LoRA adapter.

One code path for the tiny CPU model, a merged checkpoint, a LoRA adapter directory (its
`adapter_config.json` names the base) and `Qwen/Qwen3-8B`. A missing local folder (or a file, or a
folder with no model in it) is a clear `ModelLoadError` naming it, raised before any tokenizer or
weights load -- not a hub lookup that fails deep inside transformers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulse.core.errors import PulseUserError
from pulse.utils.json_input import read_json_file


class ModelLoadError(PulseUserError, RuntimeError):
    """A model path or folder is missing or unusable; the message names it and the config key."""


def _looks_local(name: str) -> bool:
    return name.startswith((".", "/", "~")) or Path(name).exists() or name.count("/") != 1


_MODEL_FILES = ("config.json", "adapter_config.json", "tokenizer_config.json")


def check_model_path(name_or_path: str, key: str = "model.name_or_path") -> None:
    """Fail early, naming the config key (when known) and the path, when a local model folder is
    missing, is a file, or holds no model (no config.json / adapter_config.json /
    tokenizer_config.json) -- before any tokenizer or weights are loaded."""
    where = f"{key}: " if key else ""
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ModelLoadError(f"{where}no model folder or hub id given")
    if not _looks_local(name_or_path):
        return
    path = Path(name_or_path).expanduser()
    if not path.exists():
        raise ModelLoadError(
            f"{where}model folder {name_or_path!r} does not exist (build it first, e.g. "
            f"`pulse demo` builds the tiny model, or give a hub id like Qwen/Qwen3-8B)"
        )
    if not path.is_dir():
        raise ModelLoadError(f"{where}model path {name_or_path!r} is a file, not a model folder")
    if not any((path / f).is_file() for f in _MODEL_FILES):
        raise ModelLoadError(
            f"{where}{name_or_path!r} is not a model folder (it has none of {', '.join(_MODEL_FILES)})"
        )


def _adapter_base(adapter: Path) -> str:
    """The base model an adapter folder names (`base_model_name_or_path` in adapter_config.json)."""
    cfg = read_json_file(adapter, ModelLoadError, "adapter config")
    base = cfg.get("base_model_name_or_path") if isinstance(cfg, dict) else None
    if not isinstance(base, str) or not base:
        raise ModelLoadError(f"{adapter}: base_model_name_or_path is missing or not a string")
    return base


def resolve_dtype(dtype: str) -> Any:
    import torch

    table = {
        "float32": torch.float32,
        "fp32": torch.float32,
        "bfloat16": torch.bfloat16,
        "bf16": torch.bfloat16,
        "float16": torch.float16,
        "fp16": torch.float16,
        "auto": "auto",
    }
    if dtype not in table:
        raise ModelLoadError(f"model.dtype: {dtype!r} not in {sorted(table)}")
    return table[dtype]


def load_tokenizer(name_or_path: str, key: str = ""):
    """The tokenizer of a model folder, adapter folder (its base's, unless it has its own) or hub id.
    A missing or non-model folder is a ModelLoadError naming it, raised before transformers is asked."""
    check_model_path(name_or_path, key)
    adapter = Path(name_or_path).expanduser() / "adapter_config.json"
    tok_src = name_or_path
    if adapter.exists() and not (Path(name_or_path).expanduser() / "tokenizer_config.json").exists():
        tok_src = _adapter_base(adapter)
        check_model_path(tok_src, key=f"{adapter}: base_model_name_or_path")
    from transformers import AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(tok_src)
    except (OSError, ValueError) as e:
        raise ModelLoadError(
            f"could not load the tokenizer of {tok_src!r}: {str(e).splitlines()[0] if str(e) else e!r}"
        ) from e
    tok.padding_side = "left"  # decoder-only batched generation
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def contiguous_head_input(model):
    """Make the output head's input contiguous before it multiplies (a forward pre-hook; returns `model`).

    Generation and trl's log-probabilities ask for the logits of the last positions only
    (`logits_to_keep`), so the head reads a slice `hidden[:, -k:, :]` that is not contiguous. When the
    head's weight does not require grad (a frozen base under LoRA, a merged adapter), torch's matmul
    then broadcasts the weight over the batch and copies it: for Qwen2.5-0.5B's 151,936 x 896 head and a
    batch of 16, a 4.3 GB copy and 10.7 s against 0.018 s for the same product on a contiguous input
    (bench/bench_head_input.py -> bench/results/head_input.json; an Intel Xeon, torch 2.13, bf16); it
    made a merged GRPO adapter's held-out evaluation 10x slower than its SFT start and, at a batch of 64,
    ran the machine out of memory. A copy of the slice is a few kilobytes."""
    import torch

    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    weight = getattr(head, "weight", None)
    # fp32 models (the tiny CPU recipe) keep their arithmetic: their head is small, and another GEMM
    # path could move the committed demo figures by a last bit
    if weight is not None and weight.dtype != torch.float32:
        head.register_forward_pre_hook(lambda _module, args: (args[0].contiguous(), *args[1:]))
    return model


def load_model(name_or_path: str, dtype: str = "float32", merge_adapter: bool = True, key: str = ""):
    """Load weights; a LoRA adapter directory is applied to its base (and merged for inference)."""
    check_model_path(name_or_path, key)
    torch_dtype = resolve_dtype(dtype)
    from transformers import AutoModelForCausalLM

    adapter = Path(name_or_path).expanduser() / "adapter_config.json"
    try:
        if adapter.exists():
            from peft import PeftModel

            base_path = _adapter_base(adapter)
            check_model_path(base_path, key=f"{adapter}: base_model_name_or_path")
            base = AutoModelForCausalLM.from_pretrained(base_path, dtype=torch_dtype)
            model = PeftModel.from_pretrained(base, name_or_path)
            return contiguous_head_input(model.merge_and_unload() if merge_adapter else model)
        return contiguous_head_input(AutoModelForCausalLM.from_pretrained(name_or_path, dtype=torch_dtype))
    except ModelLoadError:
        raise
    except (OSError, ValueError) as e:
        raise ModelLoadError(f"could not load model {name_or_path!r}: {e}") from e
