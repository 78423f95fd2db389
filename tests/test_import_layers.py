"""The house's layers, read from the code's own imports (every `import` / `from ... import`, at module
level or inside a function, resolved to a file of this repository):

- the library (`pulse/` outside `pulse/cli/`) never imports `eval` or `data_gen`: the command line
  (`pulse/cli/`) is the only part of `pulse` that does;
- no file imports a file that (directly or through others) imports it back: no import circles.

Run a single check by hand: `python -m pytest tests/test_import_layers.py -q`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pulse", "eval", "data_gen")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imports(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The repository modules `path` imports (the longest known prefix of each imported name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    wanted: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wanted += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            wanted += [f"{base}.{a.name}" for a in node.names] + [base]
    out = set()
    for w in wanted:
        parts = w.split(".")
        for i in range(len(parts), 0, -1):
            cand = ".".join(parts[:i])
            if cand in known:
                if cand != name:
                    out.add(cand)
                break
    return out


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _imports(path, name, known) for name, path in known.items()}


def _is_package_init(name: str, graph_paths: dict[str, Path]) -> bool:
    return graph_paths[name].name == "__init__.py"


def test_library_never_imports_eval_or_data_gen():
    graph = _graph()
    bad = sorted(
        f"{mod} -> {dep}"
        for mod, deps in graph.items()
        if mod.startswith("pulse") and not mod.startswith("pulse.cli")
        for dep in deps
        if dep.split(".")[0] in ("eval", "data_gen")
    )
    assert not bad, "the library imports upward (move the caller into pulse/cli/):\n" + "\n".join(bad)


def test_no_import_circles():
    paths = _modules()
    # a package's __init__ re-exporting its own modules is not a circle between files
    graph = {
        m: {d for d in deps if not (_is_package_init(d, paths) and m.startswith(d + "."))}
        for m, deps in _graph().items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


@pytest.mark.parametrize("verb_module", ["pulse.cli.eval", "pulse.cli.train", "pulse.cli.demo"])
def test_verbs_live_in_the_command_line_layer(verb_module):
    assert verb_module in _modules()
