"""The SQLite store: WAL + schema version, persistence, and one clear error for bad files."""
from __future__ import annotations

import sqlite3

import pytest

from pulse.memory import RetrievalQuery, StoreError, open_memory
from pulse.memory.store import SCHEMA_VERSION, STORE_FILE, MemoryStore

from memory_helpers import pref


def test_new_store_is_wal_with_schema_version(tmp_path):
    s = MemoryStore(tmp_path / "m")
    assert s._q("PRAGMA journal_mode")[0][0] == "wal"
    assert s._q("SELECT app, version FROM schema_version") == [("pulse-memory", SCHEMA_VERSION)]
    s.close()


def test_records_persist_across_reopen(mem_factory, tmp_path):
    m = mem_factory(root=tmp_path / "r")
    m.add_items([pref("a", "I prefer tea", slot="drink", value="tea")])
    m.close()
    m2 = mem_factory(root=tmp_path / "r")
    assert [i.item_id for i in m2.snapshot("u1")] == ["a"]


def test_garbage_file_is_a_clear_error(tmp_path):
    root = tmp_path / "bad"
    root.mkdir()
    (root / STORE_FILE).write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match=r"memory\.sqlite.*corrupted"):
        open_memory("structured", root, "hash")


def test_truncated_store_is_a_clear_error(tmp_path, mem_factory):
    m = mem_factory(root=tmp_path / "t")
    m.add_items([pref(f"p{i}", f"fact number {i} " * 20) for i in range(200)])
    m.close()
    path = tmp_path / "t" / STORE_FILE
    for suffix in ("-wal", "-shm"):
        (tmp_path / "t" / (STORE_FILE + suffix)).unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    data[4096 * 2: 4096 * 3] = b"\xff" * 4096  # smash a b-tree page
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=str(path.name)):
        m2 = open_memory("structured", tmp_path / "t", "hash")
        m2.snapshot("u1")


def test_foreign_sqlite_file_is_refused_and_untouched(tmp_path):
    root = tmp_path / "foreign"
    root.mkdir()
    db = sqlite3.connect(root / STORE_FILE)
    db.execute("CREATE TABLE customers (id INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="another application"):
        open_memory("structured", root, "hash")
    db = sqlite3.connect(root / STORE_FILE)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["customers"]


def test_newer_schema_is_refused(tmp_path, mem_factory):
    m = mem_factory(root=tmp_path / "n")
    m.close()
    db = sqlite3.connect(tmp_path / "n" / STORE_FILE)
    db.execute("UPDATE schema_version SET version=99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="schema version 99"):
        open_memory("structured", tmp_path / "n", "hash")


def test_missing_root_without_create(tmp_path):
    with pytest.raises(StoreError, match="no memory store"):
        open_memory("structured", tmp_path / "nothing", "hash", create=False)


def test_second_process_commit_is_seen(mem_factory, tmp_path):
    a = mem_factory(root=tmp_path / "s")
    b = mem_factory(root=tmp_path / "s")
    a.add_items([pref("x1", "Likes jazz music", topic="music")])
    assert b.retrieve(RetrievalQuery("u1", subgoal="music jazz"))
    a.add_items([pref("x2", "Likes opera music", topic="music")])  # b's index must notice
    ids = {s.item.item_id for s in b.retrieve(RetrievalQuery("u1", subgoal="music opera"))}
    assert "x2" in ids
