"""Write-candidate extraction at task end (DESIGN §1 "Writes").

Sources and what they may create:
- a **user message** that states slot values (event args) → user `preference` items, provenance
  `user_statement` with the message as quote. Only the user confirms preferences.
- a **tool result** whose args carry `decision.<slot>` fields → `project_state` items in the task's
  project, provenance `tool_receipt`. A tool result can never create a user preference.
- the request's explicit values are task parameters, not standing preferences: not written.
Validation, merge and supersession are the memory store's job (`ConversationWriter.commit`).

Scoped facts (`commit_events(..., scope_facts=True)`): a user fact whose stating sentence opens with
a context ("For concert tickets, my preferred site is seatgeek.com", "When travelling for work,
...") carries that context as its `conditions`, so facts learned for different Topics or task
groups live side by side instead of one superseding the other (the store's revision key includes
the conditions), and the run-time agent weighs a fact only where its context matches the request
(`pulse.agent.runtime`, `scope_filter`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

from pulse.agent.listener import SUBGOAL_KEY
from pulse.core.records import USER_FACT_KINDS, Event, MemoryItem, Provenance
from pulse.core.statements import is_value
from pulse.memory.extraction import Reader
from pulse.memory.interface import WriteCandidate

DECISION_PREFIX = "decision."


def _item_id(*parts: str) -> str:
    return "w" + hashlib.sha1("|".join(parts).encode()).hexdigest()[:10]


def extract_candidates(
    events: Sequence[Event], user_id: str, project_id: str = "", include_user_statements: bool = True
) -> list[WriteCandidate]:
    """Write candidates read from events: a preference for every slot value a user message states (unless
    `include_user_statements` is False) and, with a project, a project decision for every "decision.*"
    argument of a tool result."""
    out: list[WriteCandidate] = []
    for ev in events:
        if ev.kind == "message" and ev.role == "user" and include_user_statements:
            for slot, value in ev.args.items():
                if slot == SUBGOAL_KEY or not is_value(value):
                    continue
                out.append(
                    WriteCandidate(
                        MemoryItem(
                            item_id=_item_id(user_id, slot, value, ev.event_id or str(ev.step)),
                            kind="preference",
                            scope=f"user:{user_id}",
                            text=f"The user prefers {slot} = {value}.",
                            slot=slot,
                            value=value,
                            provenance=Provenance("user_statement", ev.event_id, ev.text[:200]),
                            valid_from=ev.time,
                        ),
                        ev,
                    )
                )
        elif ev.kind == "tool_result" and project_id:
            for key, value in ev.args.items():
                if not key.startswith(DECISION_PREFIX) or not value:
                    continue
                slot = key[len(DECISION_PREFIX) :]
                out.append(
                    WriteCandidate(
                        MemoryItem(
                            item_id=_item_id(project_id, slot, value, ev.event_id or str(ev.step)),
                            kind="project_state",
                            scope=f"project:{project_id}",
                            text=f"Project {project_id} decided {slot} = {value} (confirmed by {ev.tool}).",
                            slot=slot,
                            value=value,
                            provenance=Provenance("tool_receipt", ev.event_id, ev.text[:200]),
                            valid_from=ev.time,
                        ),
                        ev,
                    )
                )
    return out


# a context a statement opens with: "For <ctx>, ...", "From now on, for <ctx>, ...", "When <ctx>, ..."
_CONTEXT = re.compile(
    r"^\W*(?:from now on,?\s+)?(?:for|when|whenever|during|on)\s+([^,:;]{3,90}?),\s+\S", re.I
)


def statement_context(sentence: str) -> str:
    """The context a sentence opens with ("" when none), lower-cased."""
    m = _CONTEXT.match(sentence or "")
    return " ".join(m.group(1).lower().split()) if m else ""


_NEW_SENTENCE = re.compile(r"[.!?]\s+[A-Z]")


def _context_of(item: MemoryItem, source: Event | None) -> str:
    """The context of the sentence that states `item`, read in the whole message (a sentence splitter
    may have cut "For the latest AP U.S. history, ..." after "U.S."), else in its quote."""
    quote = item.provenance.quote or item.text
    full = source.text if source is not None else ""
    at = full.find(quote) if quote and full else -1
    if at >= 0:
        start = max((m.start() + 1 for m in _NEW_SENTENCE.finditer(full, 0, at + 1)), default=0)
        ctx = statement_context(full[start:])
        if ctx:
            return ctx
    return statement_context(quote)


def scope_candidates(
    cands: Sequence[WriteCandidate], current: Sequence[MemoryItem] = (), situation: str = ""
) -> list[WriteCandidate]:
    """User-fact candidates with the context their stating sentence opens with as `conditions`. A
    fact stated without one inherits the context of the current facts of its slot (the one that best
    matches `situation`, the conversation's request, when there are several), so it revises the fact
    it restates instead of standing beside it."""
    from pulse.agent.schema import word_cosine

    contexts: dict[str, list[str]] = {}
    for m in current:
        if m.kind in USER_FACT_KINDS and m.slot and m.conditions:
            contexts.setdefault(m.slot, []).append(m.conditions)
    out = []
    for c in cands:
        item = c.item
        if item.kind in USER_FACT_KINDS and not item.conditions:
            ctx = _context_of(item, c.source_event)
            if not ctx and item.slot in contexts:
                opts = list(dict.fromkeys(contexts[item.slot]))
                ctx = max(opts, key=lambda o: word_cosine(o, situation or item.provenance.quote or item.text))
            if ctx:
                c = replace(c, item=replace(item, conditions=ctx))
        out.append(c)
    return out


def commit_events(
    memory,
    events: Sequence[Event],
    user_id: str,
    project_id: str,
    conversation_id: str,
    completed: bool = True,
    scope_facts: bool = True,
    read: Reader | None = None,
) -> list[MemoryItem]:
    """One conversation through Pulse's write path: the store's own extraction (when it has one) and
    the decision receipts, then source validation, merge and supersession in the store's commit.
    `scope_facts`: user facts carry the context they were stated in (module docstring). `read`: the
    reading layer bound to the tools' schema (pulse.memory.extraction files what it reads)."""
    writer = memory.conversation(user_id, project_id, conversation_id)
    for ev in events:
        writer.observe(ev)
    if not completed:
        writer.abort()
        return []
    own = bool(getattr(writer, "extract_candidates", False))
    cands = extract_candidates(events, user_id, project_id, include_user_statements=not own)
    if own and (scope_facts or read is not None):  # the store's extractor, run here so its user facts
        # can carry their context and what the reading layer read
        from pulse.memory.extraction import extract

        writer.extract_candidates = False
        cands += extract(events, writer.conversation_id, user_id, project_id, memory.now(), read=read)
    if scope_facts:
        snap = getattr(memory, "snapshot", None)
        current = snap(user_id) if callable(snap) else ()
        situation = next((e.text for e in events if e.kind == "request" and e.text), "")
        cands = scope_candidates(cands, current, situation)
    for cand in cands:
        writer.add_candidate(cand)
    return writer.commit()
