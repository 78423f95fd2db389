"""The seed hook: every method gets the same seed history and builds its own memory from it.

A persona's seed history is its past, as conversations with times: what the user said about their
preferences and habits, their profile, and the decisions recorded in each project. It is rendered
from the persona's seed memory (the facts `data_gen.world` derived from a year of tool calls, plus
the suite's project decisions) by one routine, `seed_history`, the same for every method:

  preference (current)      user: "For <service>, my preferred <slot> is <value>."       at valid_from
  preference (revised)      the old statement at its valid_from, then
                            user: "From now on, for <service>, my preferred <slot> is <value>."
  habit                     user: "For <service>, I usually use <slot> <value>."
  attribute                 user: "My <attribute> is <value>."                          (no date: first)
  project decision          tool receipt of `approve_plan`: "Project <p> decision recorded: <slot>
                            <value>." with the field decision.<slot>=<value>             at valid_from

Each statement is one session (a user turn and the assistant's short acknowledgement), in time order.
A baseline replays the sessions through its own write path (Mem0's extraction + update, LightMem's
buffers, A-MEM's notes, OpenClaw's agent-written files, dsh's session log and compaction, ZCode's
save step, the Proactive Memory Agent's management phase); no method reads another's store.

Pulse is no exception: it reads the same sessions through its own write path (reading, validation,
filing). A method is handed the sessions only, never the records they were rendered from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.suites.schema import SeedSession, SeedTurn  # noqa: F401  (the seed records; re-exported)
from pulse.agent.writeback import DECISION_PREFIX
from pulse.core.records import MemoryItem

DECISION_TOOL = "approve_plan"  # the suites' decision tool (its receipt carries decision.<slot> fields)
# time of statements that have none (profile attributes): before the seed year
UNDATED = "2024-01-01T00:00:00"
ACK = "Noted."


@dataclass(frozen=True)
class SeedHistory:
    """A persona's seed history: its past sessions in time order, what every method's `open_chain` builds its
    memory from (rendered by `seed_history`)."""

    user_id: str
    sessions: tuple[SeedSession, ...]  # in time order (what a deployed memory agent would have seen)


@dataclass
class ChainSeed:
    """What the harness hands `Method.open_chain` for one persona chain."""

    user_id: str
    project_ids: tuple[str, ...]
    history: SeedHistory
    root: Path  # a fresh folder the method may write its memory files into
    embedder: Any  # the run's embedder (pulse.memory embedders), the same for every method
    tools: tuple = ()  # the persona's tool schemas (what a memory agent may read)
    reader: Any = None  # the run's reader (pulse.reading; None = reader.name=rule), the same for every method
    extra: dict[str, Any] = field(default_factory=dict)


def _words(slot: str) -> str:
    return slot.replace("_", " ")


def _service(item: MemoryItem) -> str:
    return item.text.split(":", 1)[0].strip() if ":" in item.text else (item.topic or "")


def statement(item: MemoryItem, revised: bool = False) -> str:
    """The user's sentence that states `item` (see the module docstring)."""
    w, v, svc = _words(item.slot), item.value, _service(item)
    if item.kind == "project_state":
        return f"Project {item.scope.split(':', 1)[1]} decision recorded: {w} {v}."
    if item.kind == "attribute":
        return f"My {w} is {v}."
    if item.kind == "habit":
        return f"For {svc}, I usually use {w} {v}."
    return f"{'From now on, f' if revised else 'F'}or {svc}, my preferred {w} is {v}."


def seed_history(
    user_id: str, memory: Sequence[MemoryItem], sessions: Sequence[SeedSession] = ()
) -> SeedHistory:
    """The persona's past as sessions: the suite's own rendered history when it has one
    (`Persona.history`), else rendered from its seed memory by `statement`."""
    if sessions:
        return SeedHistory(user_id, tuple(sorted(sessions, key=lambda s: s.time)))
    sessions = []
    for m in memory:
        project = m.scope.split(":", 1)[1] if m.scope.startswith("project:") else ""
        text = statement(m, revised=bool(m.supersedes))
        if project:  # a decision is recorded by a tool receipt, as tasks record theirs
            turns = (
                SeedTurn(
                    "tool", text, DECISION_TOOL, {"status": "ok", f"{DECISION_PREFIX}{m.slot}": m.value}
                ),
            )
        else:
            turns = (SeedTurn("user", text), SeedTurn("assistant", ACK))
        sessions.append(SeedSession(m.valid_from or UNDATED, m.scope, turns, project))
    sessions.sort(key=lambda s: (s.time, s.scope, s.turns[0].text))
    return SeedHistory(user_id, tuple(sessions))
