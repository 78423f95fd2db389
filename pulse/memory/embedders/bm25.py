"""Lexical BM25 fallback (`bm25s`): no model, no vectors.

It fits the embedder interface through `build_index`: each scope's texts become one bm25s index and
a query is its token list. Scores are divided by the query's best score so they live in [0, 1] like
cosines and the retrievers' bonuses keep their meaning. Near-duplicate merging (a dense-only
feature) falls back to exact-key merging with this embedder.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from pulse.memory.embedders.base import Embedder, ScoreIndex

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# A short list is enough: BM25's IDF already discounts common words.
_STOP = frozenset("a an and are as at be by for from has have i in is it its me my of on or our that the this "
                  "to was we were will with you your".split())


def tokenize(text: str) -> list[str]:
    """Words of 2+ characters, stop words removed. A snake_case identifier (a tool argument such as
    `seed_policy`) also yields its parts, so it matches prose that spells it "seed policy"."""
    out = []
    for t in _TOKEN.findall(text.lower()):
        if t not in _STOP:
            out.append(t)
        if "_" in t:
            out.extend(p for p in t.split("_") if len(p) >= 2 and p not in _STOP)
    return out


class BM25Index(ScoreIndex):
    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75):
        import bm25s

        self._n = len(texts)
        self._bm25: Any = None
        if self._n:
            corpus = [tokenize(t) or ["_empty_"] for t in texts]
            self._bm25 = bm25s.BM25(k1=k1, b=b)
            self._bm25.index(bm25s.tokenization.Tokenized(*_to_ids(corpus)), show_progress=False)

    def scores(self, query: Any) -> np.ndarray:
        if not self._n:
            return np.zeros(0, np.float32)
        vocab = self._bm25.vocab_dict
        ids = [vocab[t] for t in query if t in vocab]
        if not ids:
            return np.zeros(self._n, np.float32)
        s = np.asarray(self._bm25.get_scores(ids), dtype=np.float32)
        top = float(s.max())
        return s / top if top > 0 else s

    def __len__(self) -> int:
        return self._n


def _to_ids(corpus: list[list[str]]) -> tuple[list[list[int]], dict[str, int]]:
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in corpus]
    return ids, vocab


class BM25Embedder(Embedder):
    dense = False
    dim = 0

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.embedder_id = f"bm25:k1={k1},b={b}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise TypeError("bm25 is lexical: it has no vectors (use build_index / encode_query)")

    def encode_query(self, text: str) -> Any:
        return tokenize(text)

    def build_index(self, texts: Sequence[str], vectors: np.ndarray | None) -> ScoreIndex:
        return BM25Index(texts, self.k1, self.b)
