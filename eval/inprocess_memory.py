"""An in-process implementation of the `Memory` protocol, used by the harness only when the real
store (`pulse.memory.open_memory`) is not importable. Every run's manifest records which one ran.

Two organisations of the *same* items (same facts, provenance and times), as the ablations need:
- `structured` user or project memory: retrieval is scoped (this user; this project only), keeps
  only items valid at the cutoff (superseded revisions are never returned as current), and ranks
  by slot match with the candidate call, entity overlap, topic match, then lexical overlap.
- `flat` user or project memory: one pool of text records; retrieval is lexical overlap between
  the query text and the record text only — no project isolation, no validity filtering (the time
  is in the text, as in a flat log), no slot structure.
`kind` is one of structured | flat | flat_user (flat user + structured project) | flat_project
(structured user + flat project).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from typing import Sequence

from pulse.core.records import Event, MemoryItem
from pulse.memory.interface import RetrievalQuery, ScoredItem, WriteCandidate

KINDS = ("structured", "flat", "flat_user", "flat_project")
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def _scope_of(item: MemoryItem) -> str:
    return "project" if item.scope.startswith("project:") else "user"


@dataclass
class _Writer:
    mem: "InProcessMemory"
    user_id: str
    project_id: str
    candidates: list[WriteCandidate] = field(default_factory=list)
    closed: bool = False

    def observe(self, event: Event) -> None:  # extraction is done by the caller's extractor
        pass

    def add_candidate(self, candidate: WriteCandidate) -> None:
        self.candidates.append(candidate)

    def commit(self) -> list[MemoryItem]:
        if self.closed:
            raise RuntimeError("conversation already closed")
        self.closed = True
        committed = []
        for c in self.candidates:
            item = c.item
            # source validation: a tool receipt can never create a user preference
            if item.kind in ("preference", "habit", "attribute") and item.provenance.source_kind == "tool_receipt":
                continue
            committed.extend(self.mem._merge(item))
        return committed

    def abort(self) -> None:
        self.closed = True
        self.candidates.clear()


class InProcessMemory:
    def __init__(self, kind: str = "structured"):
        if kind not in KINDS:
            raise ValueError(f"memory kind {kind!r} not in {KINDS}")
        self.kind = kind
        self.items: dict[str, MemoryItem] = {}
        self._lock = threading.Lock()

    def _flat_for(self, item: MemoryItem) -> bool:
        s = _scope_of(item)
        return self.kind == "flat" or (self.kind == "flat_user" and s == "user") or \
            (self.kind == "flat_project" and s == "project")

    # -- writes -----------------------------------------------------------------------------
    def add_items(self, items: Sequence[MemoryItem]) -> None:
        with self._lock:
            for it in items:
                self.items[it.item_id] = it

    def _merge(self, item: MemoryItem) -> list[MemoryItem]:
        """Supersede (never overwrite) the current item with the same scope and slot."""
        with self._lock:
            out = []
            for old in list(self.items.values()):
                if old.scope == item.scope and old.slot and old.slot == item.slot and old.is_current \
                        and old.kind in (item.kind, "preference", "project_state"):
                    if old.value == item.value:
                        return []  # already known: confirmation, nothing new stored
                    ended = replace(old, valid_to=item.valid_from or "9999")
                    self.items[old.item_id] = ended
                    item = replace(item, supersedes=old.item_id)
            self.items[item.item_id] = item
            out.append(item)
            return out

    def conversation(self, user_id: str, project_id: str = "", conversation_id: str = "") -> _Writer:
        return _Writer(self, user_id, project_id)

    # -- reads ------------------------------------------------------------------------------
    def snapshot(self, user_id: str, project_id: str = "", as_of: str = "") -> list[MemoryItem]:
        scopes = {f"user:{user_id}", f"project:{project_id}"}
        return [m for m in self.items.values() if m.scope in scopes and (not as_of or m.is_valid_at(as_of))]

    def retrieve(self, query: RetrievalQuery) -> list[ScoredItem]:
        call = query.candidate_call
        call_slots = set(call.args) if call else set()
        ents = {e.lower() for e in query.entities}
        qwords = _words(" ".join([query.subgoal, *query.entities,
                                  *(f"{k} {v}" for k, v in (call.args.items() if call else ()))]))
        scored: list[ScoredItem] = []
        with self._lock:
            pool = list(self.items.values())
        for m in pool:
            if self._flat_for(m):
                # flat: text records of this user's memory (all projects), lexical match only
                if not (m.scope == f"user:{query.user_id}" or m.scope.startswith("project:")):
                    continue
                overlap = len(qwords & _words(m.text))
                if overlap >= 2:
                    scored.append(ScoredItem(m, float(overlap), "flat lexical"))
                continue
            if m.scope not in (f"user:{query.user_id}", f"project:{query.project_id}"):
                continue
            if not (m.is_current if not query.as_of else m.is_valid_at(query.as_of)):
                continue
            score, why = 0.0, []
            if m.slot and m.slot in call_slots:
                score += 3; why.append("slot")
            if ents & ({e.lower() for e in m.entities} | {m.slot.lower(), m.topic.lower()} - {""}):
                score += 2; why.append("entity")
            lex = len(qwords & _words(m.text))
            if score == 0 and lex < 2:
                continue
            score += 0.1 * lex
            scored.append(ScoredItem(m, score, "+".join(why) or "lexical"))
        scored.sort(key=lambda s: (-s.score, s.item.item_id))
        fresh = [s for s in scored if s.item.item_id not in query.delivered]
        # information gain: already-delivered items only when nothing new qualifies
        return (fresh or scored)[:query.k]
