"""The gold decision: the one rule that says what a memory agent should do at a decision point.

`gold_decision(inp)` labels the generated data (data_gen asserts it on every example), is the
non-learned reference policy (`pulse.agent.rule_policy` calls it unchanged), and is what the policy
prompt exposes (`pulse.core.policy_io.render_compact` shows exactly the columns it reads). It reads
only what a deployed memory agent observes: the prefix (request and message `args` as parsed by
`pulse.core.statements`, structured candidate calls and tool results) and the retrieved memory.

Per slot the task has touched so far (`task_slots`):
- `stated`: what the *user* said (request, user messages): a value, "?" (referred to, not stated),
  "!" (a value for this task in words Pulse could not read) or "-" (not mentioned). A value the user
  stated overrides memory; so does "!": the task-specific request keeps its scope, and memory
  neither intervenes nor supplements on that slot.
- `ctx`: what the context before the newest event says, from anyone (user, agent, delivered memory).
- `now`: the newest event's value for the slot, "-" if absent.
- binding memory: CURRENT items of kind preference or project_state. Habits and superseded
  versions never trigger anything.

Decision:
- intervene (only at a candidate_call): some slot has now != "-", a binding item whose value
  differs from now, and the user did not state now. Evidence: those items.
- supplement (otherwise, at a candidate_call, tool_result or agent message): a slot the context
  leaves implicit ("?") has a binding item, and the newest event lacks it (now == "-") or is an
  agent message stating a different value (a message cannot be intervened on); or the newest event
  is an agent message (a plan) announcing a value the user did not state that a binding item
  contradicts: the call it announces is not committed yet, so the supplement reaches it first and
  no intervention is needed if the agent takes it. Evidence: those items.
- silent: everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from pulse.core.records import Decision, Event, MemoryItem
from pulse.core.statements import IMPLICIT, UNREAD
from pulse.core.values import allows

ABSENT = "-"
# Memory kinds that bind a tool argument when current (a habit describes, it does not bind).
BINDING_KINDS: tuple[str, ...] = ("preference", "project_state")
# Event args that are not slots: the subgoal an agent message announces.
NON_SLOT_KEYS = frozenset({"subgoal"})


def _slot_args(ev: Event) -> dict[str, str]:
    return {k: str(v) for k, v in ev.args.items() if k not in NON_SLOT_KEYS}


def _is_user(ev: Event) -> bool:
    return ev.kind == "request" or (ev.kind == "message" and ev.role == "user")


def _collect(events: Sequence[Event], keep) -> dict[str, str]:
    out: dict[str, str] = {}
    for ev in events:
        if ev.kind in ("request", "message") and keep(ev):
            for slot, value in _slot_args(ev).items():
                if value != IMPLICIT or slot not in out:  # a value replaces an earlier "?"
                    out[slot] = value
    return out


def user_stated(events: Sequence[Event]) -> dict[str, str]:
    """Slot -> value or "?" that the user stated (request and user messages)."""
    return _collect(events, _is_user)


def context_values(events: Sequence[Event]) -> dict[str, str]:
    """Slot -> value or "?" the context states, whoever stated it (user, agent, delivered memory)."""
    return _collect(events, lambda ev: True)


def task_slots(prefix: Sequence[Event]) -> tuple[str, ...]:
    """Slots the task has touched so far: in the request, messages or candidate calls, in order."""
    seen: dict[str, None] = {}
    for ev in prefix:
        if ev.kind in ("request", "message", "candidate_call"):
            seen.update(dict.fromkeys(_slot_args(ev)))
    return tuple(seen)


def binding_items(snapshot: Sequence[MemoryItem], slot: str) -> list[MemoryItem]:
    return [m for m in snapshot if m.slot == slot and m.is_current and m.kind in BINDING_KINDS]


def gold_decision(prefix: Sequence[Event], snapshot: Sequence[MemoryItem]) -> Decision:
    last = prefix[-1]
    earlier = prefix[:-1]
    stated, ctx = user_stated(earlier), context_values(earlier)
    slots = task_slots(prefix)

    if last.kind == "candidate_call":
        evidence = [
            m.item_id
            for s in slots
            if (now := last.args.get(s, ABSENT)) != ABSENT and stated.get(s, ABSENT) not in (now, UNREAD)
            for m in binding_items(snapshot, s)
            if not allows(m.value, now)
        ]
        if evidence:
            return Decision("intervene", tuple(dict.fromkeys(evidence)))

    agent_msg = last.kind == "message" and (last.role or "agent") == "agent"
    if last.kind in ("candidate_call", "tool_result") or agent_msg:
        evidence = []
        for s in slots:
            if stated.get(s) == UNREAD:
                continue  # the user chose this task's value in their own words: memory stays out
            now = last.args.get(s, ABSENT)
            if ctx.get(s, ABSENT) != IMPLICIT:
                # a plan that announces a value memory contradicts, which the user did not state:
                # the call is not committed yet, so the supplement reaches it before it is
                if agent_msg and now != ABSENT and stated.get(s, ABSENT) != now:
                    evidence += [m.item_id for m in binding_items(snapshot, s) if not allows(m.value, now)]
                continue
            evidence += [
                m.item_id
                for m in binding_items(snapshot, s)
                if now == ABSENT or (agent_msg and not allows(m.value, now))
            ]
        if evidence:
            return Decision("supplement", tuple(dict.fromkeys(evidence)))
    return Decision("silent")
