"""A decision only when one is needed: the exact, cheap pre-check before a policy call.

The memory agent asks its policy only where memory could change what the task agent does next. At
a decision point (the prefix Pulse has read and the items retrieval returned) memory can matter only
through a *binding* item (a current preference or project decision, `pulse.core.gold.binding_items`)
for a slot the task has touched (`task_slots`) that
- the newest event states with another value (a candidate call or a plan it could still change), or
- the context leaves implicit ("my usual ...": `?`) and the newest event does not state it;
and only at what the task agent does (a candidate call, a tool result, its own message): a user's
message or request is read, and memory answers what the agent does with it.
Where none holds the gold rule is silent, and so the policy is not called: `needs_decision` is a
superset of every condition under which `pulse.core.gold.gold_decision` supplements or intervenes
(tests check it on every decision point of the offline suites), so skipping never hides an action
the rule would take. A learned policy may act where the rule is silent; the pre-check trades those
(rare, mostly wrong) actions for not waiting on the policy at all.
"""

from __future__ import annotations

from pulse.core.gold import ABSENT, binding_items, context_values, task_slots
from pulse.core.policy_io import PolicyInput
from pulse.core.statements import IMPLICIT


def needs_decision(inp: PolicyInput) -> bool:
    prefix, last = inp.prefix, inp.prefix[-1]
    if last.kind not in ("candidate_call", "tool_result") and not (
        last.kind == "message" and (last.role or "agent") == "agent"
    ):
        return False  # the user's own words: memory waits for what the agent does with them
    ctx = context_values(prefix[:-1])
    for slot in task_slots(prefix):
        items = binding_items(inp.snapshot, slot)
        if not items:
            continue
        now = str(last.args.get(slot, ABSENT))
        if now != ABSENT and any(m.value != now for m in items):
            return True  # a value memory contradicts
        if ctx.get(slot, ABSENT) == IMPLICIT and now == ABSENT:
            return True  # "my usual ...": memory holds what the user refers to, and nothing states it
    return False
