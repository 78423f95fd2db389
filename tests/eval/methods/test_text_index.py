"""The text methods' similarity search keeps its lexical indexes between searches: the scores must be
those of an index built afresh over the same texts, whatever the order of searches."""

from __future__ import annotations

import numpy as np

from eval.methods.text_method import TextIndex
from pulse.memory.embedders.bm25 import BM25Embedder, BM25Index

NOTES = [
    "user: always book an aisle seat on long flights",
    "tool (book_flight): booked seat 14C [seat=aisle]",
    "user: refunds go back to my credit card, never a gift card",
    "assistant: call issue_refund(method=gift_card)",
    "user: the Orion standup is at 9:15 every day",
    "user: window seats for short hops are fine",
]


def _fresh(query: str, texts: list[str]) -> np.ndarray:
    return np.asarray(BM25Index(texts).scores(BM25Embedder().encode_query(query)))


def test_growing_and_changed_lists_score_as_a_fresh_index():
    index = TextIndex(BM25Embedder())
    searches = [
        ("aisle seat", NOTES[:2]),
        ("aisle seat", NOTES[:4]),  # grown at the end: the kept index takes the two new notes
        ("gift card refund", NOTES[:4]),  # same texts again
        ("gift card", ["user: gift card", NOTES[0]]),  # another list meanwhile (a pair)
        ("seat", NOTES),  # the first list grown again
        ("seat", [NOTES[1], *NOTES[2:]]),  # a note rewritten at the front: not a prefix, built anew
        ("standup", NOTES[:3] + ["user: the Orion standup moved to 10:00"]),
    ]
    for query, texts in searches:
        np.testing.assert_array_equal(index.scores(query, texts), _fresh(query, texts))
    assert len(index._lexical) <= 4  # a few kept, not one per search


def test_a_kept_index_is_not_changed_by_the_callers_list():
    index = TextIndex(BM25Embedder())
    texts = list(NOTES[:3])
    index.scores("seat", texts)
    texts[0] = "user: something else entirely"  # the caller edits its own list afterwards
    np.testing.assert_array_equal(index.scores("seat", texts), _fresh("seat", texts))
