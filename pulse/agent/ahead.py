"""The one gate decision the worker made ahead (plan-time speculation) and its counters.

See `pulse.agent.speculation` for how a call is predicted; the runtime decides the predicted call's
gate input ahead and uses the decision only for exactly that input. Every decision made ahead ends as
a hit (used at the gate) or a miss (superseded, made for another input, or the call never came), so at
task end `speculative_calls == speculative_hits + speculative_misses`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pulse.agent.call_kinds import CallKinds
from pulse.agent.inputs import DecisionInputs
from pulse.agent.speculation import CallSpec, predict_call, same_input
from pulse.agent.stats import AgentStats
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Event


@dataclass(frozen=True)
class DecidedAhead:
    """A gate decision made ahead: the announced call, the gate input it would meet, the policy's output."""

    call: Event
    inp: PolicyInput
    out: object


class AheadSlot:
    """Holds at most one `DecidedAhead` (written by the worker, taken by the gate) and counts its fate
    in `stats` (speculative_calls / _hits / _misses) under `lock`."""

    def __init__(self, stats: AgentStats, lock: threading.Lock):
        self.stats, self.lock = stats, lock
        self.current: DecidedAhead | None = None

    def keep(self, call: Event, inp: PolicyInput, out: object) -> None:
        """A new decision made ahead; one still held was superseded before any gate used it."""
        with self.lock:
            if self.current is not None:
                self.stats.speculative_misses += 1
            self.current = DecidedAhead(call, inp, out)
            self.stats.speculative_calls += 1

    def take(self) -> DecidedAhead | None:
        """The decision held (None if none), emptying the slot: the gate's to use or to count a miss."""
        with self.lock:
            got, self.current = self.current, None
        return got

    def drop_made_for(self, inp: PolicyInput) -> None:
        """Drop the held decision if it was made for `inp` (an input that has since changed): a miss."""
        with self.lock:
            if self.current is not None and self.current.inp is inp:
                self.current = None
                self.stats.speculative_misses += 1

    def hit(self) -> None:
        """Count a decision made ahead that a gate used."""
        with self.lock:
            self.stats.speculative_hits += 1

    def miss(self) -> None:
        """Count a decision made ahead that no gate used."""
        with self.lock:
            self.stats.speculative_misses += 1

    def discard(self) -> None:
        """Task end: a call announced but never proposed is a miss."""
        with self.lock:
            if self.current is not None:
                self.current = None
                self.stats.speculative_misses += 1

    def announced(
        self, event: Event, specs: Sequence[CallSpec], call_kinds: CallKinds, inputs: DecisionInputs
    ) -> tuple[Event, PolicyInput | None] | None:
        """The gated call `event` announces and the gate input it would meet (None: no such call)."""
        call = predict_call(event, specs)
        if call is not None and call_kinds.gated(call.tool):
            return call, inputs.speculative_input(call)
        return None

    def settle(
        self,
        call: Event,
        inp: PolicyInput | None,
        decided: bool,
        delivered: bool,
        inputs: DecisionInputs,
        policy,
        gate_waiting: Callable[[], bool],
    ) -> None:
        """After an announcing message was processed: if it delivered something (retrieval may differ
        now) re-check the speculative input, dropping a decision made for an input that changed; then
        decide the input ahead if not done yet, unless the gate is already waiting (it decides itself)."""
        t0 = time.perf_counter()
        if delivered:
            now = inputs.speculative_input(call)
            if decided and (now is None or not same_input(now, inp)):  # type: ignore[arg-type]
                self.drop_made_for(inp)  # type: ignore[arg-type]
                decided = False
            inp = now
        if inp is not None and not decided and not gate_waiting():
            self.keep(call, inp, policy.decide_batch([inp])[0])
        with self.lock:
            self.stats.memory_wall_s += time.perf_counter() - t0
