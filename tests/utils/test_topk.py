"""`top_k`: the k best positions, best first, equal scores in position order whatever numpy's
selection algorithm does with them."""

import numpy as np

from pulse.utils.topk import top_k


def test_ties_go_to_the_earlier_position_also_at_the_cut():
    scores = np.array([0.2, 0.9, 0.5, 0.9, 0.5, 0.5, 0.1], np.float32)
    assert top_k(scores, 3).tolist() == [1, 3, 2]
    assert top_k(scores, 4).tolist() == [1, 3, 2, 4]
    assert top_k(scores, 10).tolist() == [1, 3, 2, 4, 5, 0, 6]
    assert top_k(scores, 0).tolist() == []


def test_matches_a_full_stable_sort_on_random_scores_with_many_ties():
    rng = np.random.default_rng(0)
    for _ in range(200):
        scores = rng.integers(0, 5, size=int(rng.integers(1, 60))).astype(np.float32)
        scores[rng.random(len(scores)) < 0.1] = -np.inf
        k = int(rng.integers(1, len(scores) + 2))
        want = np.argsort(-scores, kind="stable")[:k]
        assert top_k(scores, k).tolist() == want.tolist()
