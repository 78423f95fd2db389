"""A decision only when one is needed: the exact, cheap pre-check before a policy call.

The memory agent asks its policy only where memory could change what the task agent does next. At
a decision point (the prefix Pulse has read and the items retrieval returned) memory can matter only
through a *binding* item (a current preference or project decision, `pulse.core.gold.binding_items`)
for a slot the task has touched (`task_slots`) where
- the newest event is something the task agent is about to do (a candidate call, or its own message
  announcing one) and states another value than memory, a value the user did not state in this
  task (the user's word in this task wins over memory: the gate's view on real tools drops such items
  too), or the slot is one the user referred to as "my usual ..." (`?`); or
- the context leaves the slot implicit ("my usual ...") and the newest event does not state it.
At a candidate call that can no longer be held (`can_hold=False`: the gate's one hold on this call
and its revisions is spent, `PulseAgentConfig.max_holds_per_call`) a contradicted value is no
decision point either: the only action it calls for is an intervention, which would pass as silent;
only what memory can still supplement (an implicit slot the call leaves open) counts.
Events that are not the task agent's next step are not decision points: a user's message or request
is read, and memory answers what the agent does with it; a tool result reports a call that has
already happened, so a value it states cannot be changed any more (an implicit slot it leaves open
still can be, for what the agent does next).
Where none holds the gold rule is silent, and so the policy is not called: `needs_decision` is a
superset of every condition under which `pulse.core.gold.gold_decision` supplements or intervenes
(tests check it on every decision point of the offline suites), so skipping never hides an action
the rule would take. A learned policy may act where the rule is silent; the pre-check trades those
(rare, mostly wrong) actions for not waiting on the policy at all.
"""

from __future__ import annotations

from pulse.core.gold import ABSENT, binding_items, context_values, task_slots, user_stated
from pulse.core.policy_io import PolicyInput
from pulse.core.statements import IMPLICIT, UNREAD
from pulse.core.values import allows


def needs_decision(inp: PolicyInput, can_hold: bool = True) -> bool:
    """Whether the policy must be asked at this decision point (the module docstring): False only where the
    gold rule is sure to be silent."""
    prefix, last = inp.prefix, inp.prefix[-1]
    if last.kind not in ("candidate_call", "tool_result") and not (
        last.kind == "message" and (last.role or "agent") == "agent"
    ):
        return False  # the user's own words: memory waits for what the agent does with them
    earlier = prefix[:-1]
    ctx, stated = context_values(earlier), user_stated(earlier)
    for slot in task_slots(prefix):
        items = binding_items(inp.snapshot, slot)
        if not items or stated.get(slot) == UNREAD:
            continue  # no memory, or the user chose this task's value in words Pulse could not read
        now = str(last.args.get(slot, ABSENT))
        implicit = ctx.get(slot, ABSENT) == IMPLICIT
        if now == ABSENT:
            if implicit:
                return True  # "my usual ...": memory holds what the user refers to, and nothing states it
            continue
        if last.kind == "tool_result" or (last.kind == "candidate_call" and not can_hold):
            continue  # done already, or passing whatever memory says: the value cannot be changed now
        if any(not allows(m.value, now) for m in items) and (implicit or stated.get(slot, ABSENT) != now):
            return True  # a value memory contradicts, which the user did not state in this task
    return False
