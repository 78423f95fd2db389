"""Core records shared by every part of Pulse (DESIGN §1 "Core records").

Events are what the memory agent observes, memory items are what it knows, decisions are what it
does. All records are frozen dataclasses with a JSON round trip (`to_dict` / `from_dict`) so they
can live in HF datasets, SQLite rows and JSONL run logs alike. `from_dict` validates (field names,
required fields, and the type of every field: a number where a string belongs is refused, not
coerced) and raises `RecordError` naming the offending field, so a malformed dataset row or snapshot
fails with a clear message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pulse.core.errors import PulseUserError

EventKind = Literal["request", "message", "candidate_call", "tool_result", "task_end"]
EVENT_KINDS: tuple[str, ...] = ("request", "message", "candidate_call", "tool_result", "task_end")

Action = Literal["silent", "supplement", "intervene"]
ACTIONS: tuple[str, ...] = ("silent", "supplement", "intervene")

# Memory item kinds. `preference` is a constraint the user holds; `habit` is an observed regularity
# that must NOT be enforced as a constraint (the paper's Notion-vs-Obsidian case); `attribute` is a
# plain user fact; `workflow` and `project_state` belong to project memory.
MemoryKind = Literal["preference", "habit", "attribute", "withdrawal", "workflow", "project_state"]
MEMORY_KINDS: tuple[str, ...] = (
    "preference",
    "habit",
    "attribute",
    "withdrawal",
    "workflow",
    "project_state",
)
# What a user states about themselves: versions of one fact per slot and context (the newer
# supersedes). A `withdrawal` ("I no longer want the lunch hour") ends the fact it revises and binds
# nothing itself.
USER_FACT_KINDS: tuple[str, ...] = ("preference", "habit", "attribute", "withdrawal")

SourceKind = Literal["user_statement", "tool_receipt", "history", "system"]
SOURCE_KINDS: tuple[str, ...] = ("user_statement", "tool_receipt", "history", "system")


class RecordError(PulseUserError, ValueError):
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


def _shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_str_fields(d: Mapping[str, Any], names: tuple[str, ...], where: str) -> None:
    """Every named field that is present must be a string (a number or a list is not coerced)."""
    for name in names:
        if name in d:
            v = d[name]
            _require(
                isinstance(v, str),
                where,
                f"field {name!r} must be a string, got {type(v).__name__} {_shown(v)}",
            )


def _check_str_list(v: Any, name: str, where: str) -> tuple[str, ...]:
    _require(
        isinstance(v, (list, tuple)),
        where,
        f"field {name!r} must be a list of strings, got {type(v).__name__} {_shown(v)}",
    )
    bad = [x for x in v if not isinstance(x, str)]
    _require(
        not bad, where, f"field {name!r} must be a list of strings; {_shown(bad[0]) if bad else ''} is not"
    )
    return tuple(v)


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
        _require(
            all(isinstance(k, str) and isinstance(v, str) for k, v in self.args.items()),
            where,
            "args must map str to str",
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "event") -> Event:
        names = {f for f in cls.__dataclass_fields__}
        _check_keys(d, names, {"kind", "step"}, where)
        _check_str_fields(d, ("kind", "time", "text", "tool", "role", "event_id"), where)
        step = d["step"]
        _require(
            isinstance(step, int) and not isinstance(step, bool),
            where,
            f"field 'step' must be an integer, got {type(step).__name__} {_shown(step)}",
        )
        _require(
            isinstance(d.get("args", {}), Mapping),
            where,
            f"field 'args' must be an object of strings, got {type(d.get('args')).__name__}",
        )
        try:
            return cls(**{k: (dict(v) if k == "args" else v) for k, v in d.items()})
        except (TypeError, ValueError) as e:
            raise RecordError(f"{where}: {e}") from None


# Sources whose text is untrusted data: a tool result (search hits, web pages, API payloads) may say
# anything, including "IGNORE PREVIOUS INSTRUCTIONS". Such text is stored as data and every renderer
# shows it quoted (`quote_untrusted`), never as an instruction and never as the user's voice.
UNTRUSTED_SOURCES: frozenset[str] = frozenset({"tool_receipt"})


@dataclass(frozen=True)
class Provenance:
    """Where a memory item came from: the source kind (a user statement, a tool receipt, history, the system),
    the event it was read from and the source's own words (`quote`). `untrusted` is True for tool output: data
    to quote, never an instruction."""

    source_kind: SourceKind
    event_id: str = ""
    quote: str = ""  # the source's own words that back the record (the user's, or a receipt's data)

    @property
    def untrusted(self) -> bool:
        """True when the record's words came from a tool result: data to quote, never to obey."""
        return self.source_kind in UNTRUSTED_SOURCES


def quote_untrusted(text: str, limit: int = 240) -> str:
    """Untrusted text as one quoted, escaped string literal: newlines and quotes inside it cannot
    end the quotation or start a line that reads like an instruction."""
    text = text if len(text) <= limit else text[: limit - 1] + "\u2026"
    return json.dumps(text, ensure_ascii=False)


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
        _require(
            self.scope.startswith(("user:", "project:")),
            where,
            f"scope {self.scope!r} must start with 'user:' or 'project:'",
        )
        _require(
            self.provenance.source_kind in SOURCE_KINDS,
            where,
            f"provenance.source_kind {self.provenance.source_kind!r} not in {SOURCE_KINDS}",
        )

    def is_valid_at(self, time: str) -> bool:
        """ISO-8601 strings compare lexically; an empty bound is open."""
        return (not self.valid_from or self.valid_from <= time) and (
            not self.valid_to or time < self.valid_to
        )

    @property
    def is_current(self) -> bool:
        return not self.valid_to

    @property
    def untrusted(self) -> bool:
        """The record's text or quote carries tool-result words (see `Provenance.untrusted`)."""
        return self.provenance.untrusted

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["entities"] = list(self.entities)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "memory item") -> MemoryItem:
        names = set(cls.__dataclass_fields__)
        _check_keys(d, names, {"item_id", "kind", "scope", "text"}, where)
        _check_str_fields(
            d,
            (
                "item_id",
                "kind",
                "scope",
                "text",
                "slot",
                "value",
                "topic",
                "conditions",
                "valid_from",
                "valid_to",
                "supersedes",
            ),
            where,
        )
        d = dict(d)
        prov = d.get("provenance")
        if prov is None:
            prov = {"source_kind": "history"}
        _check_keys(prov, {"source_kind", "event_id", "quote"}, {"source_kind"}, f"{where}: provenance")
        _check_str_fields(prov, ("source_kind", "event_id", "quote"), f"{where}: provenance")
        d["entities"] = _check_str_list(d.get("entities") or (), "entities", where)
        try:
            d["provenance"] = Provenance(**prov)
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
    def from_dict(cls, d: Mapping[str, Any], where: str = "decision") -> Decision:
        _check_keys(d, {"action", "evidence", "message"}, {"action"}, where)
        _check_str_fields(d, ("action", "message"), where)
        _check_str_list(d.get("evidence") or (), "evidence", where)
        try:
            return cls(
                action=d["action"], evidence=tuple(d.get("evidence") or ()), message=d.get("message", "")
            )
        except (TypeError, ValueError) as e:
            raise RecordError(f"{where}: {e}") from None


SILENT = Decision("silent")
