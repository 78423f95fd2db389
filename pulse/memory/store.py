"""The embedded default store: one SQLite file per memory root (`<root>/memory.sqlite`).

WAL journal; `sync="background"` (default: a commit that returned survives a SIGKILL at once and a
power cut after at most ~0.5 s, fsynced off the commit path) or `sync="commit"` (every commit
fsyncs: survives a power cut when it returns) — see pulse/memory/wal_checkpoint.py; explicit
`BEGIN IMMEDIATE` transactions, and a `schema_version` table naming this app. Opening a directory,
an empty file, a text file, a file that is not SQLite, someone else's database, a store written by
a newer schema, or one that fails `quick_check` raises `StoreError` naming the path; the checks use
a read-only connection, so nothing is written to such a file (its bytes and mtime stay the same).
A new store is built under a temporary name and linked into place complete. A stored row whose
fields do not parse is a `StoreError` naming the table, the row's id and the field.

Tables: items (the factual layer, one row per record version; revisions add rows and only ever set
`valid_to` on the old one; its rows are read and written in pulse/memory/store_rows.py), topics /
item_topics (thematic layer), entities / item_entities (entity layer), vectors (embedding cache keyed
by embedder id and text hash), conversations (one row per committed conversation, written in the
same transaction as its items), scopes (known users and projects, with a generation counter that
tells other processes' indexes to reload).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import urllib.parse
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from pulse.core.records import MemoryItem
from pulse.memory.interface import ItemMeta, StoreError
from pulse.memory.store_rows import ItemRows, bad_row, text_hash
from pulse.memory.wal_checkpoint import DEFAULT_SYNC, SYNC_MODES, Checkpointer, fsync_log

APP = "pulse-memory"
SCHEMA_VERSION = 1
STORE_FILE = "memory.sqlite"
_SQLITE_MAGIC = b"SQLite format 3\x00"

# The exact text SQLite keeps in sqlite_master for every store (split only to fit the line length).
_SCHEMA = (
    "\n"
    "CREATE TABLE schema_version (app TEXT NOT NULL, version INTEGER NOT NULL);\n"
    "CREATE TABLE scopes (scope TEXT PRIMARY KEY, created_at TEXT NOT NULL, "
    "generation INTEGER NOT NULL DEFAULT 0);\n"
    "CREATE TABLE items (\n"
    "    item_id TEXT PRIMARY KEY, scope TEXT NOT NULL REFERENCES scopes(scope), "
    "kind TEXT NOT NULL,\n"
    "    text TEXT NOT NULL, slot TEXT NOT NULL, value TEXT NOT NULL, topic TEXT NOT NULL,\n"
    "    entities TEXT NOT NULL, conditions TEXT NOT NULL, source_kind TEXT NOT NULL, "
    "event_id TEXT NOT NULL,\n"
    "    quote TEXT NOT NULL, valid_from TEXT NOT NULL, valid_to TEXT NOT NULL, "
    "supersedes TEXT NOT NULL,\n"
    "    task_id TEXT NOT NULL, links TEXT NOT NULL, conversation_id TEXT NOT NULL,\n"
    "    eq_key TEXT NOT NULL, rev_key TEXT NOT NULL);\n"
    "CREATE INDEX items_by_scope ON items(scope);\n"
    "CREATE INDEX items_by_eq ON items(eq_key);\n"
    "CREATE INDEX items_by_rev ON items(rev_key, valid_to);\n"
    "CREATE INDEX items_by_conversation ON items(conversation_id);\n"
    "CREATE TABLE topics (scope TEXT NOT NULL, path TEXT NOT NULL, parent TEXT NOT NULL, "
    "PRIMARY KEY (scope, path));\n"
    "CREATE TABLE item_topics (item_id TEXT NOT NULL, topic TEXT NOT NULL, role TEXT NOT NULL, "
    "PRIMARY KEY (item_id, topic));\n"
    "CREATE TABLE entities (scope TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, "
    "PRIMARY KEY (scope, key));\n"
    "CREATE TABLE item_entities (item_id TEXT NOT NULL, key TEXT NOT NULL, "
    "PRIMARY KEY (item_id, key));\n"
    "CREATE TABLE vectors (embedder_id TEXT NOT NULL, text_hash TEXT NOT NULL, "
    "dim INTEGER NOT NULL, vec BLOB NOT NULL,\n"
    "    PRIMARY KEY (embedder_id, text_hash)) WITHOUT ROWID;\n"
    "CREATE TABLE conversations (conversation_id TEXT PRIMARY KEY, user_scope TEXT NOT NULL, "
    "project_scope TEXT NOT NULL,\n"
    "    committed_at TEXT NOT NULL, n_items INTEGER NOT NULL, n_merged INTEGER NOT NULL, "
    "n_rejected INTEGER NOT NULL);\n"
)


def _uri_ro(path: Path, immutable: bool = False) -> str:
    return "file:" + urllib.parse.quote(str(path.resolve())) + ("?immutable=1" if immutable else "?mode=ro")


def check_store_file(path: Path, quick_check: bool = True) -> None:
    """Refuse (StoreError naming `path`) anything that is not an intact Pulse store, reading only.

    A directory, an empty file, a text file, another application's SQLite file, a newer schema
    and a store that fails `quick_check` are all refused before any connection that could write is
    opened, so the file's bytes and mtime stay as they were.
    """
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a Pulse memory store file")
    if not path.is_file():
        raise StoreError(f"{path} is not a regular file, so not a Pulse memory store")
    size = path.stat().st_size
    if size == 0:
        raise StoreError(
            f"{path} is an empty file, not a Pulse memory store (Pulse never leaves an empty "
            f"store: remove it to start a new one)"
        )
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise StoreError(f"{path}: cannot read ({e.strerror or e})") from None
    if head != _SQLITE_MAGIC:
        kind = "a text file" if _looks_text(path) else "not a SQLite file"
        raise StoreError(f"memory store {path} is corrupted or not a Pulse memory store ({kind}: bad header)")
    # A WAL-mode file nobody has open (no -wal file) is read as immutable: a read-only connection
    # would otherwise leave empty -wal/-shm files beside someone else's database. If that read
    # fails for a reason a concurrent writer could cause, the normal read-only check decides.
    wal_mode = len(head) >= 16 and _header_byte(path, 18) == 2
    if wal_mode and not Path(f"{path}-wal").exists():
        try:
            _check_schema(path, _uri_ro(path, immutable=True), quick_check)
            return
        except StoreError as e:
            if "another application" in str(e) or "newer than" in str(e):
                raise
    _check_schema(path, _uri_ro(path), quick_check)


def _header_byte(path: Path, offset: int) -> int:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            b = f.read(1)
        return b[0] if b else -1
    except OSError:
        return -1


def _check_schema(path: Path, uri: str, quick_check: bool) -> None:
    try:
        db = sqlite3.connect(uri, uri=True, timeout=30.0)
    except sqlite3.Error as e:
        raise StoreError(f"memory store {path} cannot be opened ({e})") from None
    try:
        db.execute("PRAGMA busy_timeout=30000")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_version" not in tables:
            raise StoreError(
                f"{path} is a SQLite file of another application (no schema_version table; "
                f"tables: {sorted(tables)[:5]})"
            )
        try:
            row = db.execute("SELECT app, version FROM schema_version").fetchone()
        except sqlite3.Error as e:
            raise StoreError(
                f"{path} is a SQLite file of another application (schema_version: {e})"
            ) from None
        if row is None or row[0] != APP:
            raise StoreError(
                f"{path} is a SQLite file of another application (schema_version app {row and row[0]!r})"
            )
        if not isinstance(row[1], int):
            raise StoreError(
                f"{path}: table schema_version, row app {APP!r}: field version does not parse ({row[1]!r})"
            )
        if row[1] > SCHEMA_VERSION:
            raise StoreError(
                f"{path} has schema version {row[1]}, newer than this code's {SCHEMA_VERSION}; upgrade pulse"
            )
        missing = {
            "scopes",
            "items",
            "topics",
            "item_topics",
            "entities",
            "item_entities",
            "vectors",
            "conversations",
        } - tables
        if missing:
            raise StoreError(f"memory store {path} is corrupted (missing table(s) {sorted(missing)})")
        res = db.execute("PRAGMA quick_check").fetchone()[0] if quick_check else "ok"
        if res != "ok":
            raise StoreError(f"memory store {path} is corrupted (quick_check: {res})")
    except sqlite3.DatabaseError as e:
        raise StoreError(f"memory store {path} is corrupted or not a Pulse memory store ({e})") from None
    finally:
        db.close()


def _looks_text(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            chunk = f.read(512)
        chunk.decode("utf-8")
        return b"\x00" not in chunk
    except (OSError, UnicodeDecodeError):
        return False


def _create_store_file(path: Path) -> None:
    """Build a new, empty Pulse store beside `path` and link it into place only when complete.

    A crash leaves either no store or a whole one (never an empty or half-initialised file), and a
    concurrent creator wins cleanly: `os.link` refuses to replace a store someone else just made.
    """
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            for stmt in _SCHEMA.strip().split(";"):  # not executescript: it would COMMIT early
                if stmt.strip():
                    db.execute(stmt)
            db.execute("INSERT INTO schema_version VALUES (?, ?)", (APP, SCHEMA_VERSION))
            db.execute("COMMIT")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created the store first: use theirs
        except OSError:  # a filesystem without hard links
            if not path.exists():
                os.replace(tmp, path)
        try:
            dfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{tmp}{suffix}")


class MemoryStore(ItemRows):
    """Thread-safe wrapper of one SQLite connection. Writes happen only inside `transaction()`.

    Args: the memory `root` (a directory; the store is `<root>/memory.sqlite`), `create` (False: a
    missing store is an error), `check` (run `quick_check` on opening) and the `sync` mode. Raises
    `StoreError` naming the path for anything that is not an intact Pulse store (module docstring).
    Its parts: the connection, transactions and durability, the scopes, the graph layers, the
    conversations and the vector cache (here), and the `items` table's rows (`ItemRows`,
    pulse/memory/store_rows.py).
    """

    def __init__(self, root: str | Path, create: bool = True, check: bool = True, sync: str = DEFAULT_SYNC):
        if sync not in SYNC_MODES:
            raise StoreError(f"memory sync mode {sync!r} is not one of {', '.join(SYNC_MODES)}")
        self.sync = sync
        self.root = Path(root)
        self.path = self.root / STORE_FILE
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(
                f"memory root {self.root} is a file, not a directory (it should hold {STORE_FILE})"
            )
        if not self.path.exists() and not self.path.is_symlink():
            if not create:
                raise StoreError(
                    f"no memory store at {self.path} (memory root {self.root} is empty or missing)"
                )
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                _create_store_file(self.path)
            except OSError as e:
                raise StoreError(f"cannot create memory store {self.path} ({e.strerror or e})") from None
            except sqlite3.Error as e:
                raise StoreError(f"cannot create memory store {self.path} ({e})") from None
        # every check reads only; nothing is written to a file that is not an intact Pulse store
        check_store_file(self.path, quick_check=check)
        self._lock = threading.RLock()
        self.checkpointer = Checkpointer(self.path, sync_log=(sync == "background"))
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
            self._db.execute("PRAGMA busy_timeout=30000")
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: COMMIT fsyncs the log; NORMAL: it only writes it (the checkpointer fsyncs it)
            self._db.execute(f"PRAGMA synchronous={'FULL' if sync == 'commit' else 'NORMAL'}")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run off the commit path
            self._init_schema()
        except sqlite3.DatabaseError as e:
            raise StoreError(
                f"memory store {self.path} is corrupted or not a Pulse memory store ({e})"
            ) from None

    # ---------------------------------------------------------------- schema / lifecycle
    def _init_schema(self) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_version" not in tables:
            raise StoreError(
                f"{self.path} is a SQLite file of another application (no schema_version table; "
                f"tables: {sorted(tables)[:5]})"
            )
        row = self._db.execute("SELECT app, version FROM schema_version").fetchone()
        if row is None or row[0] != APP:
            raise StoreError(
                f"{self.path} is a SQLite file of another application (schema_version app {row and row[0]!r})"
            )
        if not isinstance(row[1], int) or row[1] > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {row[1]}, newer than this code's {SCHEMA_VERSION}; "
                f"upgrade pulse"
            )

    def close(self) -> None:
        self.checkpointer.close()
        with self._lock:
            if self.sync == "background":  # closing is a durability point in both modes
                with contextlib.suppress(OSError):
                    fsync_log(self.path)
            self._db.close()

    def checkpoint(self) -> None:
        """Fold the whole log into the database file now and fsync it (blocking): after a bulk import,
        so that later commits do not wait behind the writeback of hundreds of MB."""
        with self._lock:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.DatabaseError as e:
                raise StoreError(f"cannot checkpoint memory store {self.path} ({e})") from None

    def sync_now(self) -> None:
        """Every commit so far is durable (power cut included) when this returns; a no-op cost
        in `commit` sync mode, one fsync of the log in `background` mode."""
        if self.sync == "background":
            try:
                fsync_log(self.path)
            except OSError as e:
                raise StoreError(f"cannot sync memory store {self.path} ({e.strerror or e})") from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: everything in the block commits together or not at all."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
        self.checkpointer.poke()

    def _q(self, sql: str, params: Sequence = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as e:
                raise StoreError(f"memory store {self.path}: {e}") from None

    def data_version(self) -> int:
        """Changes when another connection commits: a cheap signal to drop cached indexes."""
        return self._q("PRAGMA data_version")[0][0]

    # ---------------------------------------------------------------- scopes
    def has_scope(self, scope: str) -> bool:
        return bool(self._q("SELECT 1 FROM scopes WHERE scope=?", (scope,)))

    def scopes(self, prefix: str = "") -> list[str]:
        return [
            r[0]
            for r in self._q("SELECT scope FROM scopes WHERE scope LIKE ? ORDER BY scope", (prefix + "%",))
        ]

    def generations(self) -> dict[str, int]:
        return dict(self._q("SELECT scope, generation FROM scopes"))

    def ensure_scope(self, db: sqlite3.Connection, scope: str, now: str) -> None:
        db.execute("INSERT OR IGNORE INTO scopes(scope, created_at) VALUES (?, ?)", (scope, now))

    def bump(self, db: sqlite3.Connection, scopes: set[str]) -> None:
        db.executemany("UPDATE scopes SET generation = generation + 1 WHERE scope=?", [(s,) for s in scopes])

    # ---------------------------------------------------------------- items (the rest: store_rows.ItemRows)
    def current_by_key(
        self, column: str, key: tuple[str, ...], newest: bool = False
    ) -> tuple[MemoryItem, ItemMeta, str] | None:
        """`find_by_key` outside a transaction: a read on this store's own connection, under its lock
        (what a writer looks up before it takes the write lock)."""
        with self._lock:
            return self.find_by_key(self._db, column, key, newest=newest)

    # ---------------------------------------------------------------- graph layers (for show / export)
    def topics(self, scope: str) -> list[tuple[str, str]]:
        return [
            (r[0], r[1])
            for r in self._q("SELECT path, parent FROM topics WHERE scope=? ORDER BY path", (scope,))
        ]

    def entities(self, scope: str) -> dict[str, str]:
        return dict(self._q("SELECT key, name FROM entities WHERE scope=? ORDER BY key", (scope,)))

    # ---------------------------------------------------------------- conversations
    def conversation_committed(self, conversation_id: str) -> bool:
        return bool(self._q("SELECT 1 FROM conversations WHERE conversation_id=?", (conversation_id,)))

    def record_conversation(
        self,
        db: sqlite3.Connection,
        conversation_id: str,
        user_scope: str,
        project_scope: str,
        now: str,
        n_items: int,
        n_merged: int,
        n_rejected: int,
    ) -> None:
        db.execute(
            "INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?)",
            (conversation_id, user_scope, project_scope, now, n_items, n_merged, n_rejected),
        )

    def conversations(self) -> list[tuple]:
        return self._q(
            "SELECT conversation_id, user_scope, project_scope, committed_at, n_items FROM conversations"
        )

    # ---------------------------------------------------------------- vector cache
    def cached_vectors(self, embedder_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """text hash -> vector for the texts already embedded by this embedder."""
        hashes = list(dict.fromkeys(text_hash(t) for t in texts))
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(hashes), 500):
            chunk = hashes[start : start + 500]
            for h, dim, blob in self._q(
                f"SELECT text_hash, dim, vec FROM vectors WHERE embedder_id=? AND text_hash IN "
                f"({','.join('?' * len(chunk))})",
                [embedder_id, *chunk],
            ):
                if not isinstance(blob, bytes) or not isinstance(dim, int) or len(blob) != 4 * dim:
                    raise bad_row(
                        self.path,
                        "vectors",
                        f"(embedder_id {embedder_id!r}, text_hash {h!r})",
                        "vec",
                        f"{type(blob).__name__} of {len(blob) if isinstance(blob, bytes) else '?'} "
                        f"bytes for dim {dim!r}",
                    )
                out[h] = np.frombuffer(blob, dtype=np.float32, count=dim)
        return out

    def put_vectors(
        self, db: sqlite3.Connection, embedder_id: str, texts: Sequence[str], vecs: np.ndarray
    ) -> None:
        vecs = np.asarray(vecs, dtype=np.float32)
        db.executemany(
            "INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)",
            [(embedder_id, text_hash(t), vecs.shape[1], vecs[i].tobytes()) for i, t in enumerate(texts)],
        )

    def seed_vectors(self, embedder_id: str, texts: Sequence[str], vecs: np.ndarray) -> None:
        """Pre-fill the cache (benchmarks with precomputed vectors; imports from another run)."""
        with self.transaction() as db:
            self.put_vectors(db, embedder_id, texts, vecs)
