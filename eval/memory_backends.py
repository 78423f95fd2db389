"""Open a memory store of a given organisation for an evaluation chain.

Uses the real store (`pulse.memory.open_memory(kind, root, embedder)`) when it is importable, and
the in-process reference implementation (`eval/inprocess_memory.py`) otherwise; `describe()` says
which one ran, and the run manifest records it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.inprocess_memory import KINDS, InProcessMemory


def _real_open():
    try:
        from pulse.memory import open_memory  # type: ignore[attr-defined]
        return open_memory
    except Exception:
        return None


def describe(impl: str = "auto") -> str:
    if impl == "inprocess" or (impl == "auto" and _real_open() is None):
        return "eval.inprocess_memory (reference in-process store)"
    return "pulse.memory.open_memory"


def open_memory(kind: str, root: str | Path, impl: str = "auto", embedder: str = "bm25") -> Any:
    """`impl`: auto (real store if importable) | real | inprocess."""
    if kind not in KINDS:
        raise ValueError(f"method.memory: {kind!r} not in {KINDS}")
    opener = _real_open() if impl in ("auto", "real") else None
    if impl == "real" and opener is None:
        raise ImportError("memory_impl=real but pulse.memory.open_memory is not available")
    if opener is not None:
        Path(root).mkdir(parents=True, exist_ok=True)
        return opener(kind, root, embedder)
    return InProcessMemory(kind)
