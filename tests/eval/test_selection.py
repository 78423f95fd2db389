"""One task selection for every benchmark: `benchmark.personas`, `benchmark.max_tasks` and (real
benchmarks) `benchmark.task_ids` go through `eval.benchmark.select` for the generated suites and the
real benchmarks alike, and select exactly the tasks they selected before the refactor (issue 20):
the expected (count, digest of the task ids in order) pairs below were recorded at d8751b5.
The real-data rows are skipped without PULSE_DATA_DIR; the digests carry no text of the data."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from real_data import real_data

from eval.config import BenchmarkConfig
from eval.registry import BENCHMARKS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SUITES = ("pibench_sim", "mcp_persona_sim", "independent_sim")

# benchmark -> setting -> (tasks selected, sha256 of their ids joined by newlines, first 16 hex digits)
EXPECTED = {
    "pibench_sim": {
        "all": (40, "279d30311cdef3aa"),
        "max_tasks=2": (10, "740145348cc53837"),
        "two_personas_max1": (2, "49f53de3ddd9c36f"),
    },
    "mcp_persona_sim": {
        "all": (42, "eed489160d257a57"),
        "max_tasks=2": (12, "167d697ceea828e4"),
        "two_personas_max1": (2, "5a9de99c0b740793"),
    },
    "independent_sim": {
        "all": (85, "6f32b358ab4f07c1"),
        "max_tasks=2": (12, "467202814c64f1c5"),
        "two_personas_max1": (2, "f51ff0bd990d7669"),
    },
    "persona2web-fixture": {
        "all": (3, "84b779c9ac7269d8"),
        "max_tasks=2": (2, "86ce06efb40a19a9"),
        "two_personas_max1": (1, "3a2a166f8a29d293"),
        "task_ids_max1": (1, "3a2a166f8a29d293"),
    },
    "pibench-fixture": {
        "all": (5, "4bf658a5902afbf6"),
        "max_tasks=2": (3, "ebb0d4f27da36fa1"),
        "two_personas_max1": (2, "e039079e07aaeada"),
        "task_ids_max1": (1, "807783cee81c0cbe"),
    },
    "persona2web": {
        "all": (450, "cc84a5a7fb3a4b99"),
        "max_tasks=2": (100, "ba4d69bfac89d85c"),
        "two_personas_max1": (2, "f4d38bff55f9be87"),
        "task_ids_max1": (50, "7843e46735842d83"),
    },
    "pibench": {
        "all": (100, "6231aa9b448da1ba"),
        "max_tasks=2": (10, "9d6a9f806daef4d9"),
        "two_personas_max1": (2, "a137f16504c2c904"),
        "task_ids_max1": (5, "ef77d75d4df7b721"),
    },
    "tau2_retail": {
        "all": (114, "e069dbf4bf0e29bb"),
        "max_tasks=2": (114, "e069dbf4bf0e29bb"),
        "two_personas_max1": (2, "5cdc1635239b9725"),
        "task_ids_max1": (38, "49ee835dffb3c9e9"),
    },
}
DATA = {"persona2web": "persona2web", "pibench": "pibench", "tau2_retail": "tau2/retail"}


def _digest(tasks) -> str:
    return hashlib.sha256("\n".join(t.task_id for t in tasks).encode()).hexdigest()[:16]


def _load(name: str, **kw):
    return BENCHMARKS.get(name)(BenchmarkConfig(name=name, **kw))


def _settings(name: str, full) -> dict[str, dict]:
    """The settings checked: all tasks, the first two of each chain, two personas (named in reverse
    order: the chains' order, not the list's, decides) with one task each, and for the real
    benchmarks every third task id with one task per chain."""
    users = list(dict.fromkeys(t.user_id for t in full))
    out = {
        "all": {},
        "max_tasks=2": {"max_tasks": 2},
        "two_personas_max1": {
            "personas": users[2:0:-1] if len(users) > 2 else users[::-1],
            "max_tasks": 1,
        },
    }
    if name not in SUITES:
        out["task_ids_max1"] = {"task_ids": [t.task_id for t in full][::3], "max_tasks": 1}
    return out


@pytest.mark.parametrize("key", list(EXPECTED))
def test_every_benchmark_selects_the_tasks_it_selected_before(key):
    name, _, fixture = key.partition("-")
    base = {"path": str(FIXTURES / name)} if fixture else {}
    if name in DATA and not fixture:
        real_data(DATA[name])
    full = _load(name, **base).tasks
    got = {
        s: (len(ts), _digest(ts))
        for s, kw in _settings(name, full).items()
        for ts in [_load(name, **base, **kw).tasks]
    }
    assert got == EXPECTED[key]


def test_selection_is_one_function_for_suites_and_real_benchmarks(monkeypatch):
    """Every loader selects through `eval.benchmark.select` (patched here to record its calls)."""
    import eval.benchmark as base_mod
    import eval.real.persona2web.benchmark as p2w
    import eval.real.pibench.benchmark as pib
    import eval.suites.benchmark as suites

    calls = []
    real = base_mod.select

    def spy(tasks, cfg):
        calls.append(cfg.name)
        return real(tasks, cfg)

    for mod in (suites, p2w, pib):
        monkeypatch.setattr(mod, "select", spy)
    for name in SUITES:
        _load(name, max_tasks=1)
    _load("persona2web", path=str(FIXTURES / "persona2web"))
    _load("pibench", path=str(FIXTURES / "pibench"))
    assert calls == [*SUITES, "persona2web", "pibench"]
