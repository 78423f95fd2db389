"""Validate the annotated statement set and print its counts: python eval/reading/data/check.py [DIR]

Validation is `eval.reading.dataset.load_annotated` (the loader `pulse eval-reading` uses): an error
names the file, the statement and the key, and the exit status is 2.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from eval.reading.dataset import DATA_DIR, DatasetError, load_annotated  # noqa: E402
from pulse.reading.facts import KINDS  # noqa: E402


def main(root: str | Path = DATA_DIR) -> int:
    try:
        examples = load_annotated(root)
    except DatasetError as e:
        print(f"check: error: {e}", file=sys.stderr)
        return 2
    per_domain: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for e in examples:
        c = per_domain[e.source]
        c["statements"] += 1
        c["facts"] += len(e.gold)
        c["none"] += not e.gold
        c.update(f.kind for f in e.gold)
    cols = ("statements", "facts", *KINDS, "none")
    print(f"{'domain':20} " + " ".join(f"{c:>11}" for c in cols))
    total: collections.Counter = collections.Counter()
    for dom, c in sorted(per_domain.items()):
        total.update(c)
        print(f"{dom:20} " + " ".join(f"{c[k]:11}" for k in cols))
    print(f"{'total':20} " + " ".join(f"{total[k]:11}" for k in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DATA_DIR))
