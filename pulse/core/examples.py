"""A labeled policy example and its on-disk row format (HF `datasets` column schema).

Rows store records as JSON strings so that arbitrary tool arguments survive Arrow's typed columns.
Prompts are *not* stored: they are rendered from the records by `pulse.core.policy_io` at load time,
so changing the prompt never requires regenerating data.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from pulse.core.policy_io import PolicyInput
from pulse.core.records import ACTIONS, Decision, Event, MemoryItem, RecordError

ROW_COLUMNS: tuple[str, ...] = (
    "example_id", "task_group", "user_id", "case_type", "label_action", "label_evidence",
    "prefix_json", "snapshot_json", "task_slots", "task_topic", "task_level", "as_of",
)


@dataclass(frozen=True)
class PolicyExample:
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


def example_from_row(row: Mapping[str, Any], where: str = "row") -> PolicyExample:
    """Validate a dataset row; errors name the row and the field."""
    missing = [c for c in ROW_COLUMNS if c not in row]
    if missing:
        raise RecordError(f"{where}: missing column(s) {missing}")
    try:
        prefix = tuple(Event.from_dict(e, f"{where} prefix[{i}]") for i, e in enumerate(json.loads(row["prefix_json"])))
        snapshot = tuple(MemoryItem.from_dict(m, f"{where} snapshot[{i}]")
                         for i, m in enumerate(json.loads(row["snapshot_json"])))
    except json.JSONDecodeError as e:
        raise RecordError(f"{where}: prefix_json/snapshot_json is not valid JSON ({e})") from None
    if not prefix:
        raise RecordError(f"{where}: prefix is empty")
    if row["label_action"] not in ACTIONS:
        raise RecordError(f"{where}: label_action {row['label_action']!r} not in {ACTIONS}")
    if row["label_action"] == "intervene" and prefix[-1].kind != "candidate_call":
        raise RecordError(f"{where}: label intervene but the last event is a {prefix[-1].kind}, not a candidate_call")
    ids = {m.item_id for m in snapshot}
    bad = [e for e in row["label_evidence"] if e not in ids]
    if bad:
        raise RecordError(f"{where}: label_evidence {bad} not in the memory snapshot")
    return PolicyExample(row["example_id"], row["task_group"], row["user_id"], row["case_type"],
                         PolicyInput(prefix, snapshot), Decision(row["label_action"], tuple(row["label_evidence"])),
                         row["as_of"], tuple(row["task_slots"]), row["task_topic"], int(row["task_level"]))
