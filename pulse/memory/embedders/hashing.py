"""A deterministic hashing embedder FOR TESTS AND BENCH PLUMBING ONLY (id "hash-test-<dim>").

Signed feature hashing of lower-cased words and character trigrams. It needs no model and no
torch, so unit tests and the SIGKILL subprocesses start fast. Its similarity is lexical overlap,
not meaning: never report retrieval quality measured with it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

from pulse.memory.embedders.base import Embedder, l2_normalise

_WORD = re.compile(r"\w+")


class HashEmbedder(Embedder):
    """Signed feature hashing of words (weighted double) and character trigrams into `dim` dimensions, for
    tests only."""

    dense = True

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.embedder_id = f"hash-test-{dim}"

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        grams = [w[i : i + 3] for w in words if len(w) > 3 for i in range(len(w) - 2)]
        return [f"w:{w}" for w in words] * 2 + [f"g:{g}" for g in grams]  # words weigh double

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 hashed feature counts, rows L2-normalised."""
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for f in self._features(text):
                h = zlib.crc32(f.encode())
                out[row, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        return l2_normalise(out)
