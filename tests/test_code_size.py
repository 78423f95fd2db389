"""Classes a newcomer can read: no class over 250 lines and no function over 80 lines in `pulse/` and
`eval/` (read from the code with `ast`; a class counts its methods, a function its nested functions).

What is over the limit today and could not be split yet is listed in ALLOWED with its current size:
it may shrink, never grow, and an entry that is back under the limit must be removed (the test says
so). Split a listed class or function and delete its line; never add one without a reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pulse", "eval")
MAX_CLASS_LINES = 250
MAX_FUNCTION_LINES = 80

# "path:Qualified.name" -> its size in lines when it was listed (issue 34). Each is one idea that
# needs its own split; the size is a ceiling, not a target.
ALLOWED: dict[str, int] = {}


def _measure(tree: ast.AST, path: str) -> dict[str, tuple[str, int]]:
    """ "path:Qualified.name" -> (kind, lines) of every class and function in `tree`."""
    out: dict[str, tuple[str, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                out[f"{path}:{name}"] = (kind, child.end_lineno - child.lineno + 1)
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _sizes() -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            rel = p.relative_to(ROOT).as_posix()
            out.update(_measure(ast.parse(p.read_text(encoding="utf-8"), filename=rel), rel))
    return out


def _limit(kind: str) -> int:
    return MAX_CLASS_LINES if kind == "class" else MAX_FUNCTION_LINES


def test_no_class_or_function_over_the_limit():
    sizes = _sizes()
    over = {k: v for k, v in sizes.items() if v[1] > _limit(v[0])}
    new = sorted(
        f"{k} ({kind}, {n} lines > {_limit(kind)})" for k, (kind, n) in over.items() if k not in ALLOWED
    )
    grown = sorted(
        f"{k} ({n} lines, listed at {ALLOWED[k]})"
        for k, (_, n) in over.items()
        if k in ALLOWED and n > ALLOWED[k]
    )
    assert not new, "split these (or, with a reason, list them in ALLOWED):\n" + "\n".join(new)
    assert not grown, "these listed ones grew; split them instead:\n" + "\n".join(grown)


def test_the_allow_list_only_holds_what_is_still_over():
    sizes = _sizes()
    gone = sorted(k for k in ALLOWED if k not in sizes)
    under = sorted(k for k in ALLOWED if k in sizes and sizes[k][1] <= _limit(sizes[k][0]))
    assert not gone, "listed but not found (renamed or moved? update ALLOWED):\n" + "\n".join(gone)
    assert not under, "back under the limit: remove from ALLOWED:\n" + "\n".join(under)


def test_the_measure_counts_what_it_should():
    """A class counts its methods' lines; a method is named Class.method; a nested function counts in
    its parent's size too (a long body cannot hide in an inner def), and is measured itself."""
    src = (
        "class A:\n    def f(self):\n        def g():\n            pass\n        return g\n\n\n"
        "async def h():\n    pass\n"
    )
    assert _measure(ast.parse(src), "x.py") == {
        "x.py:A": ("class", 5),
        "x.py:A.f": ("function", 4),
        "x.py:A.f.g": ("function", 2),
        "x.py:h": ("function", 2),
    }
