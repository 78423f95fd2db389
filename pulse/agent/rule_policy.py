"""A non-learned reference policy with the Policy interface (no language model).

It applies the labelling rules the trained policy is meant to learn, to the same PolicyInput:
- at a candidate call, intervene when an argument contradicts a *current* preference or project
  decision in the snapshot and the context does not state that argument explicitly; never for a
  habit; superseded items do not count;
- at other events, supplement current preferences/decisions for slots the event brings up that
  the context does not state yet;
- otherwise silent.
It is an upper-bound reference row (`method=pulse_rule`), reported as such; it is not the paper's
method. Its completions are the canonical JSON, so stats and parse counters work unchanged.
"""
from __future__ import annotations

from typing import Sequence

from pulse.core.policy_io import IMPLICIT, PolicyInput, context_slot_values, parse_completion, render_completion
from pulse.core.records import Decision
from pulse.policy.base import PolicyOutput

BINDING_KINDS = ("preference", "project_state")


def rule_decision(inp: PolicyInput) -> Decision:
    last = inp.last_event
    ctx = context_slot_values(inp.prefix)
    current = [m for m in inp.snapshot if m.is_current and m.kind in BINDING_KINDS and m.slot]
    if last.kind == "candidate_call":
        conflicts = [m.item_id for m in current
                     if m.slot in last.args and last.args[m.slot] != m.value
                     and ctx.get(m.slot, IMPLICIT) == IMPLICIT]
        if conflicts:
            return Decision("intervene", tuple(dict.fromkeys(conflicts)))
        return Decision("silent")
    if last.kind in ("message", "request"):
        wanted = set(inp.task_slots)
        missing = [m.item_id for m in current if m.slot in wanted and ctx.get(m.slot, IMPLICIT) == IMPLICIT]
        if missing:
            return Decision("supplement", tuple(dict.fromkeys(missing)))
    return Decision("silent")


class RulePolicy:
    name = "rule"

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        outs = []
        for inp in inputs:
            text = render_completion(rule_decision(inp))
            parsed = parse_completion(text)
            outs.append(PolicyOutput(parsed.decision_or_silent(), parsed, text, 0))
        return outs
