"""The SQLite store: WAL + schema version, persistence, and one clear error for bad files."""

from __future__ import annotations

import sqlite3

import pytest
from memory_helpers import pref

from pulse.memory import RetrievalQuery, StoreError, open_memory
from pulse.memory.store import SCHEMA_VERSION, STORE_FILE, MemoryStore


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
    data[4096 * 2 : 4096 * 3] = b"\xff" * 4096  # smash a b-tree page
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


def _fingerprint(path):
    import hashlib
    import os

    if path.is_dir():
        return ("dir", sorted(os.listdir(path)))
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        sorted(os.listdir(path.parent)),
    )


def _foreign_wal(p):
    db = sqlite3.connect(p)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE notes (body TEXT)")
    db.execute("INSERT INTO notes VALUES ('hello')")
    db.commit()
    db.close()


def _foreign_rollback(p):
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "make,match",
    [
        (_foreign_wal, "another application"),
        (_foreign_rollback, "another application"),
        (lambda p: p.write_bytes(b""), "empty file"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_text("meeting notes\nbuy milk\n"), "a text file"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200), "memory.sqlite"),
    ],
    ids=["foreign-wal", "foreign-rollback", "empty", "directory", "text", "truncated-header"],
)
def test_opening_never_writes_to_a_file_that_is_not_a_pulse_store(tmp_path, make, match):
    root = tmp_path / "r"
    root.mkdir()
    target = root / STORE_FILE
    make(target)
    before = _fingerprint(target)
    for create in (True, False):
        with pytest.raises(StoreError, match=match) as e:
            open_memory("structured", root, "hash", create=create)
        assert str(target) in str(e.value)
    assert _fingerprint(target) == before  # bytes, mtime, and no -wal/-shm/temp files beside it


def test_a_memory_root_that_is_a_file_is_refused(tmp_path):
    root = tmp_path / "file"
    root.write_text("x")
    with pytest.raises(StoreError, match="is a file, not a directory"):
        open_memory("structured", root, "hash")
    assert root.read_text() == "x"


def test_a_new_store_appears_whole_and_leaves_no_temp_files(tmp_path):
    import os

    s = MemoryStore(tmp_path / "n")
    s.close()
    assert sorted(os.listdir(tmp_path / "n")) == [STORE_FILE]
    MemoryStore(tmp_path / "n").close()  # reopens as a Pulse store


@pytest.mark.parametrize(
    "column,value,field_name",
    [
        ("entities", "[not json", "entities"),
        ("links", '{"a": 1}', "links"),
        ("valid_from", "next week", "valid_from"),
        ("kind", "wish", "kind"),
        ("text", b"\xff\x00", "text"),  # a BLOB where text belongs
    ],
)
def test_a_stored_row_that_does_not_parse_names_table_and_id(
    mem_factory, tmp_path, column, value, field_name
):
    m = mem_factory(root=tmp_path / "rows")
    m.add_items([pref("ok", "I prefer tea", slot="drink", value="tea"), pref("bad", "I like jazz")])
    m.close()
    db = sqlite3.connect(tmp_path / "rows" / STORE_FILE)
    db.execute(f"UPDATE items SET {column}=? WHERE item_id='bad'", (value,))
    db.commit()
    db.close()
    m2 = mem_factory(root=tmp_path / "rows")
    with pytest.raises(StoreError, match=rf"table items, row item_id 'bad'.*{field_name}"):
        m2.snapshot("u1")
    assert m2.get("ok").value == "tea"  # the good row still reads


def test_a_vector_row_that_does_not_parse_names_table_and_key(mem_factory, tmp_path):
    m = mem_factory(root=tmp_path / "v")
    m.store.seed_vectors("emb", ["hello"], [[1.0, 2.0]])
    db = sqlite3.connect(tmp_path / "v" / STORE_FILE)
    db.execute("UPDATE vectors SET vec=? WHERE embedder_id='emb'", (b"\x00\x01",))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"table vectors, row \(embedder_id 'emb'.*field vec"):
        m.store.cached_vectors("emb", ["hello"])
