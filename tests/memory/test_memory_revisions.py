"""Revisions supersede, never overwrite; "as of" before a revision sees the old version."""

from __future__ import annotations

import pytest
from memory_helpers import call, pref, user_msg

from pulse.core.records import Provenance
from pulse.memory import MemoryStoreError, MissingRecordError, RetrievalQuery, WriteCandidate

ICON = call("make_icon", size="16x16")


def _revise_by_conversation(mem):
    mem.add_items(
        [
            pref(
                "size-old",
                "I prefer 32x32 icons",
                slot="size",
                value="32x32",
                topic="design/icons",
                valid_from="2025-01-01T00:00:00Z",
            )
        ]
    )
    with mem.conversation("u1", conversation_id="c1") as conv:
        conv.observe(user_msg("e1", "From now on my preferred size is 16x16.", time="2025-03-01T00:00:00Z"))
    return conv


def test_revision_creates_new_record_and_ends_old(mem):
    conv = _revise_by_conversation(mem)
    [new] = [i for i in conv.committed if i.slot == "size"]
    assert new.value == "16x16" and new.supersedes == "size-old" and new.topic == "design/icons"
    old = mem.get("size-old")
    assert old.value == "32x32" and old.valid_to == "2025-03-01T00:00:00Z"  # kept, validity ended


def test_only_current_version_is_returned_as_valid(mem):
    _revise_by_conversation(mem)
    hits = mem.retrieve(RetrievalQuery("u1", candidate_call=ICON))
    sizes = [h.item for h in hits if h.item.slot == "size"]
    assert [i.value for i in sizes] == ["16x16"]
    assert all(not i.valid_to for i in sizes)


def test_as_of_before_revision_returns_old_version(mem):
    _revise_by_conversation(mem)
    hits = mem.retrieve(RetrievalQuery("u1", as_of="2025-02-01T00:00:00Z", candidate_call=ICON))
    sizes = [h.item for h in hits if h.item.slot == "size"]
    assert [i.item_id for i in sizes] == ["size-old"]
    assert sizes[0].valid_to == ""  # as it looked then: not yet superseded
    after = mem.retrieve(RetrievalQuery("u1", as_of="2025-04-01T00:00:00Z", candidate_call=ICON))
    assert [h.item.value for h in after if h.item.slot == "size"] == ["16x16"]


def test_snapshot_time_travel(mem):
    _revise_by_conversation(mem)
    before = mem.snapshot("u1", as_of="2025-02-01T00:00:00Z")
    assert [(i.item_id, i.valid_to) for i in before] == [("size-old", "")]
    now = mem.snapshot("u1")
    assert {i.item_id for i in now} >= {"size-old"} and len(now) == 2


def test_revise_api_and_missing_record(mem):
    mem.add_items([pref("a", "I like green tea", slot="drink", value="green tea")])
    mem.revise(
        "a", pref("b", "I like black tea", slot="drink", value="black tea", valid_from="2025-05-01T00:00:00Z")
    )
    assert mem.get("a").valid_to == "2025-05-01T00:00:00Z" and mem.get("b").supersedes == "a"
    with pytest.raises(MissingRecordError, match="'nope'"):
        mem.revise("nope", pref("c", "x"))
    with pytest.raises(MemoryStoreError, match="already superseded"):
        mem.revise("a", pref("d", "I like oolong", slot="drink", value="oolong"))


def test_candidate_revising_missing_record_is_an_error(mem):
    mem.create_user("u1")
    conv = mem.conversation("u1")
    with pytest.raises(MissingRecordError, match="'ghost'"):
        conv.add_candidate(
            WriteCandidate(
                pref(
                    "n",
                    "I like cats",
                    supersedes="ghost",
                    provenance=Provenance("user_statement", "e1", "I like cats"),
                )
            )
        )


def test_bulk_supersedes_missing_target_is_an_error(mem):
    with pytest.raises(MissingRecordError, match="'ghost'"):
        mem.add_items([pref("n", "I like cats", supersedes="ghost")])
    assert mem.users() == []  # nothing committed


def test_restating_same_value_merges(mem):
    mem.add_items([pref("s", "my preferred size is 16x16", slot="size", value="16x16")])
    with mem.conversation("u1") as conv:
        conv.observe(user_msg("e1", "My preferred size is 16x16."))
    assert conv.committed == [] and conv.merged and conv.merged[0][1] == "s"


def test_two_statements_in_one_conversation_chain(mem):
    mem.create_user("u1")
    with mem.conversation("u1") as conv:
        conv.observe(user_msg("e1", "My preferred color is red.", time="2025-03-01T00:00:00Z"))
        conv.observe(
            user_msg("e2", "Actually, my preferred color is blue.", step=1, time="2025-03-02T00:00:00Z")
        )
    items = {i.value: i for i in mem.snapshot("u1") if i.slot == "color"}
    assert (
        items["red"].valid_to == "2025-03-02T00:00:00Z" and items["blue"].supersedes == items["red"].item_id
    )
