"""τ²-bench retail's tool environment (MIT; see NOTICE): one task's database behind the 16 tools, and
τ²'s database check."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval.benchmark import RealTask
from eval.real.tau2_retail.db import canonical, load_db
from eval.real.tau2_retail.tools import SCHEMAS, RetailTools


class RetailEnv:
    """One task's retail database (fresh at `begin`: an empty copy-on-write layer over the shared
    base) behind the 16 tools."""

    transport = "direct"

    def __init__(self, db_path: Path):
        self.base = load_db(db_path)
        self.tools = RetailTools(self.base)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def begin(self, task: RealTask) -> None:
        self.tools = RetailTools(self.base)
        self.calls = []

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": s} for s in SCHEMAS.values()]

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any:
        self.calls.append((tool, dict(args)))
        return self.tools.call(tool, dict(args))

    @property
    def db(self) -> dict[str, Any]:
        """The whole database (τ²'s `db_hash(env.db)` is its hash)."""
        return self.tools.db

    def close(self) -> None:
        pass


def same_db(a: RetailTools, b: RetailTools) -> bool:
    """τ²'s database check, `hash(a) == hash(b)`, computed on the entries either copy touched: the
    canonical JSON of the whole database is equal exactly when that of every touched entry is (the
    rest is the shared base), so the answer is the hash comparison's without hashing 2.8 MB twice."""
    return all(canonical(a.entry(c, k)) == canonical(b.entry(c, k)) for c, k in a.touched() | b.touched())
