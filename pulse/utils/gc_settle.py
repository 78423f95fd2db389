"""Long-lived objects out of the garbage collector's way.

Importing torch, transformers and sentence-transformers and loading a model leaves ~500k objects
that Python's cyclic collector tracks (measured: 498k after MiniLM's first embedding, 8k before the
imports). Every full (generation-2) collection walks all of them — 0.23 s on a 2-core machine —
inside whichever call happens to trigger it: a commit, a retrieval, a gate the task agent waits at.
They live as long as the process (modules are never unloaded), so after such a load Pulse collects
once and moves everything alive into the permanent generation (`gc.freeze`); later full
collections walk only what was made since. It runs once per process, at the first load (the
imports are the bulk of it): what was frozen and later becomes cyclic garbage is never reclaimed,
so a worker that loads a policy per run must not freeze each one. Cost: one full collection.
`PULSE_GC_FREEZE=0` turns it off (e.g. to measure the difference).
"""

from __future__ import annotations

import gc
import os

_settled = False


def settle_after_load() -> bool:
    """The first time in a process: collect, then freeze every live object; returns whether it did
    (see the module docstring)."""
    global _settled
    if _settled or os.environ.get("PULSE_GC_FREEZE", "1") == "0":
        return False
    _settled = True
    gc.collect()
    gc.freeze()
    return True
