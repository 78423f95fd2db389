"""The `items` table of the memory store: how a record is one row (`row_to_item`, `insert_item`) and
the reads and the one update of those rows (`ItemRows`, a part of `MemoryStore`, pulse/memory/store.py).

A row whose fields do not parse is a `StoreError` naming the table, the row's id and the field.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from pulse.core.records import MemoryItem, Provenance, RecordError
from pulse.memory import graph
from pulse.memory.interface import ItemMeta, StoreError
from pulse.memory.timeutil import check_time

_ITEM_COLS = (
    "item_id, scope, kind, text, slot, value, topic, entities, conditions, source_kind, event_id, quote, "
    "valid_from, valid_to, supersedes, task_id, links, conversation_id"
)


def text_hash(text: str) -> str:
    """A 32-hex-digit BLAKE2b hash of a text."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def key_hash(key: tuple[str, ...]) -> str:
    """A 24-hex-digit BLAKE2b hash of a key tuple (parts joined by a unit separator)."""
    return hashlib.blake2b("\x1f".join(key).encode(), digest_size=12).hexdigest()


def bad_row(path: Path | str, table: str, key: str, field_name: str, why: str) -> StoreError:
    return StoreError(
        f"memory store {path}: table {table}, row {key}: field {field_name} does not parse ({why})"
    )


def _str_list(raw: object, path: Path | str, item_id: object, field_name: str) -> tuple[str, ...]:
    try:
        val = json.loads(raw) if isinstance(raw, (str, bytes)) else None
    except (ValueError, TypeError, RecursionError) as e:
        raise bad_row(path, "items", f"item_id {item_id!r}", field_name, f"not JSON: {e}") from None
    if not isinstance(val, list) or not all(isinstance(x, str) for x in val):
        raise bad_row(
            path,
            "items",
            f"item_id {item_id!r}",
            field_name,
            f"expected a JSON list of strings, got {str(raw)[:60]!r}",
        )
    return tuple(val)


def row_to_item(r: sqlite3.Row | tuple, path: Path | str = "?") -> tuple[MemoryItem, ItemMeta, str]:
    """One `items` row as a record; a field that does not parse is a StoreError naming table, id, field."""
    (
        item_id,
        scope,
        kind,
        text,
        slot,
        value,
        topic,
        entities,
        conditions,
        source_kind,
        event_id,
        quote,
        valid_from,
        valid_to,
        supersedes,
        task_id,
        links,
        conversation_id,
    ) = r
    where = f"item_id {item_id!r}"
    for name, v in (
        ("item_id", item_id),
        ("scope", scope),
        ("kind", kind),
        ("text", text),
        ("slot", slot),
        ("value", value),
        ("topic", topic),
        ("conditions", conditions),
        ("source_kind", source_kind),
        ("event_id", event_id),
        ("quote", quote),
        ("valid_from", valid_from),
        ("valid_to", valid_to),
        ("supersedes", supersedes),
        ("task_id", task_id),
        ("conversation_id", conversation_id),
    ):
        if not isinstance(v, str):
            raise bad_row(path, "items", where, name, f"expected text, got {type(v).__name__} {v!r:.60}")
    for name, v in (("valid_from", valid_from), ("valid_to", valid_to)):
        try:
            check_time(v, name)
        except ValueError as e:
            raise bad_row(path, "items", where, name, str(e)) from None
    ents = _str_list(entities, path, item_id, "entities")
    link_list = _str_list(links, path, item_id, "links")
    try:
        item = MemoryItem(
            item_id=item_id,
            kind=kind,
            scope=scope,
            text=text,
            slot=slot,
            value=value,
            topic=topic,
            entities=ents,
            conditions=conditions,
            provenance=Provenance(source_kind, event_id, quote),
            valid_from=valid_from,
            valid_to=valid_to,
            supersedes=supersedes,
        )
    except RecordError as e:
        raise StoreError(f"memory store {path}: table items, row {where}: {e}") from None
    return item, ItemMeta(links=link_list, task_id=task_id), conversation_id


class ItemRows:
    """The `items` table's reads and writes, one part of `MemoryStore` (which provides its locked query
    `_q` and the file `path`; only store.py touches the connection and its lock). Reads return
    (record, meta, conversation_id) triples; writes take the open transaction's connection `db`."""

    path: Path
    _q: Callable[..., list[tuple]]  # (sql, params) -> rows, under the lock; a StoreError names the file

    def get(self, item_id: str) -> tuple[MemoryItem, ItemMeta, str] | None:
        rows = self._q(f"SELECT {_ITEM_COLS} FROM items WHERE item_id=?", (item_id,))
        return row_to_item(rows[0], self.path) if rows else None

    def get_many(self, ids: Sequence[str]) -> dict[str, tuple[MemoryItem, ItemMeta, str]]:
        out: dict[str, tuple[MemoryItem, ItemMeta, str]] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for r in self._q(
                f"SELECT {_ITEM_COLS} FROM items WHERE item_id IN ({','.join('?' * len(chunk))})", chunk
            ):
                out[r[0]] = row_to_item(r, self.path)
        return out

    def scope_items(self, scope: str) -> list[tuple[MemoryItem, ItemMeta, str]]:
        """All versions in insertion order (rowid), so supersession chains read oldest first."""
        return [
            row_to_item(r, self.path)
            for r in self._q(f"SELECT {_ITEM_COLS} FROM items WHERE scope=? ORDER BY rowid", (scope,))
        ]

    def scope_rows(self, scope: str, after_rowid: int = 0) -> list[tuple[int, MemoryItem, ItemMeta]]:
        """(rowid, item, meta) of the scope's rows added after `after_rowid`, in insertion order.

        Rows are never deleted and writers are serialised (`BEGIN IMMEDIATE`), so rowids only grow:
        an index that remembers the last rowid it holds catches up with exactly the rows it lacks (the
        store is never VACUUMed, which could renumber them)."""
        out = []
        for r in self._q(
            f"SELECT rowid, {_ITEM_COLS} FROM items WHERE scope=? AND rowid>? ORDER BY rowid",
            (scope, after_rowid),
        ):
            item, meta, _ = row_to_item(r[1:], self.path)
            out.append((r[0], item, meta))
        return out

    def insert_item(
        self, db: sqlite3.Connection, item: MemoryItem, meta: ItemMeta, conversation_id: str = ""
    ) -> None:
        rev = graph.revision_key(item, meta.task_id)
        db.execute(
            f"INSERT INTO items ({_ITEM_COLS}, eq_key, rev_key) VALUES ({','.join('?' * 20)})",
            (
                item.item_id,
                item.scope,
                item.kind,
                item.text,
                item.slot,
                item.value,
                item.topic,
                json.dumps(list(item.entities)),
                item.conditions,
                item.provenance.source_kind,
                item.provenance.event_id,
                item.provenance.quote,
                item.valid_from,
                item.valid_to,
                item.supersedes,
                meta.task_id,
                json.dumps(list(meta.links)),
                conversation_id,
                key_hash(graph.equivalence_key(item, meta.task_id)),
                key_hash(rev) if rev else "",
            ),
        )
        for topic, role in graph.item_topics(item, meta):
            for node in graph.topic_chain(topic):
                db.execute(
                    "INSERT OR IGNORE INTO topics VALUES (?, ?, ?)",
                    (item.scope, node, graph.topic_parent(node)),
                )
            db.execute("INSERT OR IGNORE INTO item_topics VALUES (?, ?, ?)", (item.item_id, topic, role))
        for key, name in graph.item_entities(item).items():
            db.execute("INSERT OR IGNORE INTO entities VALUES (?, ?, ?)", (item.scope, key, name))
            db.execute("INSERT OR IGNORE INTO item_entities VALUES (?, ?)", (item.item_id, key))

    def find_by_key(
        self, db: sqlite3.Connection, column: str, key: tuple[str, ...], newest: bool = False
    ) -> tuple[MemoryItem, ItemMeta, str] | None:
        """The oldest (or newest) current record with this equivalence (`eq_key`) or revision
        (`rev_key`) key, else None. One row via the index, however many versions share the key."""
        assert column in ("eq_key", "rev_key")
        sql = (
            f"SELECT {_ITEM_COLS} FROM items WHERE {column}=? AND valid_to='' "
            f"ORDER BY rowid {'DESC' if newest else 'ASC'} LIMIT 1"
        )
        row = db.execute(sql, (key_hash(key),)).fetchone()
        return row_to_item(row, self.path) if row else None

    def end_validity(self, db: sqlite3.Connection, item_id: str, valid_to: str) -> None:
        """The only update an item row ever gets: its validity ends when a revision supersedes it."""
        db.execute("UPDATE items SET valid_to=? WHERE item_id=? AND valid_to=''", (valid_to, item_id))
