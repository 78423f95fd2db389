"""A labeled policy example and its on-disk row format (HF `datasets` column schema).

Rows store records as JSON strings so that arbitrary tool arguments survive Arrow's typed columns.
Prompts are *not* stored: they are rendered from the records by `pulse.core.policy_io` at load time,
so changing the prompt never requires regenerating data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulse.core.policy_io import PolicyInput
from pulse.core.records import ACTIONS, Decision, Event, MemoryItem, RecordError
from pulse.utils.json_input import parse_json

ROW_COLUMNS: tuple[str, ...] = (
    "example_id",
    "task_group",
    "user_id",
    "case_type",
    "label_action",
    "label_evidence",
    "prefix_json",
    "snapshot_json",
    "task_slots",
    "task_topic",
    "task_level",
    "as_of",
)


@dataclass(frozen=True)
class PolicyExample:
    """One labelled policy example: the `PolicyInput` (event prefix and memory snapshot), the gold `Decision`,
    its ids and case type, the snapshot's cutoff, and the generator's labels kept for slicing metrics (never
    shown to the policy). `to_row()` gives its dataset row; `example_from_row` reads one back."""

    example_id: str
    task_group: str
    user_id: str
    case_type: str  # e.g. conflict, consistent, irrelevant, habit, revised_old, omitted, misstated
    inp: PolicyInput
    gold: Decision
    as_of: str = ""  # information cutoff of the snapshot (ISO-8601)
    # Generator labels kept for slicing metrics only; the policy never sees them (not in `inp`).
    task_slots: tuple[str, ...] = ()
    task_topic: str = ""
    task_level: int = 0

    def to_row(self) -> dict[str, Any]:
        return {
            "example_id": self.example_id,
            "task_group": self.task_group,
            "user_id": self.user_id,
            "case_type": self.case_type,
            "label_action": self.gold.action,
            "label_evidence": list(self.gold.evidence),
            "prefix_json": json.dumps([e.to_dict() for e in self.inp.prefix]),
            "snapshot_json": json.dumps([m.to_dict() for m in self.inp.snapshot]),
            "task_slots": list(self.task_slots),
            "task_topic": self.task_topic,
            "task_level": self.task_level,
            "as_of": self.as_of,
        }


_STR_COLUMNS = ("example_id", "task_group", "user_id", "case_type", "label_action", "task_topic", "as_of")
_LIST_COLUMNS = ("label_evidence", "task_slots")


def _json_list(row: Mapping[str, Any], col: str, where: str) -> list[Any]:
    raw = row[col]
    if not isinstance(raw, str):
        raise RecordError(f"{where} column {col!r}: expected a JSON string, got {type(raw).__name__}")
    val = parse_json(raw, f"{where} column {col!r}", RecordError)
    if not isinstance(val, list):
        raise RecordError(
            f"{where} column {col!r}: expected a JSON list of objects, got {type(val).__name__}"
        )
    return val


def example_from_row(row: Mapping[str, Any], where: str = "row") -> PolicyExample:
    """Validate a dataset row; every error is a RecordError naming the row (`where`) and the column
    (and, inside prefix_json / snapshot_json, the record index and field)."""
    if not isinstance(row, Mapping):
        raise RecordError(f"{where}: expected a row object, got {type(row).__name__}")
    missing = [c for c in ROW_COLUMNS if c not in row]
    if missing:
        raise RecordError(f"{where}: missing column(s) {missing}")
    for col in _STR_COLUMNS:
        if not isinstance(row[col], str):
            raise RecordError(
                f"{where} column {col!r}: expected a string, got {type(row[col]).__name__} {row[col]!r:.60}"
            )
    for col in _LIST_COLUMNS:
        v = row[col]
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
            raise RecordError(f"{where} column {col!r}: expected a list of strings, got {v!r:.60}")
    level = row["task_level"]
    if not isinstance(level, int) or isinstance(level, bool):
        raise RecordError(
            f"{where} column 'task_level': expected an integer, got {type(level).__name__} {level!r:.60}"
        )
    if row["as_of"]:
        from datetime import datetime

        try:
            datetime.fromisoformat(row["as_of"])
        except ValueError:
            raise RecordError(
                f"{where} column 'as_of': {row['as_of']!r:.60} is not an ISO-8601 time"
            ) from None
    prefix = tuple(
        Event.from_dict(e, f"{where} column 'prefix_json' [{i}]")
        for i, e in enumerate(_json_list(row, "prefix_json", where))
    )
    snapshot = tuple(
        MemoryItem.from_dict(m, f"{where} column 'snapshot_json' [{i}]")
        for i, m in enumerate(_json_list(row, "snapshot_json", where))
    )
    if not prefix:
        raise RecordError(
            f"{where} column 'prefix_json': the prefix is empty (a decision needs at least one event)"
        )
    if row["label_action"] not in ACTIONS:
        raise RecordError(f"{where} column 'label_action': {row['label_action']!r} not in {ACTIONS}")
    if row["label_action"] == "intervene" and prefix[-1].kind != "candidate_call":
        raise RecordError(
            f"{where} column 'label_action': intervene but the last event is a {prefix[-1].kind}, "
            f"not a candidate_call"
        )
    ids = [m.item_id for m in snapshot]
    dup = next((i for i in ids if ids.count(i) > 1), None) if len(set(ids)) != len(ids) else None
    if dup is not None:
        raise RecordError(f"{where} column 'snapshot_json': item_id {dup!r} appears twice")
    bad = [e for e in row["label_evidence"] if e not in set(ids)]
    if bad:
        raise RecordError(f"{where} column 'label_evidence': {bad} not in the memory snapshot")
    return PolicyExample(
        row["example_id"],
        row["task_group"],
        row["user_id"],
        row["case_type"],
        PolicyInput(prefix, snapshot),
        Decision(row["label_action"], tuple(row["label_evidence"])),
        row["as_of"],
        tuple(row["task_slots"]),
        row["task_topic"],
        level,
    )
