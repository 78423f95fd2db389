"""One decision point: the policy's decision (or the one made ahead), then what an intervene becomes."""

from __future__ import annotations

from dataclasses import dataclass, field

from pulse.agent.ahead import AheadSlot, DecidedAhead
from pulse.agent.call_kinds import CallKinds
from pulse.agent.conversions import ILLEGAL, convert_intervene
from pulse.agent.inputs import DecisionInputs
from pulse.agent.listener import Trigger
from pulse.agent.speculation import same_input
from pulse.agent.stats import AgentStats, DecisionRecord
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Decision, Event, MemoryItem


@dataclass
class Outcome:
    """What one decision point came to, before it is acted on and recorded."""

    decision: Decision = field(default_factory=lambda: Decision("silent"))
    evidence: list[MemoryItem] = field(default_factory=list)
    parse_ok: bool = True
    called: bool = False  # the policy's output was used (decided now or ahead)
    converted: str = ""  # pulse.agent.conversions
    from_speculation: bool = False  # the decision made ahead for exactly this input was used
    decided_ahead: bool = False  # an announced call's gate input was decided in the same batch
    used_cached: bool = False

    def record(self, event: Event, trigger: str, taken: Decision, wall_s: float) -> DecisionRecord:
        """The decision record of `event` (`trigger`: why it was a decision point, "" = it was not),
        with the action `taken`."""
        return DecisionRecord(
            event.step,
            event.kind,
            trigger,
            taken.action,
            tuple(m.item_id for m in self.evidence),
            self.parse_ok,
            self.called,
            wall_s,
            self.converted,
            self.from_speculation,
        )


class Decider:
    """Decides at a task's active events. Args: the task's `inputs`, the `stats` it counts in (policy
    calls, pre-check skips, parse failures, illegal interventions), the `ahead` slot of decisions made
    ahead, the `call_kinds` (which calls are gated) and whether interventions are allowed."""

    def __init__(
        self,
        inputs: DecisionInputs,
        stats: AgentStats,
        ahead: AheadSlot,
        call_kinds: CallKinds,
        allow_intervene: bool,
    ):
        self.inputs, self.stats, self.ahead = inputs, stats, ahead
        self.call_kinds, self.allow_intervene = call_kinds, allow_intervene

    def decide(
        self,
        event: Event,
        trig: Trigger,
        policy,
        cached: DecidedAhead | None,
        ahead: tuple[Event, PolicyInput | None] | None,
    ) -> Outcome:
        """The decision at an active event: retrieval, pre-check, the policy (or the decision made
        ahead for exactly this input), then what an intervene becomes where it cannot hold."""
        snapshot, inp = self.inputs.decision_input(event, trig, self.inputs.listener.prefix)
        outcome = Outcome()
        out = None
        if inp is None:
            pass
        elif not self.inputs.needs_policy(inp):
            self.stats.precheck_skips += 1  # memory cannot change what happens next: no call
        elif cached is not None and same_input(cached.inp, inp):
            out, outcome.used_cached, outcome.from_speculation = cached.out, True, True
            self.ahead.hit()
        else:
            batch = [inp] + ([ahead[1]] if ahead is not None and ahead[1] is not None else [])
            outs = policy.decide_batch(batch)
            out = outs[0]
            self.stats.policy_calls += 1
            if len(batch) > 1:
                self.ahead.keep(ahead[0], batch[1], outs[1])  # type: ignore[index]
                outcome.decided_ahead = True
        if out is None:
            return outcome
        outcome.called = True
        outcome.parse_ok = out.parse.ok
        if not outcome.parse_ok:
            self.stats.parse_failures += 1
        by_id = {m.item_id: m for m in snapshot}
        at_call = event.kind == "candidate_call"
        outcome.decision, outcome.evidence, outcome.converted = convert_intervene(
            out.decision,
            [by_id[i] for i in out.decision.evidence if i in by_id],
            at_call=at_call,
            gated=at_call and self.call_kinds.gated(event.tool),
            can_hold=self.inputs.can_hold(event),
            allow_intervene=self.allow_intervene,
        )
        if outcome.converted == ILLEGAL:
            self.stats.illegal_interventions += 1
        return outcome
