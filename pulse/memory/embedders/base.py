"""The one interface every embedder implements, and the per-scope score index it builds.

Dense embedders (MiniLM, OpenAI-compatible endpoints, the test-only hashing embedder) map texts to
L2-normalised float32 vectors; the store caches those vectors keyed by (embedder_id, text hash) so a
text is embedded once per embedder. The lexical BM25 "embedder" has no vectors: its index is built
from the texts themselves. Retrievers only ever see `encode_query` + `ScoreIndex.scores`, so the
same graph or flat retriever runs over any of them.
"""

from __future__ import annotations

import math
import mmap
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

# numpy asks the kernel for 2 MB transparent huge pages for arrays of 4 MB and more; the first write
# to each such page stalled 17-28 ms here (the kernel compacts memory to find one), inside whichever
# commit or compaction slice touched it first. Reserved index buffers use 4 KB pages instead (a 64-row
# slice of 384 floats then faults in ~0.1 ms); `python bench/bench_memory_scale.py` shows the slices.
_HUGE_PAGE_MIN_BYTES = 4 << 20


def zeroed(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """`np.zeros(shape, dtype)`, in 4 KB pages when it is large enough for numpy to ask for huge ones."""
    dt = np.dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize  # math.prod: np.prod costs microseconds per call
    if nbytes < _HUGE_PAGE_MIN_BYTES or dt.hasobject or not hasattr(mmap, "MADV_NOHUGEPAGE"):
        return np.zeros(shape, dt)
    buf = mmap.mmap(-1, nbytes)  # anonymous memory reads as zeros until written
    buf.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(buf, dt).reshape(shape)


class GrowingArray:
    """A numpy array that grows at the end in amortised O(1) (capacity doubling); `view()` is the
    filled part. Indexes append a commit's few rows instead of copying the whole scope."""

    def __init__(self, dtype: Any, width: int = 0, data: np.ndarray | None = None, capacity: int = 0):
        shape = (0, width) if width else (0,)
        data = np.zeros(shape, dtype) if data is None else np.asarray(data, dtype)
        self._n = len(data)
        # room reserved up front: growing a large index copies it, which a commit should not pay for
        self._buf = zeroed((max(capacity, self._n),) + data.shape[1:], dtype)
        self._buf[: self._n] = data

    def append(self, rows: Any) -> None:
        """Add rows at the end, doubling the reserved buffer when it is full."""
        if self._buf.dtype.hasobject and not isinstance(rows, np.ndarray):
            # one object per row, whatever it is (np.asarray would turn equal-length tuples into a 2-D array)
            rows = np.fromiter(rows, object, len(rows))
        rows = np.asarray(rows, self._buf.dtype)
        need = self._n + len(rows)
        if need > len(self._buf):
            grown = zeroed((max(need, 2 * len(self._buf), 16),) + self._buf.shape[1:], self._buf.dtype)
            grown[: self._n] = self._buf[: self._n]
            self._buf = grown
        self._buf[self._n : need] = rows
        self._n = need

    def view(self) -> np.ndarray:
        """The rows added so far (a view of the buffer, not a copy)."""
        return self._buf[: self._n]

    def __len__(self) -> int:
        return self._n


class ScoreIndex(ABC):
    """Relevance of every indexed text to one encoded query, higher is better (about [-1, 1])."""

    @abstractmethod
    def scores(self, query: Any) -> np.ndarray:
        """One score per indexed text for the encoded query, in index order."""

    @abstractmethod
    def add(self, texts: Sequence[str], vectors: np.ndarray | None) -> None:
        """Index more texts at the end (their vectors for dense indexes): the cost of the new rows only."""

    @abstractmethod
    def __len__(self) -> int: ...


class DenseIndex(ScoreIndex):
    """Cosine similarity as one mat-vec product over the scope's (n, dim) matrix."""

    def __init__(self, matrix: np.ndarray, capacity: int = 0):
        matrix = np.asarray(matrix, dtype=np.float32)
        self.rows = GrowingArray(np.float32, matrix.shape[1] if matrix.ndim == 2 else 0, matrix, capacity)

    @property
    def matrix(self) -> np.ndarray:
        """The (n, dim) matrix of the indexed vectors."""
        return self.rows.view()

    def add(self, texts: Sequence[str], vectors: np.ndarray | None) -> None:
        """Append the new texts' vectors; raises ValueError when `vectors` is None."""
        if vectors is None:
            raise ValueError("a dense index needs the new texts' vectors")
        self.rows.append(vectors)

    def scores(self, query: Any) -> np.ndarray:
        """Dot product of every row with the query vector (cosine, rows being L2-normalised)."""
        return self.matrix @ query

    def __len__(self) -> int:
        return len(self.rows)


class Embedder(ABC):
    """Name + encoder. `embedder_id` is the cache key: change it whenever vectors would change."""

    embedder_id: str = ""
    dense: bool = True
    dim: int = 0

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised. Lexical embedders raise."""

    def encode_query(self, text: str) -> Any:
        """The query form `ScoreIndex.scores` takes (a vector for dense embedders)."""
        return self.embed([text])[0]

    def build_index(self, texts: Sequence[str], vectors: np.ndarray | None, capacity: int = 0) -> ScoreIndex:
        """`capacity`: rows to reserve for later `add`s (dense indexes)."""
        if vectors is None:
            vectors = self.embed(texts) if texts else np.zeros((0, self.dim), np.float32)
        return DenseIndex(vectors, capacity)

    def similarity(self, a: Any, b: Any) -> float:
        """Used to merge near-duplicate facts; only meaningful for dense embedders."""
        return float(np.dot(a, b))


def l2_normalise(m: np.ndarray) -> np.ndarray:
    """The rows of `m` scaled to unit L2 norm, as float32 (all-zero rows are left zero)."""
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms
