"""A LoRA adapter merged into its base: a plain model folder every backend loads as it is (vLLM's
`LLM(model=...)`, `vllm serve`, transformers), with the tokenizer and the training record, so the
merged model is still evaluated on the prompt it was trained on (pulse/policy/record.py)."""

from __future__ import annotations

import json
from pathlib import Path

from pulse.utils.atomic import atomic_dir

RECORD = "provenance.json"


def merge_adapter(adapter: str, out: str | Path, dtype: str) -> Path:
    """Merge a LoRA adapter into its base and write a plain model folder, with the tokenizer and the
    training record (provenance.json, marked `merged_from` and `dtype`).

    Args:
        adapter: a LoRA adapter folder (with adapter_config.json naming its base).
        out: the model folder to write; replaced atomically if it exists (it may be `adapter` itself).
        dtype: the weights' dtype (float32, bfloat16, ...).

    Returns:
        `out` as a Path.

    Raises:
        ModelLoadError: `adapter` has no adapter_config.json, or the adapter or its base cannot load.
    """
    from pulse.models.loading import ModelLoadError, load_model, load_tokenizer

    src = Path(adapter)
    if not (src / "adapter_config.json").is_file():
        raise ModelLoadError(
            f"{adapter}: not a LoRA adapter folder (no adapter_config.json); nothing to merge"
        )
    model = load_model(adapter, dtype, merge_adapter=True)
    tokenizer = load_tokenizer(adapter)
    record = json.loads((src / RECORD).read_text()) if (src / RECORD).is_file() else None
    with atomic_dir(out) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        if record is not None:
            record = {**record, "merged_from": str(src.resolve()), "dtype": dtype}
            (tmp / RECORD).write_text(json.dumps(record, indent=2) + "\n")
    return Path(out)
