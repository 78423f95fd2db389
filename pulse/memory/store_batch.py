"""The checks of a bulk load (`StoreMemory.add_items`, pulse/memory/store_memory.py): the whole batch
is checked against itself and the store before anything is written, so a failure loads nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from pulse.core.records import MemoryItem, RecordError
from pulse.memory.interface import ItemMeta, MemoryStoreError, MissingRecordError
from pulse.memory.store import MemoryStore
from pulse.memory.timeutil import check_time, parse_time


def check_batch(items: Sequence[MemoryItem]) -> None:
    """The batch on its own: unique ids (MemoryStoreError), valid times (RecordError), and no
    supersession cycle inside it (MemoryStoreError)."""
    ids = [i.item_id for i in items]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise MemoryStoreError(f"add_items: item_id {dup!r} appears twice in the batch")
    for item in items:
        for field_name in ("valid_from", "valid_to"):
            try:
                check_time(getattr(item, field_name), f"memory item {item.item_id}: {field_name}")
            except ValueError as e:
                raise RecordError(str(e)) from None
        if item.valid_from and item.valid_to and parse_time(item.valid_to) < parse_time(item.valid_from):
            raise RecordError(
                f"memory item {item.item_id}: valid_to {item.valid_to!r} is before valid_from "
                f"{item.valid_from!r}"
            )
    batch = {i.item_id: i for i in items}
    acyclic: set[str] = set()
    for item in items:  # supersession inside the batch must not loop (a -> b -> a)
        path: list[str] = []
        cur: MemoryItem | None = item
        while cur is not None and cur.item_id not in acyclic:
            if cur.item_id in path:
                raise MemoryStoreError(
                    f"add_items: record {cur.item_id} is in a supersession cycle "
                    f"({' -> '.join(path[path.index(cur.item_id) :] + [cur.item_id])})"
                )
            path.append(cur.item_id)
            cur = batch.get(cur.supersedes) if cur.supersedes else None
        acyclic.update(path)


def new_records(
    store: MemoryStore, items: Sequence[MemoryItem], meta: Mapping[str, ItemMeta]
) -> list[MemoryItem]:
    """The records of `items` not in `store` yet. One already stored must be identical (or identical
    except that a later revision has since ended it), metadata included: else MemoryStoreError."""
    existing = store.get_many([i.item_id for i in items])
    fresh: list[MemoryItem] = []
    for item in items:
        if item.item_id in existing:
            old, old_meta, _ = existing[item.item_id]
            # identical, or identical except that a later revision has since ended it
            same = replace(old, valid_to="") == replace(item, valid_to="") and item.valid_to in (
                "",
                old.valid_to,
            )
            if not same or old_meta != meta.get(item.item_id, ItemMeta()):
                raise MemoryStoreError(
                    f"record {item.item_id} already exists in {store.path} with different "
                    f"content; a revision needs a new item_id with supersedes={item.item_id!r}"
                )
            continue
        fresh.append(item)
    return fresh


def check_targets(store: MemoryStore, fresh: Sequence[MemoryItem]) -> None:
    """Every record a new record supersedes exists (in the batch or the store: MissingRecordError)
    and is in its scope (MemoryStoreError)."""
    by_id = {i.item_id: i for i in fresh}
    targets = store.get_many([i.supersedes for i in fresh if i.supersedes and i.supersedes not in by_id])
    for item in fresh:
        if item.supersedes:
            target = by_id.get(item.supersedes) or (
                targets[item.supersedes][0] if item.supersedes in targets else None
            )
            if target is None:
                raise MissingRecordError(
                    f"record {item.item_id} supersedes {item.supersedes!r}, which does not "
                    f"exist in the batch or in {store.path}"
                )
            if target.scope != item.scope:
                raise MemoryStoreError(
                    f"record {item.item_id} ({item.scope}) cannot supersede {target.item_id} "
                    f"({target.scope}): revisions stay in their scope"
                )
