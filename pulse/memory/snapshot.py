"""Memory snapshots: one user's (and optionally one project's) memory as a JSON file.

Used as the "valid memory snapshot" of generated training data and for inspection:

    snap = export_snapshot(memory, "u1", "p1", as_of="2025-06-01")   # -> Snapshot
    snap.write("snap.json")
    import_snapshot(memory, "snap.json")                              # validates, then one transaction
    load_snapshot("snap.json")                                        # validate without a store

Format (version 1):
    {"format": "pulse-memory-snapshot", "version": 1, "user_id": "u1", "project_id": "p1",
     "as_of": "", "items": [<MemoryItem.to_dict()>...],
     "meta": {"<item_id>": {"links": [...], "task_id": ""}}}
`items` holds every version known at `as_of`, oldest first, as it looked then. Every validation
error is a `SnapshotError` naming the file and the record (index and item_id). The whole file is
validated before anything is loaded: every field's type (no coercion), times (ISO-8601, valid_to
not before valid_from, a revision not older than what it revises), unique ids, supersession targets
present, in the same scope and free of cycles, and the meta entries; a failure loads nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pulse.core.records import MemoryItem, RecordError
from pulse.memory.interface import ItemMeta, MemoryStoreError, SnapshotError
from pulse.memory.timeutil import check_time, parse_time
from pulse.utils.json_input import read_json_file

if TYPE_CHECKING:
    from pulse.memory.store_memory import StoreMemory

FORMAT = "pulse-memory-snapshot"
VERSION = 1
_TOP_KEYS = frozenset({"format", "version", "user_id", "project_id", "as_of", "items", "meta"})


@dataclass
class Snapshot:
    """One user's (and optionally one project's) memory at `as_of`: the items and their non-default
    metadata."""

    user_id: str
    project_id: str = ""
    as_of: str = ""
    items: list[MemoryItem] = field(default_factory=list)
    meta: dict[str, ItemMeta] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The snapshot in the JSON file format (version 1), default metadata left out."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "user_id": self.user_id,
            "project_id": self.project_id,
            "as_of": self.as_of,
            "items": [i.to_dict() for i in self.items],
            "meta": {
                k: {"links": list(m.links), "task_id": m.task_id}
                for k, m in self.meta.items()
                if m != ItemMeta()
            },
        }

    def write(self, path: str | Path) -> Path:
        """Write the snapshot as JSON to `path` (through a temporary file, so never half-written) and return
        the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n")
        tmp.replace(path)  # never leave a half-written snapshot under the real name
        return path


def export_snapshot(memory: StoreMemory, user_id: str, project_id: str = "", as_of: str = "") -> Snapshot:
    """The snapshot of a user's (and optionally a project's) memory from a store, at `as_of` ("" = now)."""
    pairs = memory.snapshot_with_meta(user_id, project_id, as_of)
    return Snapshot(
        user_id, project_id, as_of, [i for i, _ in pairs], {i.item_id: m for i, m in pairs if m != ItemMeta()}
    )


def snapshot_from_dict(d: Any, where: str) -> Snapshot:
    """Validate a parsed snapshot; `where` (usually the file path) prefixes every error.

    Returns the `Snapshot`; raises `SnapshotError` at the first problem (the module docstring lists
    what is checked), in file order: the header, each record, the supersession links, the meta."""
    user_id, project_id, as_of = _header(d, where)
    raw_items = d.get("items")
    if not isinstance(raw_items, list):
        raise SnapshotError(f"{where}: 'items' must be a list")
    allowed = {f"user:{user_id}"} | ({f"project:{project_id}"} if project_id else set())
    items: list[MemoryItem] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_items):
        item = _record(raw, i, allowed, seen, where)
        seen[item.item_id] = i
        items.append(item)
    _check_supersession(items, seen, where)
    _check_chains(items, seen, where)
    return Snapshot(user_id, project_id, as_of, items, _meta(d.get("meta", {}), seen, where))


def _header(d: Any, where: str) -> tuple[str, str, str]:
    """The top level's format, keys and version checked: (user_id, project_id, as_of)."""
    if not isinstance(d, dict):
        raise SnapshotError(f"{where}: expected a JSON object at the top level, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise SnapshotError(f"{where}: 'format' must be {FORMAT!r}, got {d.get('format')!r}")
    unknown = sorted(set(d) - _TOP_KEYS)
    if unknown:
        raise SnapshotError(f"{where}: unknown top-level key(s) {unknown}; allowed: {sorted(_TOP_KEYS)}")
    if type(d.get("version")) is not int or d.get("version") != VERSION:
        raise SnapshotError(
            f"{where}: unsupported snapshot version {d.get('version')!r} (this code reads {VERSION})"
        )
    user_id, project_id = d.get("user_id"), d.get("project_id", "")
    if not isinstance(user_id, str) or not user_id:
        raise SnapshotError(f"{where}: 'user_id' must be a non-empty string")
    if not isinstance(project_id, str):
        raise SnapshotError(f"{where}: 'project_id' must be a string")
    as_of = d.get("as_of", "")
    if not isinstance(as_of, str):
        raise SnapshotError(
            f"{where}: 'as_of' must be an ISO-8601 string or \"\", got {type(as_of).__name__}"
        )
    try:
        check_time(as_of, "as_of")
    except ValueError as e:
        raise SnapshotError(f"{where}: {e}") from None
    return user_id, project_id, as_of


def _record(raw: Any, i: int, allowed: set[str], seen: dict[str, int], where: str) -> MemoryItem:
    """`items[i]` as a record: its fields, times and scope (one of `allowed`), its id not in `seen`."""
    rid = raw.get("item_id", "?") if isinstance(raw, dict) else "?"
    rec = f"{where}: items[{i}] (item_id {rid!r})"
    try:
        item = MemoryItem.from_dict(raw, where=rec)
        check_time(item.valid_from, f"{rec}: valid_from")
        check_time(item.valid_to, f"{rec}: valid_to")
    except (RecordError, ValueError) as e:
        raise SnapshotError(str(e) if str(e).startswith(where) else f"{rec}: {e}") from None
    if item.valid_to and item.valid_from and parse_time(item.valid_to) < parse_time(item.valid_from):
        raise SnapshotError(f"{rec}: valid_to {item.valid_to!r} is before valid_from {item.valid_from!r}")
    if item.supersedes == item.item_id:
        raise SnapshotError(f"{rec}: supersedes itself")
    if item.scope not in allowed:
        raise SnapshotError(
            f"{rec}: scope {item.scope!r} is outside this snapshot ({', '.join(sorted(allowed))})"
        )
    if item.item_id in seen:
        raise SnapshotError(f"{rec}: duplicate item_id (also items[{seen[item.item_id]}])")
    return item


def _check_supersession(items: list[MemoryItem], seen: dict[str, int], where: str) -> None:
    """Every record a record supersedes is in the snapshot, in its scope, and not valid from later."""
    for i, item in enumerate(items):
        if item.supersedes and item.supersedes not in seen:
            raise SnapshotError(
                f"{where}: items[{i}] (item_id {item.item_id!r}) supersedes {item.supersedes!r}, "
                f"which is not in the snapshot"
            )
        if item.supersedes:
            target = items[seen[item.supersedes]]
            if target.scope != item.scope:
                raise SnapshotError(
                    f"{where}: items[{i}] (item_id {item.item_id!r}, {item.scope}) supersedes "
                    f"{target.item_id!r} of another scope ({target.scope})"
                )
            if (
                item.valid_from
                and target.valid_from
                and parse_time(item.valid_from) < parse_time(target.valid_from)
            ):
                raise SnapshotError(
                    f"{where}: items[{i}] (item_id {item.item_id!r}) is valid from "
                    f"{item.valid_from!r}, before the record it supersedes ({target.item_id!r}, "
                    f"valid from {target.valid_from!r})"
                )


def _meta(raw_meta: Any, seen: dict[str, int], where: str) -> dict[str, ItemMeta]:
    """The `meta` object: item_id (one in `seen`) -> its links and task id."""
    if not isinstance(raw_meta, dict):
        raise SnapshotError(f"{where}: 'meta' must be an object keyed by item_id")
    meta: dict[str, ItemMeta] = {}
    for key, m in raw_meta.items():
        if key not in seen:
            raise SnapshotError(f"{where}: meta[{key!r}] names no item in the snapshot")
        if (
            not isinstance(m, dict)
            or set(m) - {"links", "task_id"}
            or not isinstance(m.get("links", []), list)
            or not isinstance(m.get("task_id", ""), str)
            or not all(isinstance(x, str) and x for x in m.get("links", []))
        ):
            raise SnapshotError(
                f"{where}: meta[{key!r}] must be {{'links': [non-empty str], 'task_id': str}}, "
                f"got {json.dumps(m)[:80]}"
            )
        meta[key] = ItemMeta(links=tuple(m.get("links", [])), task_id=m.get("task_id", ""))
    return meta


def _check_chains(items: list[MemoryItem], seen: dict[str, int], where: str) -> None:
    """Following `supersedes` from any record must end: a cycle (a -> b -> a) is refused."""
    done: set[str] = set()
    for start in items:
        path: list[str] = []
        on_path: set[str] = set()
        cur: str = start.item_id
        while cur and cur not in done:
            if cur in on_path:
                cycle = path[path.index(cur) :] + [cur]
                raise SnapshotError(
                    f"{where}: items[{seen[cur]}] (item_id {cur!r}) is in a supersession cycle "
                    f"({' -> '.join(cycle)})"
                )
            on_path.add(cur)
            path.append(cur)
            cur = items[seen[cur]].supersedes
        done.update(path)


def load_snapshot(path: str | Path) -> Snapshot:
    """Read and validate a snapshot file; a file that cannot be read, is not UTF-8, is not JSON or
    nests too deeply is a SnapshotError naming it (pulse/utils/json_input.py)."""
    path = Path(path)
    return snapshot_from_dict(read_json_file(path, SnapshotError, "snapshot"), str(path))


def import_snapshot(memory: StoreMemory, path: str | Path, snap: Snapshot | None = None) -> Snapshot:
    """Validate the whole file first, then load it in one transaction (all or nothing).

    `snap`: the file already validated by `load_snapshot(path)` (the CLI validates before it opens
    or creates the store, so a bad file leaves no trace at all).
    """
    snap = snap if snap is not None else load_snapshot(path)
    try:
        memory.add_items(snap.items, snap.meta)
    except (RecordError, MemoryStoreError) as e:
        raise SnapshotError(f"{path}: {e}") from None
    if snap.project_id and snap.project_id not in memory.projects():
        memory.create_project(snap.project_id)
    if snap.user_id not in memory.users():
        memory.create_user(snap.user_id)
    return snap
