"""Core records shared by every part of Pulse (DESIGN §1 "Core records").

Events are what the memory agent observes, memory items are what it knows, decisions are what it
does. All records are frozen dataclasses with a JSON round trip (`to_dict` / `from_dict`) so they
can live in HF datasets, SQLite rows and JSONL run logs alike. `from_dict` validates and raises
`RecordError` naming the offending field, so a malformed dataset row fails with a clear message.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Mapping

EventKind = Literal["request", "message", "candidate_call", "tool_result", "task_end"]
EVENT_KINDS: tuple[str, ...] = ("request", "message", "candidate_call", "tool_result", "task_end")

Action = Literal["silent", "supplement", "intervene"]
ACTIONS: tuple[str, ...] = ("silent", "supplement", "intervene")

# Memory item kinds. `preference` is a constraint the user holds; `habit` is an observed regularity
# that must NOT be enforced as a constraint (the paper's Notion-vs-Obsidian case); `attribute` is a
# plain user fact; `workflow` and `project_state` belong to project memory.
MemoryKind = Literal["preference", "habit", "attribute", "workflow", "project_state"]
MEMORY_KINDS: tuple[str, ...] = ("preference", "habit", "attribute", "workflow", "project_state")

SourceKind = Literal["user_statement", "tool_receipt", "history", "system"]
SOURCE_KINDS: tuple[str, ...] = ("user_statement", "tool_receipt", "history", "system")


class RecordError(ValueError):
    """A record (event, memory item, decision) failed validation; the message names the field."""


def _require(cond: bool, where: str, msg: str) -> None:
    if not cond:
        raise RecordError(f"{where}: {msg}")


def _check_keys(d: Mapping[str, Any], allowed: set[str], required: set[str], where: str) -> None:
    _require(isinstance(d, Mapping), where, f"expected an object, got {type(d).__name__}")
    unknown = set(d) - allowed
    _require(not unknown, where, f"unknown field(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    missing = required - set(d)
    _require(not missing, where, f"missing field(s) {sorted(missing)}")


@dataclass(frozen=True)
class Event:
    """One public event of the task agent's trajectory.

    `args` carries structured content: a candidate call's tool arguments, the explicit slot values
    a request states, a tool result's fields. `text` is the human-readable form.
    """

    kind: EventKind
    step: int
    time: str = ""  # ISO-8601; "" when the source has no clock
    text: str = ""
    tool: str = ""  # candidate_call / tool_result only
    args: dict[str, str] = field(default_factory=dict)
    role: str = ""  # message only: "user" or "agent"
    event_id: str = ""

    def __post_init__(self) -> None:
        where = f"event {self.event_id or self.step}"
        _require(self.kind in EVENT_KINDS, where, f"kind {self.kind!r} not in {EVENT_KINDS}")
        _require(isinstance(self.step, int) and self.step >= 0, where, "step must be an int >= 0")
        if self.kind in ("candidate_call", "tool_result"):
            _require(bool(self.tool), where, f"a {self.kind} needs a tool name")
        _require(all(isinstance(k, str) and isinstance(v, str) for k, v in self.args.items()),
                 where, "args must map str to str")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "event") -> "Event":
        names = {f for f in cls.__dataclass_fields__}
        _check_keys(d, names, {"kind", "step"}, where)
        try:
            return cls(**{k: (dict(v) if k == "args" else v) for k, v in d.items()})
        except (TypeError, ValueError) as e:
            raise RecordError(f"{where}: {e}") from None


@dataclass(frozen=True)
class Provenance:
    source_kind: SourceKind
    event_id: str = ""
    quote: str = ""


@dataclass(frozen=True)
class MemoryItem:
    """A user fact, workflow or project-state record.

    `slot`/`value` hold the structured content (e.g. slot "size", value "32x32") when the fact has
    one; `text` is always a readable sentence. Validity is [valid_from, valid_to); valid_to "" means
    still valid. A revision never overwrites: the new record names the old one in `supersedes` and
    the old one's valid_to is set.
    """

    item_id: str
    kind: MemoryKind
    scope: str  # "user:<id>" or "project:<id>"
    text: str
    slot: str = ""
    value: str = ""
    topic: str = ""
    entities: tuple[str, ...] = ()
    conditions: str = ""  # applicability conditions, free text
    provenance: Provenance = Provenance("history")
    valid_from: str = ""
    valid_to: str = ""
    supersedes: str = ""

    def __post_init__(self) -> None:
        where = f"memory item {self.item_id or '?'}"
        _require(bool(self.item_id), where, "item_id must be non-empty")
        _require(self.kind in MEMORY_KINDS, where, f"kind {self.kind!r} not in {MEMORY_KINDS}")
        _require(self.scope.startswith(("user:", "project:")), where,
                 f"scope {self.scope!r} must start with 'user:' or 'project:'")
        _require(self.provenance.source_kind in SOURCE_KINDS, where,
                 f"provenance.source_kind {self.provenance.source_kind!r} not in {SOURCE_KINDS}")

    def is_valid_at(self, time: str) -> bool:
        """ISO-8601 strings compare lexically; an empty bound is open."""
        return (not self.valid_from or self.valid_from <= time) and (not self.valid_to or time < self.valid_to)

    @property
    def is_current(self) -> bool:
        return not self.valid_to

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["entities"] = list(self.entities)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "memory item") -> "MemoryItem":
        names = set(cls.__dataclass_fields__)
        _check_keys(d, names, {"item_id", "kind", "scope", "text"}, where)
        d = dict(d)
        prov = d.get("provenance") or {"source_kind": "history"}
        try:
            d["provenance"] = Provenance(**prov)
            d["entities"] = tuple(d.get("entities") or ())
            return cls(**d)
        except (TypeError, ValueError) as e:
            raise RecordError(f"{where}: {e}") from None


@dataclass(frozen=True)
class Decision:
    """What the memory agent does at one event. `intervene` is legal only at a candidate_call."""

    action: Action
    evidence: tuple[str, ...] = ()
    message: str = ""

    def __post_init__(self) -> None:
        _require(self.action in ACTIONS, "decision", f"action {self.action!r} not in {ACTIONS}")

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "evidence": list(self.evidence), "message": self.message}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "decision") -> "Decision":
        _check_keys(d, {"action", "evidence", "message"}, {"action"}, where)
        try:
            return cls(action=d["action"], evidence=tuple(d.get("evidence") or ()), message=d.get("message", ""))
        except (TypeError, ValueError) as e:
            raise RecordError(f"{where}: {e}") from None


SILENT = Decision("silent")
