"""Bad inputs through the real `pulse` CLI: every one ends with exit status 2 and one line on stderr
that names the file, record, row or key -- never a traceback -- and changes nothing.

Categories: memory stores that are not Pulse stores (another application's SQLite file, an empty
file, a directory, a text file, a memory root that is a file), a stored row whose field does not
parse, snapshots that fail validation (field type, time order, duplicate id, supersession cycle,
bad JSON, JSON nested 100000 levels deep, bytes that are not UTF-8), dataset rows that fail
validation (bad JSON column, a column nested 100000 levels deep, wrong column type, evidence not in
the snapshot), a missing or empty model folder, a missing dataset, an eval run log with a bad line
before its last, a 100000-deep line in a run log `pulse trace` reads, and a 100000-deep suite file.
Tiny inputs, no training.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

_BIN = Path(sys.executable).parent / "pulse"
PULSE = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "pulse.cli"]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def run_cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PULSE, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
        cwd=Path(__file__).resolve().parents[1],
    )


def assert_user_error(r: subprocess.CompletedProcess, *names: str) -> str:
    """Exit 2, no traceback, one line on stderr that contains every name in `names`."""
    err = r.stderr.strip()
    assert r.returncode == 2, f"exit {r.returncode}\nstdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-3000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line, got:\n{err}"
    for name in names:
        assert name in lines[0], f"{name!r} not in {lines[0]!r}"
    return lines[0]


def fingerprint(path: Path) -> tuple:
    """Bytes, mtime and the directory's listing: 'changes nothing' means all three stay."""
    if path.is_dir():
        return ("dir", sorted(os.listdir(path)), path.stat().st_mtime_ns)
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        sorted(os.listdir(path.parent)),
    )


GOOD_SNAPSHOT = {
    "format": "pulse-memory-snapshot",
    "version": 1,
    "user_id": "u1",
    "project_id": "",
    "as_of": "",
    "items": [
        {
            "item_id": "a",
            "kind": "preference",
            "scope": "user:u1",
            "text": "I prefer tea",
            "slot": "drink",
            "value": "tea",
            "valid_from": "2025-01-01T00:00:00Z",
        }
    ],
}


def write_json(path: Path, obj) -> Path:
    if isinstance(obj, bytes):
        path.write_bytes(obj)
    else:
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return path


DEEP = "[" * 100000 + "]" * 100000  # nested past Python's JSON parser: a RecursionError unless handled


# ------------------------------------------------------------------------------------ memory stores
def _foreign(p: Path) -> None:
    db = sqlite3.connect(p)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    db.execute("INSERT INTO customers VALUES (1, 'ada')")
    db.commit()
    db.close()


STORE_CASES = {
    "foreign_sqlite": (_foreign, "another application"),
    "empty_file": (lambda p: p.write_bytes(b""), "empty file"),
    "directory": (lambda p: p.mkdir(), "directory"),
    "text_file": (lambda p: p.write_text("shopping list: milk, eggs\n"), "not a Pulse memory store"),
}


@pytest.mark.parametrize("case", sorted(STORE_CASES))
@pytest.mark.parametrize("verb", ["import", "show"])
def test_a_file_that_is_not_a_pulse_store_is_refused_and_untouched(tmp_path, case, verb):
    make, what = STORE_CASES[case]
    root = tmp_path / "root"
    root.mkdir()
    target = root / "memory.sqlite"
    make(target)
    before = fingerprint(target)
    snap = write_json(tmp_path / "snap.json", GOOD_SNAPSHOT)
    args = (
        ["import", "--root", str(root), "--file", str(snap)]
        if verb == "import"
        else ["show", "--root", str(root), "--user", "u1"]
    )
    r = run_cli("memory", *args)
    assert_user_error(r, str(target), what)
    assert fingerprint(target) == before
    assert sorted(os.listdir(root)) == ["memory.sqlite"]  # no -wal / -shm / temp files left beside it


def test_a_memory_root_that_is_a_file_is_refused_and_untouched(tmp_path):
    snap = write_json(tmp_path / "s.json", GOOD_SNAPSHOT)
    root = tmp_path / "notes.txt"
    root.write_text("not a folder\n")
    before = fingerprint(root)
    r = run_cli("memory", "import", "--root", str(root), "--file", str(snap))
    assert_user_error(r, str(root), "is a file, not a directory")
    assert fingerprint(root) == before


def _good_store(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    r = run_cli(
        "memory",
        "import",
        "--root",
        str(root),
        "--file",
        str(write_json(tmp_path / "good.json", GOOD_SNAPSHOT)),
    )
    assert r.returncode == 0, r.stderr
    return root


def test_a_stored_row_that_does_not_parse_names_table_and_id(tmp_path):
    root = _good_store(tmp_path)
    db = sqlite3.connect(root / "memory.sqlite")
    db.execute("UPDATE items SET entities='[not json' WHERE item_id='a'")
    db.commit()
    db.close()
    r = run_cli("memory", "show", "--root", str(root), "--user", "u1")
    assert_user_error(r, "table items", "item_id 'a'", "entities")
    db = sqlite3.connect(root / "memory.sqlite")
    db.execute("UPDATE items SET entities='[]', valid_from='last tuesday' WHERE item_id='a'")
    db.commit()
    db.close()
    r = run_cli("memory", "export", "--root", str(root), "--user", "u1", "--out", str(tmp_path / "o.json"))
    assert_user_error(r, "table items", "item_id 'a'", "valid_from")
    assert not (tmp_path / "o.json").exists()


# ------------------------------------------------------------------------------------ snapshots
def _item(i, **kw):
    return {"item_id": i, "kind": "preference", "scope": "user:u1", "text": f"fact {i}", **kw}


BAD_SNAPSHOTS = {
    "field_type": (
        {**GOOD_SNAPSHOT, "items": [_item("a"), _item("b", text=5)]},
        ["items[1]", "'b'", "'text'"],
    ),
    "entities_type": ({**GOOD_SNAPSHOT, "items": [_item("a", entities="tea")]}, ["items[0]", "'entities'"]),
    "time_order": (
        {**GOOD_SNAPSHOT, "items": [_item("a", valid_from="2025-05-01", valid_to="2025-01-01")]},
        ["items[0]", "valid_to", "before valid_from"],
    ),
    "bad_time": (
        {**GOOD_SNAPSHOT, "items": [_item("a", valid_from="yesterday")]},
        ["items[0]", "valid_from"],
    ),
    "duplicate_id": ({**GOOD_SNAPSHOT, "items": [_item("a"), _item("a")]}, ["items[1]", "duplicate item_id"]),
    "cycle": (
        {**GOOD_SNAPSHOT, "items": [_item("a", supersedes="b"), _item("b", supersedes="a")]},
        ["supersession cycle", "a -> b -> a"],
    ),
    "self_supersession": (
        {**GOOD_SNAPSHOT, "items": [_item("a", supersedes="a")]},
        ["items[0]", "supersedes itself"],
    ),
    "provenance_type": (
        {**GOOD_SNAPSHOT, "items": [_item("a", provenance={"source_kind": "history", "quote": 3})]},
        ["items[0]", "provenance", "'quote'"],
    ),
    "not_json": ('{"format": ', ["not valid JSON", "line 1"]),
    "too_deep": (DEEP, ["JSON nested 100000 levels deep"]),
    "not_utf8": (
        json.dumps({**GOOD_SNAPSHOT, "items": [_item("a", text="cafe")]})
        .encode()
        .replace(b"cafe", b"caf\xe9"),
        ["not UTF-8", "byte 0xe9 at byte offset"],
    ),
    "meta_links": ({**GOOD_SNAPSHOT, "meta": {"a": {"links": [1]}}}, ["meta['a']"]),
}


@pytest.mark.parametrize("case", sorted(BAD_SNAPSHOTS))
def test_a_bad_snapshot_names_file_and_record_and_loads_nothing(tmp_path, case):
    content, names = BAD_SNAPSHOTS[case]
    bad = write_json(tmp_path / f"{case}.json", content)
    # into a new root: the store is not even created
    fresh = tmp_path / "fresh"
    assert_user_error(run_cli("memory", "import", "--root", str(fresh), "--file", str(bad)), str(bad), *names)
    assert not fresh.exists()
    # into an existing store: nothing loaded, bytes unchanged
    root = _good_store(tmp_path)
    before = fingerprint(root / "memory.sqlite")
    assert_user_error(run_cli("memory", "import", "--root", str(root), "--file", str(bad)), str(bad), *names)
    assert fingerprint(root / "memory.sqlite") == before


# ------------------------------------------------------------------------------------ datasets, models
def _row(i: int, **kw):
    row = {
        "example_id": f"e{i}",
        "task_group": "g",
        "user_id": "u0",
        "case_type": "consistent",
        "label_action": "supplement",
        "label_evidence": ["m1"],
        "prefix_json": json.dumps([{"kind": "request", "step": 0, "text": "make tea"}]),
        "snapshot_json": json.dumps(
            [{"item_id": "m1", "kind": "preference", "scope": "user:u0", "text": "I prefer green tea"}]
        ),
        "task_slots": ["drink"],
        "task_topic": "food",
        "task_level": 1,
        "as_of": "",
    }
    row.update(kw)
    return row


def _dataset(path: Path, rows: list[dict]) -> Path:
    from datasets import Dataset, DatasetDict

    DatasetDict({"test": Dataset.from_list(rows)}).save_to_disk(str(path))
    return path


BAD_ROWS = {
    "bad_json": (
        lambda: [_row(0), _row(1, prefix_json='[{"kind": ')],
        ["row 1", "'prefix_json'", "not valid JSON"],
    ),
    "bad_event": (
        lambda: [_row(0), _row(1, prefix_json=json.dumps([{"kind": "request", "step": "zero"}]))],
        ["row 1", "'prefix_json'", "'step'"],
    ),
    "column_type": (
        lambda: [_row(0, task_level="high"), _row(1, task_level="low")],
        ["row 0", "'task_level'"],
    ),
    "evidence": (lambda: [_row(0), _row(1, label_evidence=["m9"])], ["row 1", "'label_evidence'", "m9"]),
    "too_deep": (
        lambda: [_row(0), _row(1, snapshot_json=DEEP)],
        ["row 1", "'snapshot_json'", "JSON nested 100000 levels deep"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_bad_dataset_row_names_file_row_and_column(tmp_path, case):
    rows, names = BAD_ROWS[case]
    data = _dataset(tmp_path / "ds", rows())
    r = run_cli(
        "eval-policy",
        f"data.path={data}",
        "data.generate_if_missing=false",
        "split=test",
        f"policy.name_or_path={tmp_path / 'no_model'}",
        f"out_dir={tmp_path / 'out'}",
    )
    assert_user_error(r, str(data), "[test]", *names)


def test_a_missing_dataset_is_named(tmp_path):
    r = run_cli(
        "eval-policy",
        f"data.path={tmp_path / 'nothing'}",
        "data.generate_if_missing=false",
        "policy.name_or_path=x",
        f"out_dir={tmp_path / 'out'}",
    )
    assert_user_error(r, str(tmp_path / "nothing"), "data.path", "does not exist")


@pytest.mark.parametrize("case", ["missing", "empty_folder", "a_file"])
def test_a_missing_model_folder_is_reported_before_any_tokenizer_loads(tmp_path, case):
    data = _dataset(tmp_path / "ds", [_row(0), _row(1)])
    model = tmp_path / "model"
    if case == "empty_folder":
        model.mkdir()
    elif case == "a_file":
        model.write_text("weights?")
    r = run_cli(
        "eval-policy",
        f"data.path={data}",
        "data.generate_if_missing=false",
        "split=test",
        f"policy.name_or_path={model}",
        f"out_dir={tmp_path / 'out'}",
    )
    what = {"missing": "does not exist", "empty_folder": "is not a model folder", "a_file": "is a file"}[case]
    assert_user_error(r, str(model), what)
    assert not (tmp_path / "out" / "metrics.json").exists()


def test_eval_with_a_missing_policy_folder_is_named(tmp_path):
    model = tmp_path / "no_such_model"
    r = run_cli(
        "eval",
        "method=pulse_no_rl",
        f"base_policy.name_or_path={model}",
        "benchmark.max_tasks=1",
        "benchmark.personas=[researcher]",
        f"out_dir={tmp_path / 'run'}",
        "progress=false",
    )
    assert_user_error(r, str(model), "does not exist")


# ------------------------------------------------------------------------------------ eval run logs
def test_an_eval_run_log_with_a_bad_middle_line_is_named(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    log = out / "episodes.jsonl"
    log.write_text('{"task_id": "a"}\n{"task_id": \n{"task_id": "c"}\n')
    before = fingerprint(log)
    r = run_cli(
        "eval",
        "method=none",
        "benchmark=pibench_sim",
        "benchmark.max_tasks=1",
        "benchmark.personas=[researcher]",
        f"out_dir={out}",
        "progress=false",
    )
    assert_user_error(r, str(log), "line 2")
    assert fingerprint(log)[:2] == before[:2]  # (hydra writes its own log beside it)


def test_a_100k_deep_line_in_a_run_log_is_named_by_eval_and_by_trace(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    log = out / "episodes.jsonl"
    log.write_text('{"task_id": "a"}\n' + DEEP + '\n{"task_id": "c"}\n')
    before = fingerprint(log)
    r = run_cli(
        "eval",
        "method=none",
        "benchmark=pibench_sim",
        "benchmark.max_tasks=1",
        "benchmark.personas=[researcher]",
        f"out_dir={out}",
        "progress=false",
    )
    assert_user_error(r, str(log), "line 2", "JSON nested 100000 levels deep")
    assert fingerprint(log)[:2] == before[:2]
    r = run_cli("trace", str(out), f"out={tmp_path / 't.html'}")
    assert_user_error(r, str(log), "line 2", "JSON nested 100000 levels deep")
    assert not (tmp_path / "t.html").exists()


@pytest.mark.parametrize("case", ["too_deep", "not_utf8"])
def test_a_bad_suite_file_is_named(tmp_path, case):
    suite = tmp_path / "suite.json"
    if case == "too_deep":
        suite.write_text(DEEP)
        names = ["JSON nested 100000 levels deep"]
    else:
        suite.write_bytes(b'{"name": "caf\xe9"}')
        names = ["not UTF-8", "byte 0xe9 at byte offset 13"]
    r = run_cli(
        "eval",
        "method=none",
        "benchmark=pibench_sim",
        f"benchmark.path={suite}",
        f"out_dir={tmp_path / 'run'}",
        "progress=false",
    )
    assert_user_error(r, str(suite), *names)
