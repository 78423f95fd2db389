"""The k best scores' positions, best first, ties broken by position (the earlier one first).

`np.argpartition` and an unstable `np.argsort` order equal scores however the installed numpy's
selection algorithm happens to: which of two equally scored memories is delivered, and so a table's
figures, would change with the numpy version. This order depends on the scores alone."""

from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` highest `scores`, highest first; equal scores in position order."""
    n = len(scores)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.intp)
    if k >= n:
        return np.argsort(-scores, kind="stable")
    kth = np.partition(-scores, k - 1)[k - 1]  # the k-th best score, negated
    cand = np.flatnonzero(-scores <= kth)  # every position at least that good, in position order
    return cand[np.argsort(-scores[cand], kind="stable")][:k]
