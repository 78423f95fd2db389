"""The listener: appends public events to the prefix and decides which events trigger retrieval.

Retrieval is event-gated (paper §3, Algorithm 1), not run at every step: an event triggers it when
it is a candidate call (always: the pre-commit gate needs evidence about the proposed arguments),
when it introduces an entity not seen before in this episode (a new tool, a new argument slot or
value, a new named artifact), or when it states a new subgoal (an agent message: its `subgoal`
field where the agent gives one, else its words). Tool results and repeated messages about known
entities do not trigger retrieval.

The listener is also where Pulse reads what a request or message *states*: their slot values are
parsed from the text with the tools' vocabulary (`pulse.core.statements.parse_statement`), replacing
whatever `args` the caller attached, so a benchmark's own parse of its request never reaches the
policy. Only the subgoal an agent message announces is kept from its args. Candidate calls and tool
results are structured already and pass unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pulse.core.records import Event
from pulse.core.statements import SlotTerms, parse_statement

# Event args that name the subgoal an agent message announces (e.g. "draft the methods section").
SUBGOAL_KEY = "subgoal"


def event_entities(event: Event) -> tuple[str, ...]:
    """Entities an event mentions: tool name, argument slots and values (lower-cased)."""
    ents: list[str] = []
    if event.tool:
        ents.append(event.tool.lower())
    for k, v in event.args.items():
        if k == SUBGOAL_KEY:
            continue
        ents.append(k.lower())
        if v and v != "?":
            ents.append(str(v).lower())
    return tuple(dict.fromkeys(ents))


@dataclass(frozen=True)
class Trigger:
    """Whether an observed event triggers retrieval, why, the entities it mentions for the first time and the
    subgoal it announces."""

    fire: bool
    reason: str  # "candidate_call" | "new_entity" | "subgoal" | "request" | ""
    new_entities: tuple[str, ...] = ()
    subgoal: str = ""


def read_statement(event: Event, vocab: Mapping[str, SlotTerms], reading: Any = None) -> Event:
    """`event` with the slot values of its text parsed by Pulse (requests and messages). With a
    reading layer (`pulse.reading.BoundReader`), the user's own words are also read: a value the
    tools' vocabulary missed fills its slot, and a value given in words nothing could bind marks the
    slot `UNREAD` (`pulse.core.statements`: the user chose it for this task; memory must not
    override it). A slot the vocabulary already read, or saw referred to ("my usual X"), stays."""
    if event.kind not in ("request", "message") or not vocab:
        return event
    args = parse_statement(event.text, vocab)
    if reading is not None and (event.kind == "request" or event.role == "user") and event.text.strip():
        for slot, value in reading.stated(event.text).items():
            if slot in vocab and slot not in args:  # "my usual X" (IMPLICIT) stays a reference
                args[slot] = value
    if event.kind == "message" and event.args.get(SUBGOAL_KEY):
        args = {SUBGOAL_KEY: event.args[SUBGOAL_KEY], **args}
    return replace(event, args=args)


def announced_subgoal(event: Event) -> str:
    """What an agent message says it will do next: its structured `subgoal` where the agent gives
    one, else the message's own words (a plan as an agent streams it; no structure needed)."""
    if event.kind != "message":
        return ""
    if event.args.get(SUBGOAL_KEY):
        return str(event.args[SUBGOAL_KEY])
    return event.text.strip()[:200] if event.role == "agent" else ""


@dataclass
class Listener:
    """Reads the task agent's events into a prefix and says which ones trigger retrieval; keeps the entities
    seen and the subgoals announced so far."""

    vocab: Mapping[str, SlotTerms] = field(default_factory=dict)
    reading: Any = None  # the reading layer bound to the tools (read_statement); None = vocabulary only
    prefix: list[Event] = field(default_factory=list)
    seen_entities: set[str] = field(default_factory=set)
    subgoals: list[str] = field(default_factory=list)

    def observe(self, event: Event) -> Trigger:
        """Append `event` (as Pulse reads it) to the prefix; say whether it triggers retrieval."""
        event = read_statement(event, self.vocab, self.reading)
        self.prefix.append(event)
        ents = event_entities(event)
        new = tuple(e for e in ents if e not in self.seen_entities)
        self.seen_entities.update(ents)
        subgoal = announced_subgoal(event)
        if event.kind == "request":
            return Trigger(True, "request", new, subgoal)
        if event.kind == "candidate_call":
            return Trigger(True, "candidate_call", new, subgoal)
        if subgoal and subgoal not in self.subgoals:
            self.subgoals.append(subgoal)
            return Trigger(True, "subgoal", new, subgoal)
        if event.kind == "message" and new:
            return Trigger(True, "new_entity", new, subgoal)
        return Trigger(False, "", new, subgoal)

    @property
    def current_subgoal(self) -> str:
        """The last subgoal announced ("" if none)."""
        return self.subgoals[-1] if self.subgoals else ""
