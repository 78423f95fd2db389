"""The malloc cap that keeps long CPU runs' memory bounded (pulse/utils/malloc_arenas.py)."""

from __future__ import annotations

from pulse.utils import malloc_arenas as ma


class _Libc:
    def __init__(self, accept: bool = True):
        self.calls: list[tuple[int, int]] = []
        self.accept = accept

    def mallopt(self, param, value):
        self.calls.append((param.value, value.value))
        return 1 if self.accept else 0


def test_caps_the_arenas_and_touches_no_threshold():
    # any trim or mmap threshold set by hand turns off glibc's dynamic mmap threshold (a third of the
    # tiny model's SFT speed, measured): the arena cap is the only call
    libc = _Libc()
    done = ma.cap_malloc_arenas(environ={}, libc=libc)
    assert libc.calls == [(ma.M_ARENA_MAX, 2)]
    assert done == {"MALLOC_ARENA_MAX": 2}


def test_the_users_own_setting_is_left_alone():
    libc = _Libc()
    assert ma.cap_malloc_arenas(environ={"MALLOC_ARENA_MAX": "8"}, libc=libc) == {}
    assert libc.calls == []


def test_a_refused_setting_is_not_reported_as_set():
    assert ma.cap_malloc_arenas(environ={}, libc=_Libc(accept=False)) == {}


def test_real_glibc_accepts_the_cap():
    libc = ma._glibc()
    if libc is None:  # not glibc: the cap is a no-op by design
        assert ma.cap_malloc_arenas(environ={}) == {}
    else:
        assert ma.cap_malloc_arenas(environ={}) == {"MALLOC_ARENA_MAX": ma.ARENA_MAX}
