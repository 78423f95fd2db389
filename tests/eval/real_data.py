"""Where the real-benchmark tests find their data: $PULSE_DATA_DIR (`.ci/run` sets it); else skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def real_data(sub: str) -> Path:
    root = os.environ.get("PULSE_DATA_DIR", "")
    path = Path(root) / sub if root else None
    if path is None or not path.is_dir():
        pytest.skip(
            f"needs the real {sub} data: set PULSE_DATA_DIR to the folder holding {sub}/ "
            f"(docs/benchmarks.md: Real benchmarks)"
        )
    return path
