"""Record/event builders shared by the memory tests (imported by name: no package needed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from pulse.core.records import Event, MemoryItem, Provenance


def pref(
    item_id: str,
    text: str,
    user: str = "u1",
    slot: str = "",
    value: str = "",
    topic: str = "",
    entities: tuple[str, ...] = (),
    valid_from: str = "2025-01-01T00:00:00Z",
    kind: str = "preference",
    **kw,
) -> MemoryItem:
    return MemoryItem(
        item_id,
        kind,
        f"user:{user}",
        text,
        slot=slot,
        value=value,
        topic=topic,
        entities=entities,
        provenance=kw.pop("provenance", Provenance("history")),
        valid_from=valid_from,
        **kw,
    )


def user_msg(eid: str, text: str, step: int = 0, time: str = "2025-03-01T00:00:00Z", **args: str) -> Event:
    return Event("message", step, time=time, text=text, role="user", event_id=eid, args=dict(args))


def tool_result(
    eid: str, tool: str, text: str = "", step: int = 1, time: str = "2025-03-01T00:01:00Z", **args: str
) -> Event:
    return Event("tool_result", step, time=time, text=text, tool=tool, event_id=eid, args=dict(args))


def call(tool: str, step: int = 2, **args: str) -> Event:
    return Event("candidate_call", step, tool=tool, args=dict(args), event_id=f"c{step}")


def kill_harness() -> ModuleType:
    """bench/memory_kill_harness.py, the SIGKILL durability harness (a bench script, so it is loaded
    by path: `bench` is not an installed package)."""
    name = "memory_kill_harness"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "bench" / "memory_kill_harness.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before exec: its dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[name]


def run_golden_world(script: str, kind: str, embedder: str) -> dict:
    """Run a golden test file as a script (`--print KIND EMBEDDER`) in a fresh interpreter with a fixed
    hash seed and return the JSON it prints: the golden checks compare whole worlds built that way."""
    import json
    import os
    import subprocess

    p = subprocess.run(
        [sys.executable, script, "--print", kind, embedder],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)
