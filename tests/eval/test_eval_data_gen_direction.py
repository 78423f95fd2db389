"""Benchmarks and generator import in one direction (issue 20): the training-data generator
(`data_gen/`: build, card, cases, runtime, ...) may import `eval` (the suites it records decision
points on, Persona2Web's loader and synthetic world), never the reverse. What `eval` takes from
`data_gen` is the world model both share (`data_gen.world`) and the generator's knobs
(`data_gen.config`), which import nothing of the generator. Read from every `import` / `from ...
import` of the code, at module level or inside a function (tests/test_import_layers.py checks
circles and the library's layer)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ("data_gen.world", "data_gen.config")


def _imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def _shared(name: str) -> bool:
    return any(name == s or name.startswith(s + ".") for s in SHARED)


def test_eval_takes_only_the_shared_world_from_data_gen():
    bad = sorted(
        f"{p.relative_to(ROOT)} -> {name}"
        for p in (ROOT / "eval").rglob("*.py")
        for name in _imported(p)
        if name.split(".")[0] == "data_gen" and name != "data_gen" and not _shared(name)
    )
    assert not bad, (
        "eval imports the generator (move the shared part to eval/ or data_gen/world/):\n" + "\n".join(bad)
    )


def test_the_shared_world_imports_no_generator_and_no_eval():
    shared = [ROOT / "data_gen" / "config.py", *(ROOT / "data_gen" / "world").rglob("*.py")]
    bad = sorted(
        f"{p.relative_to(ROOT)} -> {name}"
        for p in shared
        for name in _imported(p)
        if (name.split(".")[0] == "data_gen" and not _shared(name)) or name.split(".")[0] == "eval"
    )
    assert not bad, "\n".join(bad)
