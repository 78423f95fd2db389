"""Lexical BM25 (no model, no vectors): the scoring of `bm25s`, on postings that grow.

It fits the embedder interface through `build_index`: each scope's texts become one growable
postings index (scored exactly as bm25s's default "lucene" method; a test checks it against bm25s)
and a query is its token list. Scores are divided by the query's best score so they live in [0, 1] like
cosines and the retrievers' bonuses keep their meaning. Near-duplicate merging (a dense-only
feature) falls back to exact-key merging with this embedder.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from pulse.memory.embedders.base import Embedder, GrowingArray, ScoreIndex

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# A short list is enough: BM25's IDF already discounts common words.
_STOP = frozenset(
    "a an and are as at be by for from has have i in is it its me my of on or our that the this "
    "to was we were will with you your".split()
)


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
    """BM25 (Lucene idf, Robertson tf; the scoring bm25s calls "lucene") with postings that grow.

    Scores are computed at query time from per-term postings, the document lengths and the current
    corpus statistics, so `add` costs the new documents' tokens (not a rebuild) and the scores after
    any sequence of adds equal those of an index built over all texts at once.
    """

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self._doc_len = GrowingArray(np.float32)
        self._total_len = 0.0
        self._postings: dict[str, tuple[GrowingArray, GrowingArray]] = {}  # term -> (doc ids, tf)
        self.add(texts)

    def add(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> None:
        """Index more texts at the end (tokenised; an empty text counts as one placeholder token); `vectors`
        is ignored."""
        start = len(self._doc_len)
        lens = []
        new_rows: dict[str, tuple[list[int], list[int]]] = {}  # term -> (doc ids, tf): one append per term
        for j, text in enumerate(texts):
            toks = tokenize(text) or ["_empty_"]
            lens.append(len(toks))
            for term, tf in Counter(toks).items():
                docs, tfs = new_rows.setdefault(term, ([], []))
                docs.append(start + j)
                tfs.append(tf)
        for term, (docs, tfs) in new_rows.items():
            post = self._postings.get(term)
            if post is None:
                post = self._postings[term] = (GrowingArray(np.int64), GrowingArray(np.float32))
            post[0].append(docs)
            post[1].append(tfs)
        self._doc_len.append(lens)
        self._total_len += sum(lens)

    def scores(self, query: Any) -> np.ndarray:
        """BM25 score of every indexed text for a list of query tokens, divided by the best score (all zeros
        when nothing matches)."""
        n = len(self._doc_len)
        s = np.zeros(n, np.float32)
        if not n:
            return s
        dl = self._doc_len.view()
        norm = self.k1 * ((1 - self.b) + self.b * dl / np.float32(self._total_len / n))
        for term in query:  # repeated query terms count again, as in bm25s
            post = self._postings.get(term)
            if post is None:
                continue
            docs, tf = post[0].view(), post[1].view()
            idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            s[docs] += np.float32(idf) * tf / (norm[docs] + tf)
        top = float(s.max())
        return s / top if top > 0 else s

    def __len__(self) -> int:
        return len(self._doc_len)


class BM25Embedder(Embedder):
    """The lexical BM25 retriever as an embedder: no vectors, queries are token lists, indexes are `BM25Index`
    (id "bm25:k1=...,b=...")."""

    dense = False
    dim = 0

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.embedder_id = f"bm25:k1={k1},b={b}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Always raises TypeError: BM25 has no vectors."""
        raise TypeError("bm25 is lexical: it has no vectors (use build_index / encode_query)")

    def encode_query(self, text: str) -> Any:
        """The query's tokens."""
        return tokenize(text)

    def build_index(self, texts: Sequence[str], vectors: np.ndarray | None, capacity: int = 0) -> ScoreIndex:
        """A `BM25Index` over `texts` (`vectors` and `capacity` are ignored)."""
        return BM25Index(texts, self.k1, self.b)
