"""The gold label of a decision point, computed from the `PolicyInput` alone.

One function, `gold_decision`, used by the generator and asserted by the tests. It reads exactly
what the compact prompt (`pulse.core.policy_io.render_compact`) shows per task slot:
`req` (what the request and earlier messages state: a value, "?" implicit, "-" absent), `now`
(the newest event's args value, "-" if absent) and the memory items for the slot.

- intervene (only at a candidate_call): some slot has now != "-", a CURRENT preference for the slot
  differs from now, and the context does not state now (an explicit request value overrides
  memory). Evidence: those current preferences.
- supplement (otherwise): some slot the context marks implicit ("?") has a current preference, and
  the newest event is a choice point that lacks it: a candidate_call, tool_result or agent message
  with now == "-" (omitted), or an agent message stating a different value (misstated; a message
  cannot be intervened on). Evidence: those preferences.
- silent: everything else. Habits and superseded versions never trigger anything.

Run the unit tests: `.venv/bin/python -m pytest tests/data_gen -q`.
"""
from __future__ import annotations

from pulse.core.policy_io import ABSENT, IMPLICIT, PolicyInput, context_slot_values
from pulse.core.records import Decision, MemoryItem


def task_slots_of(inp: PolicyInput) -> tuple[str, ...]:
    """The slots the compact prompt shows lines for (same fallback as render_compact)."""
    return tuple(inp.task_slots) or tuple(sorted({m.slot for m in inp.snapshot if m.slot}))


def current_preferences(inp: PolicyInput, slot: str) -> list[MemoryItem]:
    return [m for m in inp.snapshot if m.slot == slot and m.kind == "preference" and m.is_current]


def gold_decision(inp: PolicyInput) -> Decision:
    last = inp.last_event
    ctx = context_slot_values(inp.prefix)
    slots = task_slots_of(inp)

    if last.kind == "candidate_call":
        evidence = [m.item_id for s in slots
                    for m in current_preferences(inp, s)
                    if (now := last.args.get(s, ABSENT)) != ABSENT and m.value != now and ctx.get(s, ABSENT) != now]
        if evidence:
            return Decision("intervene", tuple(dict.fromkeys(evidence)))

    agent_msg = last.kind == "message" and (last.role or "agent") == "agent"
    if last.kind in ("candidate_call", "tool_result") or agent_msg:
        evidence = []
        for s in slots:
            if ctx.get(s, ABSENT) != IMPLICIT:
                continue
            now = last.args.get(s, ABSENT)
            for m in current_preferences(inp, s):
                if now == ABSENT or (agent_msg and now != m.value):
                    evidence.append(m.item_id)
        if evidence:
            return Decision("supplement", tuple(dict.fromkeys(evidence)))
    return Decision("silent")
