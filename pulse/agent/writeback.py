"""Write-candidate extraction at task end (DESIGN §1 "Writes").

Sources and what they may create:
- a **user message** that states slot values (event args) → user `preference` items, provenance
  `user_statement` with the message as quote. Only the user confirms preferences.
- a **tool result** whose args carry `decision.<slot>` fields → `project_state` items in the task's
  project, provenance `tool_receipt`. A tool result can never create a user preference.
- the request's explicit values are task parameters, not standing preferences: not written.
Validation, merge and supersession are the memory store's job (`ConversationWriter.commit`).
"""
from __future__ import annotations

import hashlib
from typing import Sequence

from pulse.agent.listener import SUBGOAL_KEY
from pulse.core.records import Event, MemoryItem, Provenance
from pulse.memory.interface import WriteCandidate

DECISION_PREFIX = "decision."


def _item_id(*parts: str) -> str:
    return "w" + hashlib.sha1("|".join(parts).encode()).hexdigest()[:10]


def extract_candidates(events: Sequence[Event], user_id: str, project_id: str = "",
                       include_user_statements: bool = True) -> list[WriteCandidate]:
    out: list[WriteCandidate] = []
    for ev in events:
        if ev.kind == "message" and ev.role == "user" and include_user_statements:
            for slot, value in ev.args.items():
                if slot == SUBGOAL_KEY or not value or value == "?":
                    continue
                out.append(WriteCandidate(MemoryItem(
                    item_id=_item_id(user_id, slot, value, ev.event_id or str(ev.step)),
                    kind="preference", scope=f"user:{user_id}", text=f"The user prefers {slot} = {value}.",
                    slot=slot, value=value, provenance=Provenance("user_statement", ev.event_id, ev.text[:200]),
                    valid_from=ev.time), ev))
        elif ev.kind == "tool_result" and project_id:
            for key, value in ev.args.items():
                if not key.startswith(DECISION_PREFIX) or not value:
                    continue
                slot = key[len(DECISION_PREFIX):]
                out.append(WriteCandidate(MemoryItem(
                    item_id=_item_id(project_id, slot, value, ev.event_id or str(ev.step)),
                    kind="project_state", scope=f"project:{project_id}",
                    text=f"Project {project_id} decided {slot} = {value} (confirmed by {ev.tool}).",
                    slot=slot, value=value, provenance=Provenance("tool_receipt", ev.event_id, ev.text[:200]),
                    valid_from=ev.time), ev))
    return out
