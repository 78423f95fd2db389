"""Snapshots (export / import / validation errors) and the `pulse memory show|export|import` CLI."""

from __future__ import annotations

import json

import pytest
from memory_helpers import pref, user_msg

from pulse.cli.memory import main
from pulse.memory import ItemMeta, SnapshotError, export_snapshot, import_snapshot, load_snapshot


@pytest.fixture
def filled(mem):
    mem.add_items(
        [
            pref("a", "I prefer 32x32 icons", slot="size", value="32x32", topic="design/icons"),
            pref("b", "Include code examples", topic="coding"),
        ],
        {"b": ItemMeta(links=("writing",))},
    )
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


@pytest.mark.parametrize(
    "content,match",
    [
        ("{not json", r"bad\.json: not valid JSON \(line 1"),
        ({**BASE, "format": "other"}, "'format' must be"),
        (
            {**BASE, "items": [GOOD_ITEM, {**GOOD_ITEM, "item_id": "y", "kind": "wish"}]},
            r"items\[1\] \(item_id 'y'\).*kind 'wish'",
        ),
        ({**BASE, "items": [{**GOOD_ITEM, "colour": "red"}]}, r"items\[0\] \(item_id 'x'\).*unknown field"),
        (
            {**BASE, "items": [{**GOOD_ITEM, "scope": "user:u2"}]},
            r"items\[0\] \(item_id 'x'\).*outside this snapshot",
        ),
        ({**BASE, "items": [GOOD_ITEM, GOOD_ITEM]}, r"items\[1\].*duplicate item_id"),
        ({**BASE, "items": [{**GOOD_ITEM, "supersedes": "ghost"}]}, r"item_id 'x'\) supersedes 'ghost'"),
        ({**BASE, "items": [{**GOOD_ITEM, "valid_from": "yesterday"}]}, r"items\[0\].*valid_from.*ISO-8601"),
        ({**BASE, "items": [GOOD_ITEM], "meta": {"zz": {}}}, r"meta\['zz'\] names no item"),
    ],
)
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


def _it(i, **kw):
    return {**GOOD_ITEM, "item_id": i, **kw}


@pytest.mark.parametrize(
    "content,match",
    [
        ({**BASE, "items": [_it("x", text=5)]}, r"items\[0\] \(item_id 'x'\).*'text' must be a string"),
        ({**BASE, "items": [_it("x", slot=["a"])]}, r"items\[0\].*'slot' must be a string"),
        ({**BASE, "items": [_it("x", entities="tea")]}, r"items\[0\].*'entities' must be a list of strings"),
        ({**BASE, "items": [_it("x", entities=["a", 2])]}, r"items\[0\].*'entities'"),
        (
            {**BASE, "items": [_it("x", provenance={"source_kind": "history", "event_id": 7})]},
            r"provenance.*'event_id'",
        ),
        (
            {**BASE, "items": [_it("x", provenance={"source_kind": "history", "colour": "red"})]},
            r"provenance.*unknown field",
        ),
        ({**BASE, "items": [_it(3)]}, r"items\[0\].*'item_id' must be a string"),
        (
            {**BASE, "items": [_it("x", valid_from="2025-05-01", valid_to="2025-01-01")]},
            r"items\[0\] \(item_id 'x'\): valid_to '2025-01-01' is before valid_from '2025-05-01'",
        ),
        (
            {**BASE, "items": [_it("x"), _it("y"), _it("x", text="other")]},
            r"items\[2\].*duplicate item_id \(also items\[0\]\)",
        ),
        ({**BASE, "items": [_it("x", supersedes="x")]}, r"items\[0\].*supersedes itself"),
        (
            {**BASE, "items": [_it("x", supersedes="z"), _it("y", supersedes="x"), _it("z", supersedes="y")]},
            r"supersession cycle \((x -> z -> y -> x|y -> x -> z -> y|z -> y -> x -> z)\)",
        ),
        (
            {
                **BASE,
                "items": [
                    _it("x", valid_from="2025-05-01"),
                    _it("y", supersedes="x", valid_from="2025-01-01"),
                ],
            },
            r"items\[1\].*before the record it supersedes",
        ),
        ({**BASE, "version": True}, "unsupported snapshot version"),
        ({**BASE, "as_of": 20250101}, "'as_of' must be"),
        ({**BASE, "items": [], "extra": 1}, "unknown top-level key"),
        ({**BASE, "items": [GOOD_ITEM], "meta": {"x": {"links": ["a", 3]}}}, r"meta\['x'\] must be"),
    ],
)
def test_every_field_type_time_order_id_and_cycle_is_checked_before_loading(tmp_path, filled, content, match):
    before = filled.snapshot("u1", "p1")
    users, projects = filled.users(), filled.projects()
    with pytest.raises(SnapshotError, match=match):
        import_snapshot(filled, _write(tmp_path, content))
    assert filled.snapshot("u1", "p1") == before and filled.users() == users and filled.projects() == projects


def test_add_items_refuses_a_supersession_cycle_and_a_backwards_validity(mem):
    from pulse.core.records import RecordError
    from pulse.memory import MemoryStoreError

    with pytest.raises(MemoryStoreError, match="supersession cycle"):
        mem.add_items([pref("a", "x", supersedes="b"), pref("b", "y", supersedes="a")])
    with pytest.raises(RecordError, match="before valid_from"):
        mem.add_items([pref("a", "x", valid_from="2025-05-01", valid_to="2025-01-01")])
    assert mem.users() == []


def test_cli_import_of_a_bad_file_creates_no_store(tmp_path, capsys):
    bad = _write(tmp_path, {**BASE, "items": [_it("x", text=5)]})
    assert main(["import", "--root", str(tmp_path / "new"), "--file", str(bad)]) == 2
    assert "'text' must be a string" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
