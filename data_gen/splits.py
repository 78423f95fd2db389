"""Split by user (and so by task group): validation and test users never appear in train.

A task group belongs to one user, so no group can land in two splits; prefixes are never split.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

SPLITS: tuple[str, ...] = ("train", "validation", "test")


def assign_splits(
    user_ids: Sequence[str], val_fraction: float, test_fraction: float, seed: int
) -> dict[str, str]:
    """user id -> split. Deterministic in (user_ids, fractions, seed); a positive fraction gets >= 1 user."""
    ids = sorted(user_ids)
    random.Random(f"split:{seed}").shuffle(ids)
    n = len(ids)

    def count(frac: float) -> int:
        return 0 if frac <= 0 or n < 3 else max(1, round(n * frac))

    n_test, n_val = count(test_fraction), count(val_fraction)
    out = {u: "test" for u in ids[:n_test]}
    out.update({u: "validation" for u in ids[n_test : n_test + n_val]})
    out.update({u: "train" for u in ids[n_test + n_val :]})
    return out
