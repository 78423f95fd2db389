"""Fixtures shared by the reading tests."""

from __future__ import annotations

import pytest

from pulse.reading import make_reader


@pytest.fixture(scope="session")
def reader():
    """The offline reader (stateless but for its caches: one per test session)."""
    return make_reader("offline")
