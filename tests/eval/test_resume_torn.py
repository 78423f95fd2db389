"""Resume cannot get stuck on a torn run log: wherever a crash cuts the last row of episodes.jsonl
(any byte, including inside the first task of a persona chain), the resumed run drops the torn
line, rewrites the file from the parsed rows, reruns what is missing, and ends with exactly one row
per task and only valid JSON lines.

Fault injection: the file is cut at every byte position of its last row; `plan_resume` (the
resume preparation `run_eval` calls) is checked at every cut, the full `run_eval` at a few.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.harness import ROWS, plan_resume, run_eval
from eval.metrics import RowsError, read_rows, read_rows_checked
from eval.registry import BENCHMARKS

OVERRIDES = ["benchmark.max_tasks=2", "benchmark.personas=[researcher]"]


def _lines_ok(path: Path) -> list[dict]:
    """Every line is one JSON object ending in a newline (what a safe append needs)."""
    data = path.read_bytes()
    assert not data or data.endswith(b"\n"), "the run log must end with a newline"
    rows = []
    for line in data.decode("utf-8").split("\n")[:-1] if data else []:
        row = json.loads(line)
        assert isinstance(row, dict)
        rows.append(row)
    return rows


_FINISHED: dict[str, tuple] = {}


@pytest.fixture
def finished(tmp_path_factory, eval_cfg):
    """A finished run (built once): one persona chain of two tasks, method=none (fast)."""
    if "run" not in _FINISHED:
        out = tmp_path_factory.mktemp("finished")
        cfg = eval_cfg(out, method="none", overrides=OVERRIDES)
        run_eval(cfg)
        suite = BENCHMARKS.get(cfg.benchmark.name)(cfg.benchmark)
        _FINISHED["run"] = (cfg, (out / ROWS).read_bytes(), suite)
    return _FINISHED["run"]


def _cuts(data: bytes, n_rows_kept: int) -> tuple[bytes, list[bytes]]:
    """(prefix before the torn row, every cut of that row): the first `n_rows_kept` rows stay whole
    and row number n_rows_kept + 1 is cut at each byte position (0 .. its full length incl. newline)."""
    lines = data.split(b"\n")[:-1]
    prefix = b"".join(line + b"\n" for line in lines[:n_rows_kept])
    torn = lines[n_rows_kept] + b"\n"
    return prefix, [prefix + torn[:k] for k in range(len(torn) + 1)]


@pytest.mark.parametrize("n_kept", [0, 1], ids=["tear-in-first-task-of-chain", "tear-in-last-row"])
def test_plan_resume_at_every_byte_of_the_torn_row(finished, tmp_path, n_kept):
    cfg, data, suite = finished
    chains = suite.chains()
    task_ids = [t.task_id for ts in chains.values() for t in ts]
    assert len(task_ids) == 2 and len(data.split(b"\n")) == 3
    _, cuts = _cuts(data, n_kept)
    path = tmp_path / ROWS
    for k, content in enumerate(cuts):
        path.write_bytes(content)
        rows, clean = read_rows_checked(path)
        todo = plan_resume(path, rows, clean, chains)
        kept = _lines_ok(path)  # rewritten whenever it was torn: appends start on a fresh line
        whole_row = k >= len(cuts) - 2  # every byte of the row is there (its newline may be missing)
        n_parsed = n_kept + (1 if whole_row else 0)
        assert len(rows) == n_parsed, f"cut at byte {k}"
        if n_parsed == 2:  # the chain finished (at most the last newline was lost): nothing reruns
            assert todo == {} and [r["task_id"] for r in kept] == task_ids
        else:  # the chain is partial: it reruns from its start, its rows are dropped first
            assert list(todo) == list(chains) and kept == []
        # what the resumed run would append lands on its own lines
        with open(path, "a") as f:
            for t in [t for ts in todo.values() for t in ts]:
                f.write(json.dumps({"task_id": t.task_id, "status": "ok"}) + "\n")
        final = _lines_ok(path)
        assert sorted(r["task_id"] for r in final) == sorted(task_ids), f"cut at byte {k}"


@pytest.mark.parametrize(
    "n_kept,frac",
    [(0, 0.5), (1, 0.0), (1, 0.37), (1, 1.0)],
    ids=["first-task-half", "last-row-empty", "last-row-37pct", "last-row-no-newline"],
)
def test_full_resumed_run_after_a_tear(finished, tmp_path, eval_cfg, n_kept, frac):
    cfg, data, suite = finished
    _, cuts = _cuts(data, n_kept)
    content = cuts[min(len(cuts) - 2, int(frac * (len(cuts) - 1)))]  # never the intact row
    out = tmp_path / "run"
    out.mkdir()
    (out / ROWS).write_bytes(content)
    run_eval(eval_cfg(out, method="none", overrides=OVERRIDES))
    rows = _lines_ok(out / ROWS)
    ids = [r["task_id"] for r in rows]
    assert sorted(ids) == sorted(t.task_id for ts in suite.chains().values() for t in ts)
    assert len(ids) == len(set(ids)) and all(r["status"] == "ok" for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 2
    # a second resume finds a clean, finished log and touches nothing
    before = (out / ROWS).read_bytes()
    run_eval(eval_cfg(out, method="none", overrides=OVERRIDES))
    assert (out / ROWS).read_bytes() == before


def test_torn_multibyte_last_line_and_blank_lines(tmp_path):
    path = tmp_path / ROWS
    row = json.dumps({"task_id": "a", "note": "caf\u00e9"}, ensure_ascii=False).encode()
    path.write_bytes(row + b"\n\n" + row[: row.index(b"\xc3") + 1])  # cut inside the 2-byte "é"
    rows, clean = read_rows_checked(path)
    assert [r["task_id"] for r in rows] == ["a"] and not clean


def test_bad_line_before_the_last_is_an_error_naming_file_and_line(tmp_path):
    path = tmp_path / ROWS
    path.write_text('{"task_id": "a"}\n{"task_id": \n{"task_id": "c"}\n')
    with pytest.raises(RowsError, match=r"episodes\.jsonl: line 2"):
        read_rows(path)
