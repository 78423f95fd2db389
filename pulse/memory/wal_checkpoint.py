"""WAL checkpoints, and in `background` sync mode the log's fsync, off the commit path.

SQLite's automatic checkpoint runs inside the COMMIT that grows the write-ahead log past 1000
pages: that commit copies the log's pages into the database file and fsyncs it. On a busy disk
that one commit took 50-360 ms (bench/bench_memory_scale.py: the slowest commits' time was all in
the transaction, the rest of each under 20 ms). So a store's own connection never checkpoints
(`wal_autocheckpoint=0`); after a commit it wakes a `Checkpointer`, a daemon thread with its own
connection that runs a PASSIVE checkpoint (it never waits for readers or writers and never blocks
them), at most every `min_interval_s`. A log not yet checkpointed is replayed by the next
connection to open the file, as after any crash. Closing the store stops the thread; the last
connection to close checkpoints the rest (SQLite's own behaviour).

Sync modes (`SYNC_MODES`, the store's `sync` argument):
  commit      every COMMIT fsyncs the log before it returns (synchronous=FULL): a commit that
              returned survives a power cut. On a busy disk one fsync took 0.2-0.25 s
              (bench/bench_memory_scale.py, commit parts: all of it inside the transaction).
  background  a COMMIT writes the log and returns (synchronous=NORMAL); this thread fsyncs the log
              at most `min_interval_s` after a commit, before its checkpoint. A commit that
              returned survives a crash or SIGKILL of the process at once (the log is in the
              operating system's cache; bench/memory_kill_harness.py); a power cut or kernel crash
              loses at most the commits of the last `min_interval_s` plus the time of one fsync and
              checkpoint of this thread, never the file's integrity (SQLite's WAL + NORMAL
              guarantee). `MemoryStore.sync_now()` makes every commit so far durable before it
              returns, for a caller that needs that point.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path

SYNC_MODES = ("commit", "background")
DEFAULT_SYNC = "background"


def fsync_log(db_path: Path) -> bool:
    """fsync the write-ahead log of `db_path` (every commit written to it so far becomes durable);
    False when there is no log file (nothing written since the last connection closed)."""
    try:
        fd = os.open(f"{db_path}-wal", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


class Checkpointer:
    """The daemon thread that runs a store's passive WAL checkpoints (and, with `sync_log`, the log's fsync)
    at most every `min_interval_s` after a commit."""

    def __init__(self, path: Path, min_interval_s: float = 0.5, sync_log: bool = False):
        self.path, self.min_interval_s = path, min_interval_s
        self.sync_log = sync_log  # background sync mode: fsync the log before each checkpoint
        self.checkpoints = 0  # passive checkpoints run (a test and the bench read it)
        self.log_syncs = 0  # background fsyncs of the log
        self.error: BaseException | None = None  # the last failure (the next commit's checkpoint retries)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def poke(self) -> None:
        """A commit happened: checkpoint soon (starts the thread on the first commit)."""
        with self._lock:
            if self._stop.is_set():
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"wal-checkpoint:{self.path.name}", daemon=True
                )
                self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread (later pokes start none) and wait for it to end if it was running."""
        with self._lock:
            self._stop.set()
            self._wake.set()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        try:
            db.execute("PRAGMA busy_timeout=30000")
            while True:
                self._wake.wait()
                if self._stop.is_set():
                    return
                self._wake.clear()
                try:
                    # the log first: a PASSIVE checkpoint syncs it only when it can copy frames back
                    if self.sync_log and fsync_log(self.path):
                        self.log_syncs += 1
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except (sqlite3.Error, OSError) as e:  # e.g. the disk is full: commits go on, the log grows
                    if self.error is None:
                        logging.getLogger(__name__).warning(
                            "WAL sync/checkpoint of %s failed (%s): retried after the next commit; "
                            "the log grows until one succeeds",
                            self.path,
                            e,
                        )
                    self.error = e
                if self._stop.wait(self.min_interval_s):
                    return
        finally:
            db.close()
