"""Source validation of write candidates (paper App. A.2): who may confirm what.

- User facts (preference, habit, attribute) are confirmed only by the user's own words: a `request`
  or a `message` with role "user" observed in this conversation, whose text contains the quote.
- A `tool_result` is a receipt, never the user's voice: whatever its text says ("the user prefers
  X", "provenance: user_statement"), it cannot create or change a user fact.
- Project progress and artifact versions are confirmed only by a successful tool receipt; other
  project state (decisions, pending items) by a user statement or a receipt; stage summaries may also
  come from the task_end event; workflows by receipts or user statements.
- The provenance a candidate claims must match the event it cites: a candidate that claims
  `user_statement` while citing a tool result is rejected, as is one citing an event this
  conversation never observed.
`check` returns None for an accepted candidate, else the rejection reason.
"""
from __future__ import annotations

import re
from typing import Sequence

from pulse.core.records import Event
from pulse.memory.interface import WriteCandidate
from pulse.memory.project import RECEIPT_ONLY_STATE_KINDS, state_kind_of

USER_FACT_KINDS: frozenset[str] = frozenset({"preference", "habit", "attribute"})
_FAILED = frozenset({"error", "failed", "fail", "failure", "timeout", "denied", "rejected", "cancelled"})
_SPACE = re.compile(r"\s+")


def event_source(ev: Event) -> str:
    """The source kind an event can vouch for; "agent" vouches for nothing."""
    if ev.kind == "request" or (ev.kind == "message" and ev.role == "user"):
        return "user_statement"
    if ev.kind == "tool_result":
        return "tool_receipt"
    if ev.kind == "task_end":
        return "system"
    return "agent"


def receipt_succeeded(ev: Event) -> bool:
    status = (ev.args.get("status") or ev.args.get("ok") or "").strip().lower()
    if status in _FAILED or status == "false":
        return False
    return not ev.text.strip().lower().startswith(("error", "failed", "exception", "traceback"))


def _norm(s: str) -> str:
    return _SPACE.sub(" ", s).strip().lower()


def find_source(cand: WriteCandidate, observed: Sequence[Event]) -> tuple[Event | None, str]:
    """The observed event a candidate cites, or a rejection reason."""
    eid = cand.source_event.event_id if cand.source_event is not None else cand.item.provenance.event_id
    if cand.source_event is not None:
        if not any(e == cand.source_event for e in observed):
            return None, f"source event {eid or cand.source_event.step!r} was not observed in this conversation"
        return cand.source_event, ""
    if eid:
        for e in observed:
            if e.event_id == eid:
                return e, ""
        return None, f"cited event {eid!r} was not observed in this conversation"
    return None, "no observed event backs this candidate (give source_event or provenance.event_id)"


def check(cand: WriteCandidate, observed: Sequence[Event]) -> str | None:
    item = cand.item
    ev, why = find_source(cand, observed)
    if ev is None:
        return why
    actual = event_source(ev)
    claimed = item.provenance.source_kind
    where = f"event {ev.event_id or ev.step}"
    if claimed != actual:
        return f"provenance claims {claimed} but {where} is a {ev.kind}" + (f" ({ev.role})" if ev.role else "")
    quote = _norm(item.provenance.quote)
    if item.kind in USER_FACT_KINDS:
        if actual != "user_statement":
            return f"a {item.kind} can only come from the user's own statement, not a {ev.kind}"
        if not quote:
            return f"a {item.kind} needs the quote from the user's statement"
    if quote:
        haystack = _norm(ev.text + " " + " ".join(ev.args.values()))
        if quote not in haystack:
            return f"quote {item.provenance.quote[:60]!r} does not occur in {where}"
    if item.kind == "project_state":
        sk = state_kind_of(item)
        if actual == "tool_receipt" and not receipt_succeeded(ev):
            return f"{where} reports a failed call; it confirms no project state"
        if sk in RECEIPT_ONLY_STATE_KINDS and actual != "tool_receipt":
            return f"project {sk} is confirmed only by a tool receipt, not a {ev.kind}"
        if actual == "system" and sk != "stage":
            return "only stage summaries may come from the task_end event"
        if actual == "agent":
            return "agent text confirms no project state"
    if item.kind == "workflow" and actual not in ("tool_receipt", "user_statement"):
        return f"a workflow is confirmed by tool receipts or the user, not a {ev.kind}"
    return None
