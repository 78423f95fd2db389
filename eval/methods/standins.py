"""Deterministic stand-ins for the memory-side LLM calls, one rule per purpose, shared by every method.

Offline (`llm=offline`), each memory-side call of a method returns what its prompt asks for, decided
by these rules instead of a model, so offline rows compare memory *designs* with the same quality of
reading and writing:

- **fact extraction** (Mem0 phase 1, LightMem extraction, A-MEM note content, OpenClaw / ZCode notes
  the agent writes, dsh compaction, PMA knowledge): the run's reading layer (`pulse.reading`, the
  reader Pulse's own writes use, `reader.name`) reads each user statement, as the real systems'
  extraction LLMs read it: the user's own lasting preferences -> facts; a habit -> a fact said as a
  habit; an avoided or withdrawn value -> a withdrawn fact; someone else's words, another project's
  decision and a one-off request -> nothing. A statement the reader finds nothing in, a receipt's
  `decision.<slot>` fields and `reader.name=rule` runs take the write candidates Pulse's cue rules
  take (`pulse.agent.writeback.extract_candidates` over `parse_statement`). One sentence per fact
  (`fact_sentence`).
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
from pulse.reading import BoundReader, bind_reader
from pulse.reading.clauses import has_lasting_cue


@dataclass(frozen=True)
class Fact:
    """One fact a stand-in wrote: its sentence, slot, value, scope (`user:<id>` or `project:<id>`) and time;
    `key` is (scope, slot)."""

    text: str
    slot: str
    value: str
    scope: str  # "user:<id>" | "project:<id>"
    time: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.scope, self.slot)


def fact_sentence(scope: str, slot: str, value: str, withdrawn: bool = False, habit: bool = False) -> str:
    w = slot.replace("_", " ")
    if scope.startswith("project:"):
        return f"Project {scope.split(':', 1)[1]} decided {w} {value}."
    if habit and not withdrawn:
        return f"User usually has {w} {value} (a habit)."
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


def chain_reading(seed) -> BoundReader | None:
    """The run's reader bound to a chain's tools (None when the run reads by the cue rules alone)."""
    return bind_reader(getattr(seed, "reader", None), seed.tools)


def _read_facts(ev: Event, reading: BoundReader, user_id: str, project_id: str) -> list[Fact] | None:
    """What the reader reads in one user statement as facts (None: it read nothing; see the module
    docstring)."""
    read = reading.read(ev.text, project_id)
    if not read:
        return None
    out = []
    for f in read:
        if f.holder == "user" and f.kind != "decision":
            if not f.lasting or (ev.kind == "request" and not has_lasting_cue(f.quote or ev.text)):
                continue  # this task's parameters
            scope = f"user:{user_id}"
        elif f.kind == "decision" and project_id and f.holder.split(":", 1)[1] in ("", project_id):
            scope = f"project:{project_id}"
        else:
            continue  # someone else's words
        gone = f.withdraws or f.polarity == "avoid"
        text = fact_sentence(scope, f.argument, f.value, gone, habit=f.kind == "habit")
        out.append(Fact(text, f.argument, f.value, scope, ev.time))
    return out


def extract_facts(
    events: Sequence[Event], user_id: str, project_id: str, reading: BoundReader | None = None
) -> list[Fact]:
    """Fact extraction stand-in (see the module docstring)."""
    out = []
    rest = []
    for ev in events:
        said = ev.kind == "request" or (ev.kind == "message" and ev.role == "user")
        facts = _read_facts(ev, reading, user_id, project_id) if reading is not None and said else None
        if facts is None:
            rest.append(ev)
        else:
            out += facts
    for c in extract_candidates(rest, user_id, project_id):
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
