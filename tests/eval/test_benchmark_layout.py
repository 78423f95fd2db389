"""One benchmark layout (docs/benchmarks.md "Adding a benchmark"): every registered benchmark is a
folder with a README.md whose `__init__.py` exports `load` (the registry names `eval.<kind>.<name>:load`);
a real benchmark's class lives in its `benchmark.py`; the protocol lives in eval/benchmark.py, above
both kinds, and neither kind imports the other's protocol module."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from eval.registry import BENCHMARKS

ROOT = Path(__file__).resolve().parents[2]
LOADERS = {"suite_file"}  # a loader of any suite JSON, not a benchmark of its own: no folder


@pytest.mark.parametrize("name", sorted(set(BENCHMARKS.names()) - LOADERS))
def test_every_benchmark_is_a_folder_with_a_readme_and_a_front_door(name):
    target = BENCHMARKS._targets[name]
    module, _, attr = target.partition(":")
    assert attr == "load" and module in (f"eval.suites.{name}", f"eval.real.{name}"), target
    folder = ROOT / module.replace(".", "/")
    assert (folder / "__init__.py").is_file() and (folder / "README.md").is_file(), folder
    assert callable(importlib.import_module(module).load)
    if module.startswith("eval.real."):
        assert (folder / "benchmark.py").is_file() and (folder / "env.py").is_file(), folder


def test_the_protocol_lives_above_the_benchmarks():
    assert not (ROOT / "eval/real/base.py").exists()  # moved to eval/benchmark.py, no shim
    for path in (ROOT / "eval/suites").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("eval.real"), f"{path}: imports {node.module}"
