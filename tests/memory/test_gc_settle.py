"""A model load freezes the long-lived objects it leaves, so full collections skip them."""

import gc

from pulse.utils import gc_settle
from pulse.utils.gc_settle import settle_after_load


def test_settle_freezes_what_is_alive_once(monkeypatch):
    monkeypatch.delenv("PULSE_GC_FREEZE", raising=False)
    monkeypatch.setattr(gc_settle, "_settled", False)
    before = gc.get_freeze_count()
    keep = [[i] for i in range(2000)]  # long-lived, tracked
    try:
        assert settle_after_load()
        assert gc.get_freeze_count() >= before + len(keep)
        assert not settle_after_load()  # a second load in the same process freezes nothing more
    finally:
        gc.unfreeze()  # the test process goes on as it was


def test_switch_off(monkeypatch):
    monkeypatch.setattr(gc_settle, "_settled", False)
    monkeypatch.setenv("PULSE_GC_FREEZE", "0")
    before = gc.get_freeze_count()
    assert not settle_after_load() and gc.get_freeze_count() == before
