"""Scoring the reading layer (`pulse.reading`): annotated statements in, per-field precision and
recall out (`pulse eval-reading`). `dataset.py` loads the hand-written set (`data/`) and the
generated suites' seed statements; `score.py` holds the one definition of each reading metric."""
