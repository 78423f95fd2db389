"""A LoRA adapter merged into its base: a plain model folder every backend loads as it is (vLLM's
`LLM(model=...)`, `vllm serve`, transformers), with the tokenizer and the training record, so the
merged model is still evaluated on the prompt it was trained on (pulse/policy/record.py)."""

from __future__ import annotations

import json
from pathlib import Path

from pulse.utils.atomic import atomic_dir

RECORD = "provenance.json"


def merge_adapter(adapter: str, out: str | Path, dtype: str) -> Path:
    """Merge `adapter` (a folder with adapter_config.json) into its base and write a model folder
    at `out` (which may be the adapter folder itself: the adapter files are replaced)."""
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
