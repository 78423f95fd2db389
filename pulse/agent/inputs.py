"""What the policy sees at a decision point: retrieval, the scope rules, the gate view, the prefix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pulse.agent.gate_view import gate_view
from pulse.agent.listener import Listener, Trigger, event_entities
from pulse.agent.precheck import needs_decision
from pulse.agent.schema import ArgMapper, SchemaTool
from pulse.agent.scope import ScopeFilter
from pulse.agent.stats import AgentStats
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Event, MemoryItem
from pulse.memory.interface import Memory, RetrievalQuery
from pulse.memory.project import state_kind_of


class DecisionInputs:
    """Builds one task's policy inputs: the one code path of every decision point (an event's, the
    gate's, and a speculative gate input).

    Args: the task's `memory`, `config` (a `PulseAgentConfig`), `listener`, tools by name and their
    `mapper`, and the agent's `stats`, `delivered` item ids and `holds` (tool -> holds), which it
    reads (and counts retrievals in) but never replaces.
    """

    def __init__(
        self,
        memory: Memory,
        config,
        listener: Listener,
        tools: dict[str, SchemaTool],
        mapper: ArgMapper,
        stats: AgentStats,
        delivered: list[str],
        holds: dict[str, int],
    ):
        self.memory, self.config, self.listener = memory, config, listener
        self.tools, self.mapper, self.stats = tools, mapper, stats
        self.delivered, self.holds = delivered, holds
        self.scope = ScopeFilter(config, listener, tools, self.snapshot)
        self.scoped_out = 0  # facts the scope rules dropped from counted retrievals

    def snapshot(self) -> list[MemoryItem] | None:
        """The user's memory items as this task may see them: long-term memory and this task's own
        one-offs, never another task's (None where the memory keeps no snapshot)."""
        with_meta = getattr(self.memory, "snapshot_with_meta", None)
        if callable(with_meta):
            task = self.config.conversation_id
            seen = with_meta(self.config.user_id, as_of=self.config.as_of)
            return [m for m, meta in seen if not meta.task_id or meta.task_id == task]
        snap = getattr(self.memory, "snapshot", None)
        return snap(self.config.user_id, as_of=self.config.as_of) if callable(snap) else None

    def retrieve(self, event: Event, trig: Trigger, k: int, count: bool = True) -> list[MemoryItem]:
        """Memory for `event` (at most `k` items, in scope). `count=False` (a speculative retrieval):
        the same retrieval, not counted in the stats."""
        subgoal = (
            trig.subgoal or self.listener.current_subgoal or (event.text if event.kind == "request" else "")
        )
        q = RetrievalQuery(
            user_id=self.config.user_id,
            project_id=self.config.project_id,
            as_of=self.config.as_of,
            subgoal=subgoal,
            entities=event_entities(event) or tuple(trig.new_entities),
            candidate_call=event if event.kind == "candidate_call" else None,
            delivered=tuple(self.delivered),
            k=k,
            task_id=self.config.conversation_id,  # this task's one-offs too (a gateway session's)
        )
        if count:
            self.stats.retrievals += 1
        items = [s.item for s in self.memory.retrieve(q)]
        if not self.config.scope_facts:
            return items
        at_call = event.kind == "candidate_call"
        kept = self.scope_filter(items, count=count, at_call=at_call)
        if len(kept) < len(items):  # something was out of scope: look further, then keep the best k
            more = [s.item for s in self.memory.retrieve(replace(q, k=3 * k))]
            kept = self.scope_filter(more, count=count, at_call=at_call)[:k]
        return kept

    def project_decisions(self, k: int) -> list[MemoryItem]:
        """This task's project's accepted decisions current at the cutoff, newest first (at most `k`):
        inside the project they take precedence over the user's general preferences (issue 29), so the
        start-of-task delivery leads with them whatever the request's words retrieve."""
        if not self.config.project_id:
            return []
        scope = f"project:{self.config.project_id}"
        by_scope = getattr(self.memory, "scope_snapshot", None)
        snap = getattr(self.memory, "snapshot", None)
        if callable(by_scope):  # the project's records alone (the user's scope may be far larger)
            items = by_scope(scope, self.config.as_of)
        elif callable(snap):
            items = snap(self.config.user_id, self.config.project_id, self.config.as_of)
        else:
            return []
        latest: dict[str, MemoryItem] = {}
        for item in items:
            if (
                item.scope == scope
                and item.kind == "project_state"
                and item.slot
                and item.value
                and item.is_current
                and state_kind_of(item) in ("", "decision")
            ):
                latest[item.slot] = item  # the snapshot is oldest first: the newest decision wins
        newest = sorted(latest.values(), key=lambda i: i.valid_from, reverse=True)
        return self.scope_filter(newest, count=False)[:k]

    def scope_filter(
        self, items: Sequence[MemoryItem], count: bool = True, at_call: bool = False
    ) -> list[MemoryItem]:
        """`items` without the facts out of this task's scope (`ScopeFilter.filter`); `count`: the
        dropped facts are counted in `scoped_out`."""
        kept, dropped = self.scope.filter(items, at_call=at_call)
        if count:
            self.scoped_out += dropped
        return kept

    def policy_input(
        self, snapshot: Sequence[MemoryItem], prefix: Sequence[Event] | None = None
    ) -> PolicyInput:
        """`snapshot` with the prefix (default: the listener's) cut to the request and the
        `max_prefix_events` most recent events."""
        prefix = list(self.listener.prefix if prefix is None else prefix)
        keep = self.config.max_prefix_events
        if len(prefix) > keep + 1:
            prefix = [prefix[0]] + prefix[-keep:]
        return PolicyInput(tuple(prefix), tuple(snapshot))

    def decision_input(
        self, event: Event, trig: Trigger, prefix: Sequence[Event], count: bool = True
    ) -> tuple[list[MemoryItem], PolicyInput | None]:
        """Retrieval at `event` (the last event of `prefix`) and the policy input it makes (None: no
        evidence and `skip_policy_without_evidence`); `count=False`: not counted in the stats."""
        snapshot = self.retrieve(event, trig, k=self.config.retrieve_k, count=count)
        view = None
        if event.kind == "candidate_call" and self.tools:
            tool = self.tools.get(event.tool)
            if tool and any(a.kind == "text" and a.name in event.args for a in tool.args):
                have = {m.item_id for m in snapshot}  # a result-committing text: the scope's facts too
                snapshot = snapshot + [m for m in self.scope.scope_items() if m.item_id not in have]
            view = gate_view(event, snapshot, prefix[:-1], self.tools, self.mapper, self.scope.scope_items)
        if not snapshot and self.config.skip_policy_without_evidence:
            return snapshot, None
        inp = self.policy_input(snapshot, prefix)
        if view is not None:
            inp = PolicyInput(inp.prefix[:-1] + (view[0],), tuple(view[1]))
        return snapshot, inp

    def needs_policy(self, inp: PolicyInput) -> bool:
        """Whether `inp` needs a policy call (always, without the pre-check)."""
        return not self.config.precheck or needs_decision(inp, can_hold=self.can_hold(inp.prefix[-1]))

    def can_hold(self, event: Event) -> bool:
        """Whether an intervention on `event` would hold it: not once the call's holds are spent."""
        cap = self.config.max_holds_per_call
        return not (event.kind == "candidate_call" and cap and self.holds.get(event.tool, 0) >= cap)

    def speculative_input(self, call: Event) -> PolicyInput | None:
        """The policy input the gate would build if `call` were the next event (nothing is appended to
        the prefix, nothing counted); None where the gate would make no policy call."""
        ents = event_entities(call)
        trig = Trigger(True, "candidate_call", tuple(e for e in ents if e not in self.listener.seen_entities))
        _, inp = self.decision_input(call, trig, [*self.listener.prefix, call], count=False)
        return inp if inp is not None and self.needs_policy(inp) else None
