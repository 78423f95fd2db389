"""Project memory records: reusable workflows and current project state, as `MemoryItem`s.

Project memory lives in scope "project:<id>", isolated from every other project. Two kinds:

- `workflow`: goal, applicability conditions, ordered steps with their tools and input/output
  dependencies. The structure is JSON in `MemoryItem.value` (slot "workflow:<name>") so a workflow
  survives every path a `MemoryItem` travels (snapshots, dataset rows, prompts) without a new field.
- `project_state`: accepted decisions, artifact versions, progress, pending items, stage summaries.
  The state kind is the slot prefix ("artifact:report.pdf" = "v3"); a new version of the same slot
  supersedes the old one, so artifact history is the supersession chain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pulse.core.records import MemoryItem, Provenance, RecordError

# decision: an accepted choice; artifact: a named output and its version; progress: a step done;
# pending: an open item; stage: a stage summary.
STATE_KINDS: tuple[str, ...] = ("decision", "artifact", "progress", "pending", "stage")
# Receipts, not statements, confirm these: only an executed tool call proves progress or a version.
RECEIPT_ONLY_STATE_KINDS: frozenset[str] = frozenset({"artifact", "progress"})
_SYSTEM = Provenance("system")  # the default provenance of a workflow record the system writes


def state_slot(state_kind: str, name: str) -> str:
    """The slot of a project-state record, "<state_kind>:<name>"; raises RecordError for a state kind not in
    STATE_KINDS."""
    if state_kind not in STATE_KINDS:
        raise RecordError(f"state kind {state_kind!r} not in {STATE_KINDS}")
    return f"{state_kind}:{name}"


def state_kind_of(item: MemoryItem) -> str:
    """The state kind of a project_state item ("" when its slot carries none)."""
    head = item.slot.split(":", 1)[0]
    return head if item.kind == "project_state" and head in STATE_KINDS else ""


@dataclass(frozen=True)
class WorkflowStep:
    """One step of a workflow: its name, tool, inputs, outputs and the earlier steps it depends on."""

    name: str
    tool: str = ""
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    depends_on: tuple[int, ...] = ()  # indices of earlier steps whose outputs this step consumes


@dataclass(frozen=True)
class Workflow:
    """A reusable project workflow: name, goal, applicability conditions and ordered steps; raises RecordError
    when a step depends on a step that is not an earlier one."""

    name: str
    goal: str
    conditions: str = ""
    steps: tuple[WorkflowStep, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for i, s in enumerate(self.steps):
            bad = [d for d in s.depends_on if not 0 <= d < i]
            if bad:
                raise RecordError(
                    f"workflow {self.name!r} step {i} ({s.name}): depends_on {bad} must name earlier steps"
                )

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools the steps use, in first-use order, without repeats."""
        return tuple(dict.fromkeys(s.tool for s in self.steps if s.tool))

    def render(self) -> str:
        """The workflow as one line of text (the item's text): goal, conditions, numbered steps with their
        tools and dependencies."""
        steps = "; ".join(
            f"{i + 1}. {s.name}"
            + (f" [{s.tool}]" if s.tool else "")
            + (f" after {', '.join(str(d + 1) for d in s.depends_on)}" if s.depends_on else "")
            for i, s in enumerate(self.steps)
        )
        return (
            f"Workflow '{self.name}' for {self.goal}"
            + (f" (when {self.conditions})" if self.conditions else "")
            + (f": {steps}" if steps else "")
        )

    def to_json(self) -> str:
        """The goal and steps as sorted-key JSON (the item's value)."""
        return json.dumps(
            {
                "goal": self.goal,
                "steps": [
                    {
                        "name": s.name,
                        "tool": s.tool,
                        "inputs": list(s.inputs),
                        "outputs": list(s.outputs),
                        "depends_on": list(s.depends_on),
                    }
                    for s in self.steps
                ],
            },
            sort_keys=True,
        )

    def to_item(
        self,
        item_id: str,
        project_id: str,
        provenance: Provenance = _SYSTEM,
        valid_from: str = "",
        topic: str = "workflows",
        entities: tuple[str, ...] = (),
    ) -> MemoryItem:
        """The workflow as a `workflow` memory item in scope "project:<project_id>", slot
        "workflow:<name>"."""
        return MemoryItem(
            item_id=item_id,
            kind="workflow",
            scope=f"project:{project_id}",
            text=self.render(),
            slot=f"workflow:{self.name}",
            value=self.to_json(),
            topic=topic,
            entities=entities,
            conditions=self.conditions,
            provenance=provenance,
            valid_from=valid_from,
        )

    @classmethod
    def from_item(cls, item: MemoryItem) -> Workflow:
        """Parse a workflow item; an item whose value is not workflow JSON is a text-only workflow."""
        name = item.slot.split(":", 1)[1] if item.slot.startswith("workflow:") else item.item_id
        try:
            d: Any = json.loads(item.value) if item.value else {}
        except (json.JSONDecodeError, RecursionError):  # not workflow JSON (or nested past the parser)
            d = {}
        if not isinstance(d, dict):
            d = {}
        try:
            steps = tuple(
                WorkflowStep(
                    name=str(s["name"]),
                    tool=str(s.get("tool", "")),
                    inputs=tuple(s.get("inputs", ())),
                    outputs=tuple(s.get("outputs", ())),
                    depends_on=tuple(int(x) for x in s.get("depends_on", ())),
                )
                for s in d.get("steps", ())
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise RecordError(f"memory item {item.item_id}: malformed workflow steps ({e})") from None
        return cls(name=name, goal=str(d.get("goal", item.text)), conditions=item.conditions, steps=steps)
