"""Token counting for the Store / Retrieve token metrics.

The paper counts tokens with the task/memory models' tokenizers. Offline we have no such
tokenizer, so `count_tokens` uses a fixed, documented approximation: one token per word piece or
punctuation mark (regex `\\w+|[^\\w\\s]`), which tracks BPE counts of English prose within ~20 %.
Every method is counted the same way, so ratios between methods are meaningful; absolute values
are not comparable with the paper's.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """The approximate token count of a text: its word pieces and punctuation marks."""
    return len(_TOKEN.findall(text or ""))
