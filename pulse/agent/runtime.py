"""`PulseAgent`: the streaming memory agent at run time (paper Algorithm 1); see its docstring.

Its parts live one idea to a file: the config (`agent_config.py`), what it reports (`stats.py`), how
a delivery reads (`rendering.py`), what the policy sees (`inputs.py`: retrieval, `scope.py`,
`gate_view.py`), one decision point (`decide.py`, `conversions.py`), the worker thread (`worker.py`)
and the decision made ahead (`ahead.py`, `speculation.py`).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence

from pulse.agent.agent_config import AGENT_MODES, AgentMode, PulseAgentConfig
from pulse.agent.ahead import AheadSlot, DecidedAhead
from pulse.agent.call_kinds import CallKinds
from pulse.agent.decide import Decider, Outcome
from pulse.agent.deliveries import DeliveryLog
from pulse.agent.gate import GateDecision
from pulse.agent.inputs import DecisionInputs
from pulse.agent.listener import Listener, Trigger
from pulse.agent.rendering import render_items
from pulse.agent.schema import ArgMapper
from pulse.agent.scope import condition_applies
from pulse.agent.speculation import call_specs_from
from pulse.agent.stats import AgentStats, DecisionRecord, Delivery
from pulse.agent.tokens import count_tokens
from pulse.agent.worker import EventWorker
from pulse.agent.writeback import commit_events
from pulse.core.records import Decision, Event, MemoryItem
from pulse.memory.interface import Memory

__all__ = [
    "AGENT_MODES",
    "AgentMode",
    "AgentStats",
    "DecisionRecord",
    "Delivery",
    "PulseAgent",
    "PulseAgentConfig",
    "condition_applies",
    "render_items",
]


class PulseAgent:
    """The memory agent of one task: it watches the task's events and delivers memory (Algorithm 1).

        agent = PulseAgent(memory, policy, PulseAgentConfig(user_id="u1", project_id="p1"))
        first = agent.start(request_event)            # delivery that goes with the request
        agent.observe(message_or_tool_result_event)   # non-blocking in concurrent mode
        gd = agent.decide_call(candidate_call_event)  # blocks: the pre-commit gate's decision
        notes = agent.take_supplements()              # evidence for the task agent's next decision
        stats = agent.end()                           # task_end, memory writeback, counters

    Args: `memory` (`pulse.memory.Memory`), `policy` (`decide_batch(inputs)` -> outputs with
    `.decision` and `.parse.ok`), `config` (`PulseAgentConfig`). Other code reads `memory`, `policy`
    (the trace recorder wraps both), `config`, `listener`, `stats` and `delivered`.

    1. `start` delivers the user + project memory that applies to the request.
    2. Each event goes through the listener, which appends it to the prefix; only triggering events
       (new entities, subgoals, candidate calls) run retrieval and the policy (`inputs.py`). With
       `precheck`, no policy call where memory cannot change what happens next.
    3. The policy returns silent / supplement / intervene (a parse failure acts as silent). A
       supplement is queued for the task agent's next decision; an intervene holds the candidate call
       and sends the evidence back, or becomes something else where it cannot hold (`conversions.py`).
    4. `end` commits the conversation's write candidates (`writeback.py`); an abort discards them.

    Modes: `streaming` (Pulse); `start_only` (step 1 only); `serial` (retrieve and decide at every
    event, inline: the retrieve-before-every-step baseline). With `concurrent=True` non-gate events run
    on a worker thread and the task agent waits only at gates, which first drain the queue (events
    still queued then get no stale decision of their own); `concurrent=False` runs inline.
    Speculation (concurrent streaming, `ahead.py`): a message announcing a call has that call's gate
    input decided ahead; the gate uses it only for an exactly equal input, so only when decisions are
    computed changes. On real tools only calls that change something are gated, the policy sees memory
    mapped onto the call's arguments (`gate_view.py`), a call is held at most `max_holds_per_call`
    times; with `scope_facts` only facts whose context applies are weighed (`scope.py`).
    """

    def __init__(self, memory: Memory, policy, config: PulseAgentConfig):
        self.policy = policy
        self.config = config
        self.listener = Listener(vocab=config.slot_vocab, reading=config.reading)
        self.tools = {t.name: t for t in config.tool_schemas}
        self.call_kinds = config.call_kinds or CallKinds.build(
            read_only=[t.name for t in config.tool_schemas if t.call_kind == "read_only"]
        )
        self.mapper = ArgMapper(self.tools, config.arg_map_threshold)
        self._holds: dict[str, int] = {}  # tool -> holds since a call last returned or the user spoke
        self.stats_read_only_passed = 0
        self.stats = AgentStats()
        self._lock = threading.Lock()
        self._deliveries = DeliveryLog(self.stats, self._lock)
        self.delivered = self._deliveries.delivered  # item ids delivered so far, in order
        self.inputs = DecisionInputs(
            memory, config, self.listener, self.tools, self.mapper, self.stats, self.delivered, self._holds
        )
        self._events: list[Event] = []
        self._ended = False
        # set while a gate waits: queued non-gate events are then only appended to the prefix, their
        # own (now stale) policy decisions are skipped -- the gate decision sees the same prefix
        self._gate_waiting = False
        self.stats_skipped_stale = 0
        # plan-time speculation (concurrent streaming only): the worker's one decision made ahead
        self._call_specs = tuple(config.call_specs) or call_specs_from(config.tool_schemas)
        self._speculating = bool(
            config.speculate and config.concurrent and config.mode == "streaming" and self._call_specs
        )
        self._ahead = AheadSlot(self.stats, self._lock)
        self._decider = Decider(self.inputs, self.stats, self._ahead, self.call_kinds, config.allow_intervene)
        self._worker: EventWorker | None = None
        if config.concurrent and config.mode != "serial":
            self._worker = EventWorker(lambda ev: self._process(ev, speculate=self._speculating))

    @property
    def memory(self) -> Memory:
        """The memory backend the agent reads and writes (settable: the trace recorder wraps it)."""
        return self.inputs.memory

    @memory.setter
    def memory(self, memory: Memory) -> None:  # the trace recorder wraps it after construction
        self.inputs.memory = memory

    @property
    def stats_scoped_out(self) -> int:
        """The number of facts the scope rules dropped from counted retrievals so far."""
        return self.inputs.scoped_out

    # ---- public API ---------------------------------------------------------------------------
    def start(self, request: Event) -> Delivery | None:
        """Initial request personalization: observe the `request` event and return the delivery that
        goes with it (None when nothing applies or `initial_personalization` is off)."""
        t0 = time.perf_counter()
        trig = self.listener.observe(request)
        request = self.listener.prefix[-1]  # as Pulse read it (slot values parsed from the text)
        self._events.append(request)
        delivery = None
        if self.config.initial_personalization:
            k = self.config.initial_k
            decisions = self.inputs.project_decisions(k // 2)
            retrieved = self.inputs.retrieve(request, trig, k=k)
            chosen = {i.item_id for i in decisions}
            items = (decisions + [i for i in retrieved if i.item_id not in chosen])[:k]
            if items:
                delivery = self._deliveries.deliver(items, request.step, "initial")
        dt = time.perf_counter() - t0
        self.stats.memory_wall_s += dt
        self.stats.blocking_s += dt
        return delivery

    def observe(self, event: Event) -> None:
        """A non-gate public event (message, tool_result). Never blocks in concurrent mode.
        Raises ValueError for a candidate call (those go through `decide_call`)."""
        if event.kind == "candidate_call":
            raise ValueError("candidate calls go through decide_call (the pre-commit gate), not observe")
        if self._worker is not None:
            self._worker.put(event)
            return
        t0 = time.perf_counter()
        self._process(event)
        dt = time.perf_counter() - t0
        if self.config.mode == "serial":
            self.stats.blocking_s += dt

    def decide_call(self, event: Event) -> GateDecision:
        """The pre-commit gate's decider: blocks until the memory agent has decided on the candidate
        call `event`; returns the decision with its evidence and rendered message. Raises ValueError
        for another kind of event, RuntimeError if the worker failed on an earlier event."""
        if event.kind != "candidate_call":
            raise ValueError(f"decide_call needs a candidate_call event, got {event.kind!r}")
        if not self.call_kinds.gated(event.tool):
            # a read-only call runs at once, never held; the memory agent reads it in the background
            # (what it finds can only be a supplement for the next decision)
            self.stats_read_only_passed += 1
            if self._worker is not None:
                self._worker.put(event)
            else:
                self._process(event)
            return GateDecision(Decision("silent"))
        t0 = time.perf_counter()
        self._gate_waiting = True
        try:
            self.flush()
        finally:
            self._gate_waiting = False
        cached = self._ahead.take()  # written by the worker, which is idle after the flush
        decision, items, parse_ok = self._process(event, cached=cached)
        if decision.action == "intervene" and self.config.max_holds_per_call:
            self._holds[event.tool] = self._holds.get(event.tool, 0) + 1
        self.stats.blocking_s += time.perf_counter() - t0
        message = render_items(items) if items else ""
        return GateDecision(decision, tuple(items), message, parse_ok)

    def memory_changed(self) -> None:
        """Memory changed during the task (a long-lived session, e.g. the gateway's): what is read
        once per task from memory (the slots' contexts, the request's scope) is read again."""
        with self._lock:
            self.inputs.scope.reset()

    def take_supplements(self, wait: bool = False) -> list[Delivery]:
        """Deliveries queued for the task agent's next decision (emptied by the call). `wait=True`
        first drains pending events (deterministic runs); the real concurrent setting uses False."""
        if wait:
            t0 = time.perf_counter()
            self.flush()
            self.stats.blocking_s += time.perf_counter() - t0
        return self._deliveries.take()

    def flush(self) -> None:
        """Wait until every queued event has been processed; RuntimeError if the worker failed."""
        if self._worker is not None:
            self._worker.flush()

    def end(self, completed: bool = True, step: int | None = None) -> AgentStats:
        """Task end: observe `task_end` (at `step`, default after the last event), then write memory
        (`completed`) or discard it (abort). Returns the task's stats; a second call only returns them."""
        if self._ended:
            return self.stats
        self._ended = True
        self.flush()
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        self._ahead.discard()  # announced, never proposed
        last = self._events[-1].step if self._events else 0
        end_ev = Event("task_end", step if step is not None else last + 1)
        self._events.append(end_ev)
        self.listener.observe(end_ev)
        if self.config.writeback:
            _commit_task(self.memory, self._events, self.config, completed, self.stats)
        return self.stats

    close = end

    def scope_filter(
        self, items: Sequence[MemoryItem], count: bool = True, at_call: bool = False
    ) -> list[MemoryItem]:
        """`items` without the facts out of this task's scope (`ScopeFilter.filter`); `count`: the
        dropped facts are counted in `stats_scoped_out`."""
        return self.inputs.scope_filter(items, count=count, at_call=at_call)

    # ---- one event: observe, decide, act, record ------------------------------------------------
    def _process(
        self, event: Event, speculate: bool = False, cached: DecidedAhead | None = None
    ) -> tuple[Decision, list[MemoryItem], bool]:
        """Observe `event`, decide, deliver. `speculate` (the worker, concurrent streaming): an agent
        message announcing a call also has the gate input of that call decided ahead, in the same
        policy batch as the message's own decision when it has one. `cached` (the gate): the decision
        made ahead, used only if this gate's input is exactly equal to the one it was made for."""
        t0 = time.perf_counter()
        trig = self.listener.observe(event)
        event = self.listener.prefix[-1]  # as Pulse read it (slot values parsed from the text)
        self._events.append(event)  # writeback reads these: user statements with parsed slots
        if event.kind == "tool_result" or (event.kind == "message" and event.role == "user"):
            self._holds.clear()  # a call returned or the user spoke: no call is held any more
        active = self._is_active(event, trig)
        ahead = (
            self._ahead.announced(event, self._call_specs, self.call_kinds, self.inputs)
            if speculate and not self._gate_waiting
            else None
        )
        n_delivered = len(self.delivered)
        outcome = self._decider.decide(event, trig, self.policy, cached, ahead) if active else Outcome()
        if cached is not None and not outcome.used_cached:  # decided ahead for another input: never acts
            self._ahead.miss()
        decision = self._deliveries.act(outcome.decision, outcome.evidence, event.step)
        dt = time.perf_counter() - t0
        with self._lock:
            self.stats.memory_wall_s += dt
            self.stats.decisions.append(outcome.record(event, trig.reason if active else "", decision, dt))
        if ahead is not None:
            delivered = len(self.delivered) != n_delivered
            self._ahead.settle(
                *ahead, outcome.decided_ahead, delivered, self.inputs, self.policy, lambda: self._gate_waiting
            )
        return decision, outcome.evidence, outcome.parse_ok

    def _is_active(self, event: Event, trig: Trigger) -> bool:
        """Whether `event` is a decision point: every event in serial mode, a triggering one when
        streaming; a queued non-gate event is not while a gate waits (its decision would be stale)."""
        mode = self.config.mode
        active = mode == "serial" or (mode == "streaming" and trig.fire)
        if active and self._gate_waiting and event.kind != "candidate_call" and mode == "streaming":
            self.stats_skipped_stale += 1
            return False
        return active


def _commit_task(
    memory: Memory, events: list[Event], config: PulseAgentConfig, completed: bool, stats: AgentStats
) -> None:
    """Task end: commit the task's write candidates (`writeback.commit_events`) or discard them on an
    abort, counting what was committed and the time it took in `stats`."""
    t0 = time.perf_counter()
    committed = commit_events(
        memory,
        events,
        config.user_id,
        config.project_id,
        config.conversation_id or f"conv-{uuid.uuid4().hex[:16]}",
        completed=completed,
        scope_facts=config.scope_facts,
        read=config.reading.read if config.reading is not None else None,
    )
    if completed:
        stats.committed_items = len(committed)
        stats.store_tokens = sum(count_tokens(m.text) for m in committed)
    stats.memory_wall_s += time.perf_counter() - t0
