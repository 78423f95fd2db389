"""Fixtures for the memory tests: small stores on tmp paths with the test-only hashing embedder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pulse.memory import StoreMemory, make_embedder, open_memory


class Clock:
    """A settable clock so commit times are deterministic."""

    def __init__(self, now: str = "2025-06-01T00:00:00Z"):
        self.now = now

    def __call__(self) -> str:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def mem_factory(tmp_path: Path, clock: Clock) -> Callable[..., StoreMemory]:
    opened: list[StoreMemory] = []

    def make(kind: str = "structured", root: Path | None = None, embedder: str = "hash", **kw) -> StoreMemory:
        m = open_memory(kind, root or tmp_path / "mem", make_embedder(embedder), clock=clock, **kw)
        opened.append(m)
        return m

    yield make
    for m in opened:
        try:
            m.close()
        except Exception:
            pass


@pytest.fixture
def mem(mem_factory) -> StoreMemory:
    return mem_factory()
