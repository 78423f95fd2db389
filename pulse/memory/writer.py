"""Conversation writes: candidate extraction -> source validation -> merge -> one-transaction commit.

    with memory.conversation("u1", "p1", "task-42") as conv:   # commits on a clean exit, aborts on error
        for ev in events: conv.observe(ev)
        conv.add_candidate(WriteCandidate(item, source_event=ev))   # optional, e.g. from an LLM extractor
    conv.committed, conv.merged, conv.rejected                     # what happened to each candidate

Merging: a candidate equal to a current record (same scope, kind, slot, value, conditions, task scope;
or the same words when it has no slot; or, with a dense embedder, a near-identical sentence) adds
nothing. A candidate with the slot of a current record but another value is a revision: it is
written as a new record that `supersedes` the old one, whose `valid_to` is set to the new record's
`valid_from` — the only update a stored record ever gets. Commit writes every accepted record, the
validity ends, the vectors and the conversation's own row in one SQLite transaction: after a crash
a conversation is either fully present or absent. `abort` (or an exception inside the `with`)
discards everything.

The write path runs one way: `StoreMemory.conversation()` (pulse/memory/store_memory.py) hands a
`Conversation` itself as a `WriteTarget` (store, embedder, clock, index lookups); `commit` plans and
writes here, through the store's public methods, and nothing in this module imports store_memory.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from pulse.core.records import USER_FACT_KINDS, Event, MemoryItem
from pulse.core.values import avoid_value, avoided, one_of_value, same_value, wanted
from pulse.memory import graph
from pulse.memory.embedders.base import Embedder
from pulse.memory.extraction import avoid_text, extract, prefer_text
from pulse.memory.interface import (
    ConversationClosedError,
    ItemMeta,
    MemoryStoreError,
    MissingRecordError,
    UnknownScopeError,
    WriteCandidate,
)
from pulse.memory.store import MemoryStore, text_hash
from pulse.memory.timeutil import parse_time
from pulse.memory.validation import check, find_source


class WriteTarget(Protocol):
    """What a conversation writes into: the store, the embedder, the clock, and the lookups that need
    the scopes' retrieval indexes. `StoreMemory` (pulse/memory/store_memory.py) is one; this module
    never imports it, so the write path runs one way: memory -> writer -> store."""

    store: MemoryStore
    embedder: Embedder

    def now(self) -> str:
        """The current time as an ISO-8601 string (the commit time of the conversation's records)."""

    def embed_cached(self, texts: list[str]) -> dict[str, Any]:
        """text hash -> vector, from the store's cache or embedded now."""
        ...

    def infer_topic(self, item: MemoryItem, vec: Any = None) -> str:
        """The Topic of the most similar current fact in the item's scope, else "general"."""
        ...

    def link_entities(self, item: MemoryItem) -> tuple[str, ...]:
        """Known entities of the item's scope that its text names."""
        ...

    def near_duplicate(self, item: MemoryItem, meta: ItemMeta, vec: Any, threshold: float = 0.95) -> str:
        """Id of a current fact whose sentence is nearly identical, else ""."""
        ...

    def invalidate(self, scopes: set[str]) -> None:
        """After a commit to `scopes`: bring the retrieval indexes up to date."""
        ...


class Conversation:
    """Implements `ConversationWriter` on a `WriteTarget` (every memory kind writes the same way)."""

    def __init__(
        self,
        memory: WriteTarget,
        user_id: str,
        project_id: str = "",
        conversation_id: str = "",
        extract_candidates: bool = True,
    ):
        self.memory = memory
        self.user_id = user_id
        self.project_id = project_id
        self.conversation_id = conversation_id or f"conv-{uuid.uuid4().hex[:16]}"
        # the task a task-scoped item (a one-off) is visible to: this conversation, or the longer task
        # it is part of (a gateway session commits each statement as a conversation of its own)
        self.task_id = self.conversation_id
        self.extract_candidates = extract_candidates
        self.events: list[Event] = []
        self.candidates: list[WriteCandidate] = []
        self.committed: list[MemoryItem] = []
        self.merged: list[tuple[WriteCandidate, str]] = []  # (candidate, id of the record it equals)
        self.rejected: list[tuple[WriteCandidate, str]] = []  # (candidate, reason)
        self.task_scoped_ids: set[str] = set()  # of the committed items, those kept for `task_id` only
        self.state = "open"
        if memory.store.conversation_committed(self.conversation_id):
            raise MemoryStoreError(
                f"conversation {self.conversation_id!r} was already committed to {memory.store.path}"
            )

    # ------------------------------------------------------------------ ConversationWriter
    def observe(self, event: Event) -> None:
        """Record one event of the conversation; raises ConversationClosedError once committed or aborted."""
        self._check_open()
        self.events.append(event)

    def add_candidate(self, candidate: WriteCandidate) -> None:
        """Queue a write candidate; raises UnknownScopeError when its scope is not this conversation's user
        (user facts) or project (project memory), MissingRecordError when it revises a record that neither the
        store nor an earlier candidate has, and ConversationClosedError once closed."""
        self._check_open()
        item = candidate.item
        user_kind = item.kind in USER_FACT_KINDS
        want = (
            f"user:{self.user_id}" if user_kind else (f"project:{self.project_id}" if self.project_id else "")
        )
        if not want:
            raise UnknownScopeError(
                f"candidate {item.item_id} is {item.kind} project memory but conversation "
                f"{self.conversation_id} has no project"
            )
        if item.scope != want:
            raise UnknownScopeError(
                f"candidate {item.item_id} has scope {item.scope!r} but conversation "
                f"{self.conversation_id} writes {item.kind} records to {want!r}"
            )
        if (
            item.supersedes
            and self.memory.store.get(item.supersedes) is None
            and not any(c.item.item_id == item.supersedes for c in self.candidates)
        ):
            raise MissingRecordError(
                f"candidate {item.item_id} revises record {item.supersedes!r}, which does not "
                f"exist in {self.memory.store.path}"
            )
        self.candidates.append(candidate)

    def abort(self) -> None:
        """Drop the queued candidates and close the conversation; raises ConversationClosedError once
        closed."""
        self._check_open()
        self.candidates.clear()
        self.state = "aborted"

    def commit(self) -> list[MemoryItem]:
        """Validate the queued (and, with `extract_candidates`, extracted) candidates against the observed
        events, write the accepted ones in one transaction and return the items written; the rejected ones and
        their reasons are kept in `rejected`. Raises ConversationClosedError once closed."""
        self._check_open()
        self.merged, self.rejected = [], []  # a commit that raised (and rolled back) may be retried
        now = self.memory.now()
        cands = list(self.candidates)
        if self.extract_candidates:
            cands += extract(self.events, self.conversation_id, self.user_id, self.project_id, now)
        accepted: list[tuple[WriteCandidate, Event]] = []
        for c in cands:
            reason = check(c, self.events)
            if reason is None:
                accepted.append((c, find_source(c, self.events)[0]))  # type: ignore[arg-type]
            else:
                self.rejected.append((c, reason))
        prepared = [self._prepare(c, ev, now) for c, ev in accepted]
        self.task_scoped_ids = {item.item_id for _, item, meta in prepared if meta.task_id}
        self.committed = plan_and_write(self.memory, self, prepared, now)
        self.state = "committed"
        return self.committed

    # ------------------------------------------------------------------ helpers
    def _check_open(self) -> None:
        if self.state != "open":
            raise ConversationClosedError(f"conversation {self.conversation_id} is already {self.state}")

    def _prepare(self, c: WriteCandidate, ev: Event, now: str) -> tuple[WriteCandidate, MemoryItem, ItemMeta]:
        item = c.item
        changes: dict[str, object] = {}
        if not item.valid_from:
            changes["valid_from"] = ev.time or now
        if item.valid_to:
            changes["valid_to"] = ""  # a new record is current; only a later revision ends it
        if not item.provenance.event_id and ev.event_id:
            changes["provenance"] = replace(item.provenance, event_id=ev.event_id)
        if changes:
            item = replace(item, **changes)  # type: ignore[arg-type]
        return c, item, ItemMeta(links=tuple(c.links), task_id=self.task_id if c.task_scoped else "")

    def __enter__(self) -> Conversation:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.state != "open":
            return
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def plan_and_write(
    memory: WriteTarget,
    conv: Conversation,
    prepared: Sequence[tuple[WriteCandidate, MemoryItem, ItemMeta]],
    now: str,
) -> list[MemoryItem]:
    """Merge, link revisions, and write everything in one transaction. Returns the new records."""
    store = memory.store
    scopes = {f"user:{conv.user_id}"} | ({f"project:{conv.project_id}"} if conv.project_id else set())
    prepared, vec_by_hash, dups = _embedded(memory, prepared)
    # process in time order so a later statement in the same conversation revises an earlier one
    order = sorted(range(len(prepared)), key=lambda j: (parse_time(prepared[j][1].valid_from), j))
    written: list[MemoryItem] = []
    ended: dict[str, str] = {}  # item_id -> valid_to set in this transaction
    with store.transaction() as db:
        batch_eq: dict[tuple[str, ...], str] = {}
        batch_rev: dict[tuple[str, ...], int] = {}  # revision key -> index in `written`
        for j in order:
            c, item, meta = prepared[j]
            eq = graph.equivalence_key(item, meta.task_id)
            if eq in batch_eq:
                conv.merged.append((c, batch_eq[eq]))
                continue
            same = store.find_by_key(db, "eq_key", eq)
            if same:
                conv.merged.append((c, same[0].item_id))
                continue
            existing = store.get(item.item_id)
            if existing is not None:
                conv.rejected.append((c, f"item_id {item.item_id} already exists with different content"))
                continue
            dup = dups[j]
            if dup:
                conv.merged.append((c, dup))
                continue
            target, why_not = _revision_target(store, db, conv, item, meta, written, ended, batch_rev)
            if why_not:
                conv.rejected.append((c, why_not))
                continue
            if target is not None:
                item = _merged_with(memory, item, target, vec_by_hash)
                item = replace(item, supersedes=target.item_id)
                store.end_validity(db, target.item_id, item.valid_from)
                ended[target.item_id] = item.valid_from
                written = [
                    replace(w, valid_to=item.valid_from) if w.item_id == target.item_id else w
                    for w in written
                ]
            store.insert_item(db, item, meta, conv.conversation_id)
            batch_eq[eq] = item.item_id
            rk = graph.revision_key(item, meta.task_id)
            if rk is not None:
                batch_rev[rk] = len(written)
            written.append(item)
        if memory.embedder.dense and written:
            wtexts = [graph.embed_text(i) for i in written]
            store.put_vectors(
                db, memory.embedder.embedder_id, wtexts, np.stack([vec_by_hash[text_hash(t)] for t in wtexts])
            )
        project = f"project:{conv.project_id}" if conv.project_id else ""
        counts = (len(written), len(conv.merged), len(conv.rejected))
        store.record_conversation(db, conv.conversation_id, f"user:{conv.user_id}", project, now, *counts)
        store.bump(db, scopes)
    memory.invalidate(scopes)
    return written


def _merged_with(
    memory: WriteTarget, item: MemoryItem, target: MemoryItem, vec_by_hash: dict[str, Any]
) -> MemoryItem:
    """A revision that keeps what it revises where the two are one wish: an avoid revising an avoid of
    the same slot and context keeps what the earlier one rejected ("Never the middle seat", later "no
    window either": `not:middle|window`), and a preference revising one read from the same statement
    accepts both ("Zoom or Teams is fine": `any:zoom|teams`); a preference said later replaces."""
    if target.kind != item.kind or item.kind != "preference":
        return item
    old, new = avoided(target.value), avoided(item.value)
    if old and new:
        values = list(dict.fromkeys((*old, *new)))
        if len(values) == len(new):
            return item
        merged = replace(item, value=avoid_value(values), text=avoid_text(item.slot, values))
    elif not old and not new and target.provenance.event_id == item.provenance.event_id:
        values = list(dict.fromkeys((*wanted(target.value), *wanted(item.value))))
        if len(values) == len(wanted(item.value)):
            return item
        merged = replace(item, value=one_of_value(values), text=prefer_text(item.slot, values))
    else:
        return item
    vec_by_hash.update(memory.embed_cached([graph.embed_text(merged)]))
    return merged


def _embedded(
    memory: WriteTarget, prepared: Sequence[tuple[WriteCandidate, MemoryItem, ItemMeta]]
) -> tuple[list[tuple[WriteCandidate, MemoryItem, ItemMeta]], dict[str, Any], dict[int, str]]:
    """Vectors first (placement by similarity uses them; enrichment never changes the embedded text),
    then near-duplicate detection, which may build the index: all before the write lock is taken.

    Returns the enriched candidates, their vectors by text hash and, per candidate, the id of the
    record it nearly duplicates (or "")."""
    texts = [graph.embed_text(i) for _, i, _ in prepared]
    vec_by_hash = memory.embed_cached(texts)
    enriched = [
        (c, *_enrich(memory, item, meta, vec_by_hash.get(text_hash(t))))
        for (c, item, meta), t in zip(prepared, texts)
    ]
    dups = {
        j: memory.near_duplicate(item, meta, vec_by_hash.get(text_hash(texts[j])))
        for j, (_, item, meta) in enumerate(enriched)
    }
    return enriched, vec_by_hash, dups


def _revision_target(
    store: MemoryStore,
    db,
    conv: Conversation,
    item: MemoryItem,
    meta: ItemMeta,
    written: list[MemoryItem],
    ended: dict[str, str],
    batch_rev: dict[tuple[str, ...], int],
) -> tuple[MemoryItem | None, str]:
    """The record `item` revises (explicit `supersedes`, else the current record with the same slot in
    this scope, this transaction's writes first) and, when the candidate must be rejected, why.

    Raises MissingRecordError / MemoryStoreError for an explicit `supersedes` that names no record or an
    already superseded one: the caller asked for something impossible, which is not a soft rejection."""
    target: MemoryItem | None = None
    if item.supersedes:
        prev = next((w for w in written if w.item_id == item.supersedes), None)
        got = store.get(item.supersedes)
        target = prev or (got[0] if got else None)
        if target is None:
            raise MissingRecordError(
                f"conversation {conv.conversation_id}: candidate {item.item_id} revises "
                f"record {item.supersedes!r}, which does not exist in {store.path}"
            )
        if target.valid_to or target.item_id in ended:
            raise MemoryStoreError(
                f"conversation {conv.conversation_id}: record {target.item_id} was already "
                f"superseded; revise its current version instead"
            )
        if (target.kind in USER_FACT_KINDS) != (item.kind in USER_FACT_KINDS) or target.scope != item.scope:
            return None, (
                f"a {item.kind} in {item.scope} cannot supersede the {target.kind} "
                f"{target.item_id} in {target.scope}"
            )
    else:
        rk = graph.revision_key(item, meta.task_id)
        if rk is not None:
            if rk in batch_rev:
                target = written[batch_rev[rk]]
            else:
                cur = store.find_by_key(db, "rev_key", rk, newest=True)
                target = cur[0] if cur else None
    if item.kind == "withdrawal" and (
        target is None or target.kind == "withdrawal" or not same_value("string", target.value, item.value)
    ):
        # "I no longer want X" ends the current X; with no current X there is nothing to end
        return None, f"withdraws {item.slot} = {item.value}, which is not current"
    if target is not None and parse_time(item.valid_from) < parse_time(target.valid_from or item.valid_from):
        since = target.valid_from
        return None, f"revision at {item.valid_from} predates {target.item_id} (valid from {since})"
    return target, ""


def current_version(store: MemoryStore, item: MemoryItem, meta: ItemMeta) -> MemoryItem | None:
    """The current record this candidate would revise (explicit `supersedes`, else same slot)."""
    if item.supersedes:
        got = store.get(item.supersedes)
        return got[0] if got else None
    rk = graph.revision_key(item, meta.task_id)
    if rk is None:
        return None
    found = store.current_by_key("rev_key", rk, newest=True)
    return found[0] if found else None


def _enrich(
    memory: WriteTarget, item: MemoryItem, meta: ItemMeta, vec: object = None
) -> tuple[MemoryItem, ItemMeta]:
    """Attach an extracted fact to the graph: nearest Topic when it has none, known entities it names."""
    changes: dict[str, object] = {}
    prev = current_version(memory.store, item, meta)
    if prev is not None:  # a revision stays where the fact it revises lives in the graph
        if not item.topic:
            changes["topic"] = prev.topic
        if not item.entities and prev.entities:
            changes["entities"] = prev.entities
    if not item.topic and "topic" not in changes:
        changes["topic"] = memory.infer_topic(item, vec)
    if not item.entities:
        ents = memory.link_entities(item)
        if ents:
            changes["entities"] = ents
    return (replace(item, **changes) if changes else item), meta  # type: ignore[arg-type]
