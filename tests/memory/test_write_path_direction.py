"""The memory write path runs one way (store_memory -> writer -> store), and only store.py touches the
store's lock and connection. Static checks over the source: every import statement counts, also
those under `if TYPE_CHECKING:` and inside functions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PULSE = Path(__file__).resolve().parents[2] / "pulse"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_writer_never_imports_the_memory_that_calls_it():
    imported = _imports(PULSE / "memory" / "writer.py")
    assert not {m for m in imported if m.startswith("pulse.memory.store_memory")}, imported
    assert "pulse.memory.StoreMemory" not in imported


def test_nothing_outside_store_py_reaches_into_the_store_lock_or_connection():
    private = re.compile(r"\bstore\._(lock|db|conn|q)\b")
    offenders = [
        f"{p.relative_to(PULSE.parent)}:{n}"
        for p in PULSE.rglob("*.py")
        if p.name != "store.py"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert offenders == []
