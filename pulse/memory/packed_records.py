"""An index's records kept as plain tuples, which Python's cyclic garbage collector skips.

Every full (generation-2) collection traverses every object the collector tracks, and whichever
allocation triggers one pays for it: with each fact of a 100k-fact index held as a `MemoryItem`, its
`Provenance` and an `ItemMeta` (three tracked objects per fact), a full collection took ~0.35 s
(measured at 90k facts) and landed inside an ordinary commit. A tuple whose elements are all atomic
(str, int, None, tuples of those) is untracked by the collector the first time a collection sees
it, so a `PackedRecords` stores each record as one such tuple and makes the dataclass on access —
a retrieval reads only the few records it returns. The tuples sit in a numpy object array, not a
list: the collector still visits every element of a tracked list, one cache miss each (~10 ms per
collection for a list of 90k rows, measured), and a numpy array is not tracked at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from typing import Generic, TypeVar, overload

import numpy as np

from pulse.core.records import MemoryItem, Provenance
from pulse.memory.interface import ItemMeta

_ITEM_FIELDS = tuple(f.name for f in fields(MemoryItem))
_PROVENANCE_AT = _ITEM_FIELDS.index("provenance")
_PROVENANCE_FIELDS = tuple(f.name for f in fields(Provenance))
_META_FIELDS = tuple(f.name for f in fields(ItemMeta))


def pack_item(item: MemoryItem) -> tuple:
    """A memory item as a plain tuple of its fields (the provenance as a nested tuple)."""
    p = item.provenance
    values = [getattr(item, name) for name in _ITEM_FIELDS]
    values[_PROVENANCE_AT] = tuple(getattr(p, name) for name in _PROVENANCE_FIELDS)
    return tuple(values)


def _made(cls: type, names: tuple[str, ...], values: Iterable) -> object:
    # the values were validated when the record was packed: no second __post_init__ per access
    obj = object.__new__(cls)
    obj.__dict__.update(zip(names, values))
    return obj


def unpack_item(row: tuple) -> MemoryItem:
    """The memory item a `pack_item` tuple stands for."""
    values = list(row)
    values[_PROVENANCE_AT] = _made(Provenance, _PROVENANCE_FIELDS, row[_PROVENANCE_AT])
    return _made(MemoryItem, _ITEM_FIELDS, values)  # type: ignore[return-value]


def pack_meta(meta: ItemMeta) -> tuple:
    """An item's graph metadata as a plain tuple of its fields."""
    return tuple(getattr(meta, name) for name in _META_FIELDS)


def unpack_meta(row: tuple) -> ItemMeta:
    """The `ItemMeta` a `pack_meta` tuple stands for."""
    return _made(ItemMeta, _META_FIELDS, row)  # type: ignore[return-value]


T = TypeVar("T")


class PackedRecords(Generic[T]):
    """A list of records stored packed; indexing and iteration give the records themselves. The rows
    live in a numpy object array: the collector never traverses it (a list of 100k rows cost every
    collection that saw it ~10 ms, one cache miss per row)."""

    def __init__(self, pack, unpack, rows: Sequence[tuple] | np.ndarray | None = None):
        self._pack, self._unpack = pack, unpack
        rows = () if rows is None else rows
        self._n = len(rows)
        self._buf = np.empty(max(16, self._n), object)
        if self._n:
            packed = rows if isinstance(rows, np.ndarray) else np.fromiter(rows, object, self._n)
            self._buf[: self._n] = packed

    @property
    def rows(self) -> np.ndarray:
        """The packed rows (a view)."""
        return self._buf[: self._n]

    def __len__(self) -> int:
        return self._n

    def _at(self, i: int) -> int:
        j = i + self._n if i < 0 else i
        if not 0 <= j < self._n:
            raise IndexError(f"record {i} of {self._n}")
        return j

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._unpack(r) for r in self.rows[i]]
        return self._unpack(self._buf[self._at(i)])

    def __setitem__(self, i: int, record: T) -> None:
        self._buf[self._at(i)] = self._pack(record)

    def __iter__(self) -> Iterator[T]:
        return map(self._unpack, self.rows)

    def append(self, record: T) -> None:
        """Pack one record and add it at the end, doubling the buffer when it is full."""
        if self._n == len(self._buf):
            grown = np.empty(max(16, 2 * len(self._buf)), object)
            grown[: self._n] = self._buf
            self._buf = grown
        self._buf[self._n] = self._pack(record)
        self._n += 1

    def head(self, n: int) -> PackedRecords[T]:
        """The first n records (shares the immutable rows: one copy of references, no record is
        re-made; a compaction's snapshot takes one inside a commit)."""
        out: PackedRecords[T] = PackedRecords(self._pack, self._unpack)
        n = max(0, min(n, self._n))
        out._buf, out._n = self._buf[:n].copy(), n
        return out


def packed_items(rows: Sequence[tuple] | None = None) -> PackedRecords[MemoryItem]:
    """A `PackedRecords` of memory items, optionally holding already packed `rows`."""
    return PackedRecords(pack_item, unpack_item, rows)


def packed_metas(rows: Sequence[tuple] | None = None) -> PackedRecords[ItemMeta]:
    """A `PackedRecords` of item metadata, optionally holding already packed `rows`."""
    return PackedRecords(pack_meta, unpack_meta, rows)
