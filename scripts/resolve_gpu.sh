#!/usr/bin/env bash
# Regenerate the pinned constraint set of the GPU environment (the `gpu` extra with the project's
# pinned dependencies) for CPython 3.11 on x86_64 Linux (manylinux_2_28), by a resolve that reads
# package metadata only: no multi-GB wheel is downloaded. Then print what it pins for torch,
# transformers, vllm, trl and deepspeed and the CUDA those wheels need, read from the wheels' own
# metadata (scripts/gpu_wheel_metadata.py: PEP 658 metadata or HTTP range requests).
#
#   scripts/resolve_gpu.sh                     # rewrites constraints/gpu-py311.txt
#   scripts/resolve_gpu.sh /tmp/gpu.txt        # another output file (tests/test_gpu_constraints.py)
#   scripts/resolve_gpu.sh --no-report OUT     # the resolve only
#
# Needs uv (`.venv/bin/python -m pip install uv`) and the package index (PyPI; UV_DEFAULT_INDEX
# overrides it). Candidates are limited to releases uploaded before GPU_RESOLVE_EXCLUDE_NEWER, so a
# rerun gives the same file until that date is moved on purpose. Install a GPU environment with:
#   pip install -e '.[gpu]' -c constraints/gpu-py311.txt
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

EXCLUDE_NEWER="${GPU_RESOLVE_EXCLUDE_NEWER:-2026-12-02T00:00:00Z}"
PYTHON_VERSION=3.11
PLATFORM=x86_64-manylinux_2_28
REPORT=1
OUT=constraints/gpu-py311.txt
for arg in "$@"; do
  case "$arg" in
    --no-report) REPORT=0 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    -*) echo "resolve_gpu.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) OUT="$arg" ;;
  esac
done

if [ -x "$ROOT/.venv/bin/uv" ]; then
  UV="$ROOT/.venv/bin/uv"
elif command -v uv >/dev/null 2>&1; then
  UV="$(command -v uv)"
else
  echo "resolve_gpu.sh: uv not found: install it with '.venv/bin/python -m pip install uv'" >&2
  exit 2
fi
if [ -x "$ROOT/.venv/bin/python" ]; then PY="$ROOT/.venv/bin/python"; else PY="$(command -v python3)"; fi

mkdir -p "$(dirname "$OUT")"
# --custom-compile-command keeps the header independent of the output path, so a re-resolve into a
# temporary file is byte-identical to the committed one.
"$UV" pip compile pyproject.toml \
  --extra gpu \
  --python-version "$PYTHON_VERSION" \
  --python-platform "$PLATFORM" \
  --exclude-newer "$EXCLUDE_NEWER" \
  --custom-compile-command "scripts/resolve_gpu.sh  (uv pip compile pyproject.toml --extra gpu --python-version $PYTHON_VERSION --python-platform $PLATFORM --exclude-newer $EXCLUDE_NEWER)" \
  --quiet \
  -o "$OUT"
echo "[resolve_gpu] wrote $OUT ($(grep -cE '^[A-Za-z0-9]' "$OUT") pinned packages)"

if [ "$REPORT" = 1 ]; then
  "$PY" scripts/gpu_wheel_metadata.py "$OUT"
fi
