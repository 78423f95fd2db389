"""The pre-commit gate: a wrapper around any tool executor.

A candidate tool call is held until the memory agent decides. On `silent` or `supplement` the
call is executed (a supplement's evidence then enters the task agent's next decision); on
`intervene` the call is *not* executed and the evidence goes back to the task agent, which
replans. A call to an unknown tool or with bad arguments becomes an error result the task agent
sees; it never raises into the agent loop.

Put Pulse in front of your own agent::

    gate = PreCommitGate(executor=my_tools.call, decide=pulse_agent.decide_call)
    result = gate.call("send_email", {"to": "bob", "app": "gmail"})
    if result.intervened: ...replan with result.evidence_text...
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pulse.core.records import Decision, Event, MemoryItem


class ToolExecutor(Protocol):
    """Any callable that runs a tool call, `(tool, args) -> result`; raises ToolCallError for an unknown tool
    or bad arguments."""

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any: ...


class ToolCallError(Exception):
    """Raised by an executor for an unknown tool or bad arguments; turned into an error result."""


@dataclass(frozen=True)
class GateDecision:
    """The memory agent's decision on one candidate call, its evidence items, the message shown to the task
    agent and whether the policy's output parsed."""

    decision: Decision
    evidence: tuple[MemoryItem, ...] = ()
    message: str = ""  # text shown to the task agent (evidence rendered)
    parse_ok: bool = True


@dataclass(frozen=True)
class GateResult:
    """What became of one call at the gate: executed or not, intervened or not, the tool's result or error,
    the decision and the time it was held."""

    executed: bool
    intervened: bool
    result: Any = None
    error: str = ""
    decision: GateDecision | None = None
    wait_s: float = 0.0  # wall time the call was held waiting for the memory agent

    @property
    def evidence_text(self) -> str:
        """The evidence message shown to the task agent ("" when there was no decision)."""
        return self.decision.message if self.decision else ""


Decider = Callable[[Event], GateDecision]


@dataclass
class PreCommitGate:
    """Holds each candidate call until `decide` (None = pass-through) has decided, then executes it or not;
    every result is kept in `calls`."""

    executor: ToolExecutor
    decide: Decider | None = None  # None = pass-through (no memory agent)
    step: int = 0
    calls: list[GateResult] = field(default_factory=list)

    def call(self, tool: str, args: Mapping[str, Any], event: Event | None = None) -> GateResult:
        """Gate one tool call (an event is made for it when none is given): not executed on an intervention,
        otherwise executed, a ToolCallError or any other exception becoming the result's `error`. Never raises
        the tool's errors."""
        if event is None:
            self.step += 1
            event = Event("candidate_call", self.step, tool=tool, args={k: str(v) for k, v in args.items()})
        gd = None
        t0 = time.perf_counter()
        if self.decide is not None:
            gd = self.decide(event)
        wait = time.perf_counter() - t0
        if gd is not None and gd.decision.action == "intervene":
            res = GateResult(executed=False, intervened=True, decision=gd, wait_s=wait)
        else:
            try:
                out = self.executor(tool, args)
                res = GateResult(executed=True, intervened=False, result=out, decision=gd, wait_s=wait)
            except ToolCallError as e:
                res = GateResult(executed=False, intervened=False, error=str(e), decision=gd, wait_s=wait)
            except Exception as e:  # a tool bug is the tool's error result, not the agent's crash
                res = GateResult(
                    executed=False,
                    intervened=False,
                    error=f"{type(e).__name__}: {e}",
                    decision=gd,
                    wait_s=wait,
                )
        self.calls.append(res)
        return res
