"""An index's records are stored packed: exact, and invisible to the cyclic garbage collector."""

import gc
from dataclasses import replace

from pulse.core.records import MemoryItem, Provenance
from pulse.memory import make_embedder, open_memory
from pulse.memory.interface import ItemMeta
from pulse.memory.packed_records import pack_item, packed_items, packed_metas, unpack_item


def _item(i: int, **kw) -> MemoryItem:
    return MemoryItem(
        f"m{i}",
        "preference",
        "user:u",
        f"I prefer value {i} for the size",
        slot="size",
        value=f" V{i} ",
        topic="shopping/sizes",
        entities=("acme", f"shop {i}"),
        provenance=Provenance("user_statement", f"e{i}", f"value {i}"),
        valid_from="2025-01-01T00:00:00Z",
        **kw,
    )


def test_round_trip_is_exact():
    items = [_item(1), _item(2, valid_to="2025-02-01T00:00:00Z", supersedes="m0", conditions="on weekdays")]
    col = packed_items()
    for it in items:
        col.append(it)
    assert list(col) == items and col[1] == items[1] and hash(col[0]) == hash(items[0])
    assert col[0].provenance.untrusted is False and col[1].is_current is False
    col[0] = _item(1, valid_to="2026-01-01T00:00:00Z")
    assert col[0].valid_to == "2026-01-01T00:00:00Z" and len(col) == 2
    head = col.head(1)
    col.append(_item(3))
    assert len(head) == 1 and len(col) == 3  # a head is a copy: later appends do not reach it
    empty = col.head(0)
    empty.append(_item(4))  # a head grows on its own
    assert len(empty) == 1 and empty[0] == _item(4) and len(col) == 3
    metas = packed_metas()
    metas.append(ItemMeta(("travel/hotels",), "task-1"))
    assert metas[0] == ItemMeta(("travel/hotels",), "task-1")


def test_rows_are_untracked_after_collections():
    row = pack_item(_item(7))
    gc.collect()
    gc.collect()
    assert not gc.is_tracked(row) and unpack_item(row) == _item(7)


def test_an_index_keeps_no_tracked_object_per_fact(tmp_path):
    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    # ten shops: per-entity containers stay small, per-fact ones would hold 300 entries
    mem.add_items([replace(_item(i), entities=("acme", f"shop {i % 10}")) for i in range(300)])
    ix = mem.index("user:u")
    gc.collect()
    gc.collect()
    assert len(ix.items) == 300
    tracked = [r for r in [*ix.items.rows, *ix.metas.rows] if gc.is_tracked(r)]
    assert not tracked
    assert not any(isinstance(o, MemoryItem) for o in ix.items.rows)
    # nothing the collector walks holds one entry per fact: each would cost every full collection
    # one visit per fact (~10 ms at 100k facts)
    assert _tracked_containers_with(ix, 300) == []


def _tracked_containers_with(root, n: int) -> list[str]:
    """Attributes (paths) of `root` reaching a collector-tracked container of >= n references."""
    found, seen = [], set()
    stack = [(root, "ix")]
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        refs = gc.get_referents(obj)
        if obj is not root and gc.is_tracked(obj) and len(refs) >= n:
            found.append(path)
        children = vars(obj).items() if hasattr(obj, "__dict__") else enumerate(refs)
        for k, r in children:
            if isinstance(r, (list, tuple, dict, set)) or type(r).__module__.startswith("pulse."):
                stack.append((r, f"{path}.{k}"))
    return found


def test_similarities_over_the_whole_scope_equal_the_gathered_product(tmp_path):
    import numpy as np

    mem = open_memory("structured", tmp_path / "m", make_embedder("hash"))
    mem.add_items([_item(i) for i in range(300)])
    ix = mem.index("user:u")
    q = ix.vectors[7]
    whole = ix.probe(q)  # below EXACT_SCAN_MAX: every position
    assert np.array_equal(ix.dot(whole, q), ix.vectors[whole] @ q)
    some = np.array([3, 50, 51, 299])
    assert np.allclose(ix.dot(some, q), ix.vectors[some] @ q) and len(ix.dot(some[:0], q)) == 0
