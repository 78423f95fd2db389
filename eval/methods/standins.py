"""Deterministic stand-ins for the memory-side LLM calls, one rule per purpose, shared by every method.

Offline (`llm=offline`), each memory-side call of a method returns what its prompt asks for, decided
by these rules instead of a model, so offline rows compare memory *designs* with the same quality of
reading and writing:

- **fact extraction** (Mem0 phase 1, LightMem extraction, A-MEM note content, OpenClaw / ZCode notes
  the agent writes, dsh compaction, PMA knowledge): `facts` = the write candidates Pulse's own writes
  take (`pulse.agent.writeback.extract_candidates`: a user message's stated values -> user
  preferences; a receipt's `decision.<slot>` fields -> project decisions; a request's values are
  task parameters, not facts), from events whose text Pulse's parser read
  (`pulse.core.statements.parse_statement`), rendered as one sentence each (`fact_sentence`).
- **update decisions** (Mem0 ADD/UPDATE/DELETE/NONE, LightMem update/delete/ignore, A-MEM evolution):
  facts are compared by (scope, slot) and value, both read back from the fact text with the shared
  text->slot routine (`eval.methods.text_slots.text_items`): same slot and value -> nothing new;
  same slot, other value -> the newer replaces the older; a withdrawn value -> delete; else new.
- **summaries** (dsh compaction): the facts of the summarised range merged into the prior summary,
  newest value per (scope, slot).
- **reminders** (Proactive Memory Agent): the bank entries whose slot the next call takes (the next
  subgoal's tool, from the published tool schemas), not already reminded; none -> null.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.methods.text_slots import text_items, withdrawn
from eval.suites.schema import SeedTurn
from pulse.agent.writeback import extract_candidates
from pulse.core.records import Event
from pulse.core.statements import IMPLICIT, SlotTerms, parse_statement


@dataclass(frozen=True)
class Fact:
    text: str
    slot: str
    value: str
    scope: str  # "user:<id>" | "project:<id>"
    time: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.scope, self.slot)


def fact_sentence(scope: str, slot: str, value: str, withdrawn: bool = False) -> str:
    w = slot.replace("_", " ")
    if scope.startswith("project:"):
        return f"Project {scope.split(':', 1)[1]} decided {w} {value}."
    return f"User {'no longer prefers' if withdrawn else 'prefers'} {w} {value}."


def parsed_event(
    kind: str,
    role: str,
    text: str,
    vocab: Mapping[str, SlotTerms],
    time: str = "",
    tool: str = "",
    args: Mapping[str, str] | None = None,
    step: int = 0,
) -> Event:
    """An event as Pulse's listener reads it: a user/agent message's args are what its text states."""
    if kind == "message":
        args = {k: v for k, v in parse_statement(text, vocab).items() if v != IMPLICIT}
    return Event(kind, step, time=time, text=text, tool=tool, args=dict(args or {}), role=role)


def turn_event(turn: SeedTurn, time: str, vocab: Mapping[str, SlotTerms]) -> Event:
    """One turn of a seed session (`eval.suites.schema.SeedTurn`) as Pulse's listener reads it: a tool
    turn is a tool result with its tool and arguments, any other turn a message."""
    return parsed_event(
        "tool_result" if turn.role == "tool" else "message",
        turn.role,
        turn.text,
        vocab,
        time,
        tool=turn.tool,
        args=turn.args,
    )


def extract_facts(events: Sequence[Event], user_id: str, project_id: str) -> list[Fact]:
    """Fact extraction stand-in (see the module docstring)."""
    out = []
    for c in extract_candidates(events, user_id, project_id):
        m = c.item
        gone = c.source_event is not None and withdrawn(c.source_event.text)
        out.append(
            Fact(fact_sentence(m.scope, m.slot, m.value, gone), m.slot, m.value, m.scope, m.valid_from)
        )
    return out


def read_facts(
    text: str, vocab: Mapping[str, SlotTerms], user_id: str, time: str = "", include_withdrawn: bool = False
) -> list[Fact]:
    """The (scope, slot, value) facts a memory text states (the shared text->slot routine)."""
    return [
        Fact(m.text, m.slot, m.value, m.scope, m.valid_from)
        for m in text_items(text, vocab, "read", user_id, time, include_withdrawn)
    ]


def decide_update(new: Fact, old: Sequence[tuple[str, Fact]], withdrawn: bool = False) -> tuple[str, str]:
    """(event, old id) for one new fact against its similar old memories (Mem0's four operations)."""
    for oid, f in old:
        if f.key != new.key:
            continue
        if withdrawn:
            return "DELETE", oid
        return ("NONE", oid) if f.value == new.value else ("UPDATE", oid)
    return ("NONE", "") if withdrawn else ("ADD", "")


def merge_summary(prior: Sequence[Fact], new: Sequence[Fact]) -> list[Fact]:
    """Summary stand-in: newest value per (scope, slot), in first-seen order."""
    by_key: dict[tuple[str, str], Fact] = {}
    for f in [*prior, *new]:
        by_key.pop(f.key, None)
        by_key[f.key] = f
    return list(by_key.values())
