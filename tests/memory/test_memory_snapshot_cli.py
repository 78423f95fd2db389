"""Snapshots (export / import / validation errors) and the `pulse memory show|export|import` CLI."""
from __future__ import annotations

import json

import pytest

from pulse.memory import ItemMeta, SnapshotError, export_snapshot, import_snapshot, load_snapshot
from pulse.memory.cli import main

from memory_helpers import pref, user_msg


@pytest.fixture
def filled(mem):
    mem.add_items([pref("a", "I prefer 32x32 icons", slot="size", value="32x32", topic="design/icons"),
                   pref("b", "Include code examples", topic="coding")], {"b": ItemMeta(links=("writing",))})
    mem.create_project("p1")
    with mem.conversation("u1", "p1") as conv:
        conv.observe(user_msg("e1", "My preferred size is 16x16.", time="2025-03-01T00:00:00Z"))
    return mem


def test_export_import_roundtrip(filled, mem_factory, tmp_path):
    path = export_snapshot(filled, "u1", "p1").write(tmp_path / "s.json")
    other = mem_factory(root=tmp_path / "other")
    snap = import_snapshot(other, path)
    assert other.snapshot("u1", "p1") == filled.snapshot("u1", "p1")
    assert snap.meta["b"].links == ("writing",)
    import_snapshot(other, path)  # idempotent
    assert len(other.snapshot("u1")) == 3


def test_export_as_of(filled, tmp_path):
    snap = export_snapshot(filled, "u1", as_of="2025-02-01")
    assert [(i.item_id, i.valid_to) for i in snap.items] == [("a", ""), ("b", "")]


def _write(tmp_path, obj, name="bad.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


BASE = {"format": "pulse-memory-snapshot", "version": 1, "user_id": "u1", "project_id": "", "as_of": ""}
GOOD_ITEM = {"item_id": "x", "kind": "preference", "scope": "user:u1", "text": "t"}


@pytest.mark.parametrize("content,match", [
    ("{not json", r"bad\.json: not valid JSON \(line 1"),
    ({**BASE, "format": "other"}, "'format' must be"),
    ({**BASE, "items": [GOOD_ITEM, {**GOOD_ITEM, "item_id": "y", "kind": "wish"}]}, r"items\[1\] \(item_id 'y'\).*kind 'wish'"),
    ({**BASE, "items": [{**GOOD_ITEM, "colour": "red"}]}, r"items\[0\] \(item_id 'x'\).*unknown field"),
    ({**BASE, "items": [{**GOOD_ITEM, "scope": "user:u2"}]}, r"items\[0\] \(item_id 'x'\).*outside this snapshot"),
    ({**BASE, "items": [GOOD_ITEM, GOOD_ITEM]}, r"items\[1\].*duplicate item_id"),
    ({**BASE, "items": [{**GOOD_ITEM, "supersedes": "ghost"}]}, r"item_id 'x'\) supersedes 'ghost'"),
    ({**BASE, "items": [{**GOOD_ITEM, "valid_from": "yesterday"}]}, r"items\[0\].*valid_from.*ISO-8601"),
    ({**BASE, "items": [GOOD_ITEM], "meta": {"zz": {}}}, r"meta\['zz'\] names no item"),
])
def test_malformed_snapshot_names_file_and_record(tmp_path, mem, content, match):
    p = _write(tmp_path, content)
    with pytest.raises(SnapshotError, match=match):
        import_snapshot(mem, p)
    assert mem.users() == []  # nothing half-imported


def test_missing_snapshot_file(tmp_path):
    with pytest.raises(SnapshotError, match="nope.json: cannot read"):
        load_snapshot(tmp_path / "nope.json")


def test_cli_show_export_import(filled, tmp_path, capsys):
    root = str(filled.store.root)
    assert main(["show", "--root", root, "--user", "u1", "--project", "p1"]) == 0
    out = capsys.readouterr().out
    assert "Topic design/icons" in out and "superseded" in out and "links writing" in out
    assert main(["show", "--root", root, "--user", "u1", "--as-of", "2025-02-01"]) == 0
    assert "superseded" not in capsys.readouterr().out
    out_file = tmp_path / "exp" / "u1.json"
    assert main(["export", "--root", root, "--user", "u1", "--project", "p1", "--out", str(out_file)]) == 0
    assert len(load_snapshot(out_file).items) == 3
    assert main(["import", "--root", str(tmp_path / "new"), "--file", str(out_file)]) == 0
    assert "imported 3 records" in capsys.readouterr().out


def test_cli_errors_are_one_line(filled, tmp_path, capsys):
    root = str(filled.store.root)
    assert main(["show", "--root", root, "--user", "ghost"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown user 'ghost'" in err
    assert main(["show", "--root", str(tmp_path / "empty"), "--user", "u1"]) == 2
    assert "no memory store" in capsys.readouterr().err
    bad = _write(tmp_path, "[1, 2]")
    assert main(["import", "--root", str(tmp_path / "n2"), "--file", str(bad)]) == 2
    assert "bad.json: expected a JSON object" in capsys.readouterr().err
