"""WAL checkpoints run on their own thread and connection, never inside a commit."""

import time

import pytest

from pulse.core.records import MemoryItem, Provenance
from pulse.memory import make_embedder, open_memory
from pulse.memory.interface import StoreError


def _items(a: int, b: int) -> list[MemoryItem]:
    return [
        MemoryItem(
            f"m{i}", "preference", "user:u", f"I like tea number {i}", provenance=Provenance("user_statement")
        )
        for i in range(a, b)
    ]


def test_commits_leave_checkpoints_to_the_checkpointer(tmp_path):
    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    store = mem.store
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0  # never inside a COMMIT
    mem.add_items(_items(0, 50))
    deadline = time.monotonic() + 10
    while store.checkpointer.checkpoints == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.checkpointer.checkpoints >= 1 and store.checkpointer.error is None
    wal = store.path.with_name(store.path.name + "-wal")
    mem.add_items(_items(50, 60))
    thread = store.checkpointer._thread
    mem.close()
    assert thread is not None and not thread.is_alive()  # closing the store stops its checkpointer
    assert not wal.exists() or wal.stat().st_size == 0  # the last connection checkpointed the rest
    again = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    assert len(again.snapshot("u")) == 60
    again.close()


def test_a_store_that_never_commits_starts_no_thread(tmp_path):
    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    mem.close()
    assert mem.store.checkpointer._thread is None


def test_background_sync_fsyncs_the_log_off_the_commit_path(tmp_path):
    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    store = mem.store
    assert store.sync == "background"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: COMMIT does not fsync
    mem.add_items(_items(0, 20))
    deadline = time.monotonic() + 10
    while store.checkpointer.log_syncs == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.checkpointer.log_syncs >= 1 and store.checkpointer.error is None
    store.sync_now()  # an explicit durability point
    mem.close()


def test_commit_sync_fsyncs_in_the_commit(tmp_path):
    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"), sync="commit")
    store = mem.store
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    mem.add_items(_items(0, 20))
    deadline = time.monotonic() + 10
    while store.checkpointer.checkpoints == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.checkpointer.checkpoints >= 1 and store.checkpointer.log_syncs == 0
    mem.close()
    again = open_memory("structured", tmp_path / "m", make_embedder("hash"), sync="commit")
    assert len(again.snapshot("u")) == 20
    again.close()


def test_an_unknown_sync_mode_is_refused_by_name(tmp_path):
    with pytest.raises(StoreError, match="'fsync'.*commit, background"):
        open_memory("structured", tmp_path / "m", make_embedder("hash"), sync="fsync")
    assert not (tmp_path / "m").exists() or not any((tmp_path / "m").iterdir())


def test_an_explicit_checkpoint_empties_the_log(tmp_path):
    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    mem.add_items(_items(0, 200))
    wal = mem.store.path.with_name(mem.store.path.name + "-wal")
    assert wal.stat().st_size > 0
    mem.store.checkpoint()  # e.g. after a bulk import
    assert wal.stat().st_size == 0
    mem.add_items(_items(200, 210))
    assert len(mem.snapshot("u")) == 210
    mem.close()
