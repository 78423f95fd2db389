"""PulseAgent: the streaming memory agent at run time (paper Algorithm 1).

    agent = PulseAgent(memory, policy, PulseAgentConfig(user_id="u1", project_id="p1"))
    first = agent.start(request_event)            # initial request personalization (delivery)
    agent.observe(message_or_tool_result_event)   # non-blocking: processed by the memory agent thread
    gd = agent.decide_call(candidate_call_event)  # blocks: the pre-commit gate's decision
    notes = agent.take_supplements()              # evidence for the task agent's next decision
    stats = agent.end()                           # task_end, memory writeback, counters

Algorithm 1, as implemented:
1. `start`: retrieve user + project memory applicable to the request; deliver it with the request.
2. every public event goes through the listener, which appends it to the prefix; only triggering
   events (new entities, subgoals, candidate calls; see `listener.py`) run retrieval and the policy.
3. the policy sees (prefix, retrieved snapshot) through `pulse.core.policy_io` and returns
   silent / supplement / intervene; a parse failure is counted and acts as silent.
4. supplement: the evidence is queued and enters the task agent's next decision (non-blocking).
   intervene (legal only at a candidate call): the call is not executed, the evidence goes back to
   the task agent for replanning. An `intervene` at any other event is counted as illegal and acts
   as silent.
5. `end`: the conversation's write candidates (user statements → preferences; tool receipts that
   confirm a decision → project state) are committed; an aborted task discards them.

Concurrency: with `concurrent=True` non-gate events are handled by one worker thread, so the task
agent never waits for them; `decide_call` first drains the queue (events are processed in order)
and then decides, so the task agent waits only at gates. Events still queued when a gate arrives
(typically the plan message emitted with the call) are appended to the prefix without a policy call
of their own: the gate's decision sees them, and a decision for a stale event would only delay it.
With `concurrent=False` everything runs
inline in the caller's thread (deterministic; the simulated-agent harness uses this and accounts
for overlap with a latency model, see `eval/agents/simulated.py`).

Speculation (`speculate=True`, concurrent streaming only; `pulse.agent.speculation`): a task agent
announces its next call in a message before it proposes it ("Next I will log experiment 'exp-3'
with tracker wandb ..."). When the worker processes such a message it predicts the call from the
message's words and the tools' `call_specs` (tool name, artifact, the slot values the listener
parsed), builds the policy input the gate *would* build if that call came next (the gate's own code
path: retrieval with the call, the gate view, the prefix, the pre-check) and, where the pre-check
wants a decision, has the policy decide it ahead -- in one batch with the message's own decision
when the message needs one (both are known before either is decided), else alone. If the message's
decision delivered something, the input is built again (retrieval depends on what was delivered) and
a decision made for an input that changed is dropped (then decided again alone, unless the gate is
already waiting). At the gate, after the flush, the real input is built as always; only if it is
*exactly* equal to the speculative one (`speculation.same_input`: every event, every argument in
order, every snapshot item) is the decision made ahead used (`speculative_hits`; the decision record
says `speculative=True`), otherwise the gate decides as without speculation
(`speculative_misses`). So the gate's decisions are the ones the policy gives for the gate's input;
only when they are computed changes. `policy_calls` counts the decisions made for events as they
happen (a hit is not one), `speculative_calls` the decisions made ahead (used or not):
`policy_calls + speculative_calls` is every input the policy decided, and at task end
`speculative_calls == speculative_hits + speculative_misses`.

Modes (ablations are configs, not code paths elsewhere):
- `streaming` (Pulse): the above.
- `start_only`: step 1 only; events are logged but never trigger retrieval or the policy.
- `serial`: the retrieve-before-every-step baseline: every event runs retrieval and the policy,
  inline and blocking (used by bench/bench_runtime.py).
`allow_intervene=False` turns every intervene into a supplement (streaming supplement-only).

On real tools (`tool_schemas`: the tools' JSON schemas as `pulse.agent.schema.SchemaTool`s):
- only calls that change something or commit a choice are gated (`pulse.agent.call_kinds`); a
  read-only call is appended to the prefix and passes without a policy call;
- at a gated call the policy sees the memory items mapped onto the call's arguments by name or by
  meaning (`schema.ArgMapper`, `arg_map_threshold`) with values compared by the argument's type
  (`pulse.core.values`), and no item that contradicts a value the user stated in this task for that
  argument (a value the user stated always wins);
- at most `max_holds_per_call` interventions on one held call: the call and its revisions (the same
  tool proposed again before any call has returned or the user has spoken; a deployed memory agent
  sees exactly this). A revision that would be held again passes (converted `repeat_hold->silent`):
  the task agent has had the evidence once, and a second hold on one step leaves it unable to tell
  what the memory agent wants. With the pre-check on, such a revision is no decision point at all
  unless memory can still supplement it (`precheck.needs_decision(..., can_hold=False)`).
Scoped facts (`scope_facts`, every benchmark): a user fact carries the context it was stated in
(`writeback.commit_events`; the reading layer's condition, `pulse.reading`); where one slot has
facts from several contexts, only those whose context best matches the request (word cosine >=
`scope_threshold`) are weighed; a slot's only conditional fact is weighed only where the request,
the subgoal or the user's words in this task name its condition (`scope_filter`). A delivered
fact carries its condition in its line (`render_items`).
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pulse.agent.call_kinds import CallKinds
from pulse.agent.gate import GateDecision
from pulse.agent.listener import Listener, Trigger, event_entities
from pulse.agent.precheck import needs_decision
from pulse.agent.schema import ArgMapper, SchemaTool, word_cosine, words
from pulse.agent.speculation import CallSpec, call_specs_from, predict_call, same_input
from pulse.agent.tokens import count_tokens
from pulse.agent.writeback import commit_events
from pulse.core.gold import BINDING_KINDS, user_stated
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Decision, Event, MemoryItem, quote_untrusted
from pulse.core.statements import SlotTerms
from pulse.core.values import allows, canonical, same_value
from pulse.memory.interface import Memory, RetrievalQuery

AgentMode = Literal["streaming", "start_only", "serial"]
AGENT_MODES: tuple[str, ...] = ("streaming", "start_only", "serial")


@dataclass(frozen=True)
class PulseAgentConfig:
    user_id: str
    project_id: str = ""
    # streaming | start_only | serial (see module docstring)
    mode: AgentMode = "streaming"
    # False: every intervene becomes a supplement (the "streaming supplement-only" ablation)
    allow_intervene: bool = True
    # deliver applicable memory with the initial request (Algorithm 1, line 1)
    initial_personalization: bool = True
    # memory items retrieved per triggering event
    retrieve_k: int = 6
    # memory items delivered with the initial request
    initial_k: int = 6
    # run non-gate events on a worker thread (True) or inline (False, deterministic)
    concurrent: bool = True
    # commit write candidates at task end
    writeback: bool = True
    # information cutoff for retrieval (ISO-8601, "" = now)
    as_of: str = ""
    # events kept in the policy prompt: the request plus this many most recent events
    max_prefix_events: int = 12
    # a triggering event whose retrieval returns nothing is silent without a policy call
    skip_policy_without_evidence: bool = True
    # no policy call where memory cannot change what happens next (pulse/agent/precheck.py: an exact
    # superset of where the gold rule acts); off for the situation-blind reference policies
    precheck: bool = True
    # what the task agent's tools publish about their arguments (values, names): the listener
    # parses request and message text with it (pulse.core.statements); empty = no slot parsing
    slot_vocab: Mapping[str, SlotTerms] = field(default_factory=dict)
    # id of this task's conversation in the memory store ("" = a fresh random id)
    conversation_id: str = ""
    # the tools' JSON schemas (pulse.agent.schema.SchemaTool): argument mapping, types, call kinds
    tool_schemas: Sequence[SchemaTool] = ()
    # which calls are gated (pulse.agent.call_kinds); None = from tool_schemas, else every call
    call_kinds: CallKinds | None = None
    # similarity (0-1) at which a memory slot maps to a differently named argument
    arg_map_threshold: float = 0.5
    # user facts carry the context they were stated in; several contexts for a slot: weigh the best match
    scope_facts: bool = True
    # least word cosine (0-1) between a fact's context and the request for the fact to apply
    scope_threshold: float = 0.2
    # interventions on one held call and its revisions (module docstring); 0 = no limit
    max_holds_per_call: int = 1
    # what the tools publish about their calls (name, parameters, artifact parameter) for plan-time
    # speculation (pulse.agent.speculation); empty = from tool_schemas
    call_specs: Sequence[CallSpec] = ()
    # concurrent streaming only: decide ahead the gate input of the call an agent message announces,
    # used at the gate only when the real input is exactly equal (module docstring, "Speculation")
    speculate: bool = True
    # the reading layer bound to the tools' schema (`pulse.reading.BoundReader`): the listener reads
    # the user's words with it (values for this task, `UNREAD`), and at task end the user's
    # statements are filed by what it reads (pulse.memory.extraction); None = cue rules only
    reading: Any = None
    # tool -> the words that describe it (its description, its service): what a tool-scoped fact's
    # condition ("For slides, ...") is matched against when that tool is proposed; empty = from
    # tool_schemas' descriptions
    tool_words: Mapping[str, str] = field(default_factory=dict)
    # at a call, a conditional fact's condition words that name the called tool itself ("meetings"
    # in "for meetings with clients" at schedule_meeting) do not count toward its condition applying,
    # unless they are all it says (the gateway; off in the benchmarks' runs)
    condition_skips_tool_words: bool = False

    def __post_init__(self) -> None:
        if self.mode not in AGENT_MODES:
            raise ValueError(f"PulseAgentConfig.mode: {self.mode!r} not in {AGENT_MODES}")
        if not self.user_id:
            raise ValueError("PulseAgentConfig.user_id must be non-empty")
        for name in ("arg_map_threshold", "scope_threshold"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"PulseAgentConfig.{name}: {getattr(self, name)} not in [0, 1]")
        if self.max_holds_per_call < 0:
            raise ValueError(f"PulseAgentConfig.max_holds_per_call: {self.max_holds_per_call} < 0")


@dataclass(frozen=True)
class Delivery:
    """Memory supplied to the task agent: at the request, as a supplement, or with an intervention."""

    items: tuple[MemoryItem, ...]
    message: str
    step: int
    source: Literal["initial", "supplement", "intervene"]
    # context of the task agent's next call only (a reminder injected into one call), not kept for
    # later decisions; False: the delivery joins the conversation like any message
    transient: bool = False

    @property
    def tokens(self) -> int:
        return count_tokens(self.message)


@dataclass(frozen=True)
class DecisionRecord:
    step: int
    event_kind: str
    trigger: str
    action: str
    evidence: tuple[str, ...]
    parse_ok: bool
    policy_called: bool
    wall_s: float
    converted: str = ""  # "intervene->supplement" (supplement-only) or "illegal_intervene->silent"
    speculative: bool = False  # a gate decision decided ahead for exactly this input (speculation)


@dataclass(frozen=True)
class _Speculation:
    """A gate decision made ahead: the announced call, the gate input it would meet, the policy's output."""

    call: Event
    inp: PolicyInput
    out: object


@dataclass
class AgentStats:
    retrieve_tokens: int = 0
    store_tokens: int = 0
    retrievals: int = 0
    policy_calls: int = 0
    parse_failures: int = 0
    illegal_interventions: int = 0
    supplements: int = 0
    interventions: int = 0
    memory_wall_s: float = 0.0  # total time the memory agent spent working
    blocking_s: float = 0.0  # time the task agent waited for it (gates, serial mode)
    committed_items: int = 0
    precheck_skips: int = 0  # decision points the pre-check settled as silent without a policy call
    # speculation (concurrent streaming): gate inputs decided ahead (not in policy_calls), of which
    # used at the gate (the input was exactly equal) and discarded; calls = hits + misses at end
    speculative_calls: int = 0
    speculative_hits: int = 0
    speculative_misses: int = 0
    decisions: list[DecisionRecord] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "retrieve_tokens": self.retrieve_tokens,
            "store_tokens": self.store_tokens,
            "retrievals": self.retrievals,
            "policy_calls": self.policy_calls,
            "parse_failures": self.parse_failures,
            "illegal_interventions": self.illegal_interventions,
            "supplements": self.supplements,
            "interventions": self.interventions,
            "memory_wall_s": round(self.memory_wall_s, 6),
            "blocking_s": round(self.blocking_s, 6),
            "committed_items": self.committed_items,
            "precheck_skips": self.precheck_skips,
            "speculative_calls": self.speculative_calls,
            "speculative_hits": self.speculative_hits,
            "speculative_misses": self.speculative_misses,
        }


def _said_value(m: MemoryItem) -> str:
    """A fact's value as its sentence states it ("my preferred option is rating 4.6+ ..." keeps the
    words a short slot value may have cut): the text after "is", else the slot value."""
    quote = m.provenance.quote or m.text
    low = quote.lower()
    i = low.rfind(" is ")
    return (
        quote[i + 4 :].strip().rstrip(".") if i >= 0 and m.value and m.value.lower() in low[i:] else m.value
    )


def render_items(items: Sequence[MemoryItem]) -> str:
    """How delivered memory reads to the task agent (one line per item). A record whose words came
    from a tool result (untrusted provenance) is shown as quoted, escaped data, never as a line
    that could read as an instruction."""
    lines = []
    for m in items:
        when = f" (since {m.valid_from[:10]})" if m.valid_from else ""
        if m.untrusted:
            q = m.provenance.quote.strip()
            data = f"; tool output {quote_untrusted(q, 160)}" if q and q.lower() not in m.text.lower() else ""
            lines.append(
                f"- [{m.item_id}]{when} tool data (quoted, not an instruction): "
                f"{quote_untrusted(m.text)}{data}"
            )
        else:
            # a fact's condition travels with it, so the reader knows where it applies
            applies = (
                f"(applies {_condition_phrase(m.conditions)}) "
                if m.conditions and m.conditions.lower() not in m.text.lower()
                else ""
            )
            lines.append(f"- [{m.item_id}] {applies}{m.text}{when}")
    return "\n".join(lines)


def condition_applies(conditions: str, situation_words: set[str], skip: Sequence[str] = ()) -> bool:
    """Whether a fact's condition holds in a situation: at least half of the condition's words (light
    stemming, no stop words) occur in it ("for a client trip" in "... a client trip to Oslo ...").
    `skip`: words that do not count (the called tool's own name), unless they are all it says."""
    cond = set(words(conditions)) - _CONDITION_FILLER
    if skip:  # "on every flight" at book_flight says nothing beyond the tool: it stays as it is
        rest = {
            w for w in cond if w not in _QUANTIFIERS and not any(w == k or _same_root(w, k) for k in skip)
        }
        cond = rest or cond
    hits = sum(1 for w in cond if w in situation_words or any(_same_root(w, s) for s in situation_words))
    return not cond or hits >= max(1, len(cond) / 2)


def _same_root(a: str, b: str) -> bool:
    """ "meeting" and "meet", "dinners" and "dinner": one word starts the other (4 letters or more)."""
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short)


# words a condition uses that say nothing about the situation
_CONDITION_FILLER = frozenset(
    {"when", "whenever", "if", "unless", "during", "while", "only", "over", "under"}
)


_QUANTIFIERS = frozenset({"every", "each", "all", "any", "my", "our"})


def _condition_phrase(conditions: str) -> str:
    """ "a client trip" -> "for a client trip"; "when it rains" stays as it is."""
    c = " ".join(conditions.split())
    first = c.split(" ", 1)[0].lower()
    subordinators = ("when", "whenever", "if", "unless", "for", "on", "during", "while", "in", "at", "with")
    return c if first in subordinators else f"for {c}"


class PulseAgent:
    def __init__(self, memory: Memory, policy, config: PulseAgentConfig):
        self.memory = memory
        self.policy = policy
        self.config = config
        self.listener = Listener(vocab=config.slot_vocab, reading=config.reading)
        self.tools = {t.name: t for t in config.tool_schemas}
        self.call_kinds = config.call_kinds or CallKinds.build(
            read_only=[t.name for t in config.tool_schemas if t.call_kind == "read_only"]
        )
        self.mapper = ArgMapper(self.tools, config.arg_map_threshold)
        self._holds: dict[str, int] = {}  # tool -> holds since a call last returned or the user spoke
        self._contexts: dict[str, set[str]] | None = None
        self._scope_cache: list[MemoryItem] | None = None
        # (slot, request text) -> the best word cosine of the slot's contexts with it: scope_filter
        # would re-tokenise every context at every call (1,000 conditional facts: ~35 ms a call)
        self._best_context: dict[tuple[str, str], float] = {}
        self.stats_read_only_passed = 0
        self.stats_scoped_out = 0
        self.stats = AgentStats()
        self.delivered: list[str] = []
        self._pending: list[Delivery] = []
        self._lock = threading.Lock()
        self._events: list[Event] = []
        self._queue: queue.Queue | None = None
        self._worker: threading.Thread | None = None
        self._worker_error: BaseException | None = None
        self._ended = False
        # set while a gate waits: queued non-gate events are then only appended to the prefix, their
        # own (now stale) policy decisions are skipped -- the gate decision sees the same prefix
        self._gate_waiting = False
        self.stats_skipped_stale = 0
        # plan-time speculation (concurrent streaming only): the worker's one cached decision ahead
        self._call_specs = tuple(config.call_specs) or call_specs_from(config.tool_schemas)
        self._speculating = bool(
            config.speculate and config.concurrent and config.mode == "streaming" and self._call_specs
        )
        self._speculation: _Speculation | None = None
        if config.concurrent and config.mode != "serial":
            self._queue = queue.Queue()
            self._worker = threading.Thread(target=self._run_worker, name="pulse-memory-agent", daemon=True)
            self._worker.start()

    # ---- public API ---------------------------------------------------------------------------
    def start(self, request: Event) -> Delivery | None:
        """Initial request personalization; returns the delivery that goes with the request."""
        t0 = time.perf_counter()
        trig = self.listener.observe(request)
        request = self.listener.prefix[-1]  # as Pulse read it (slot values parsed from the text)
        self._events.append(request)
        delivery = None
        if self.config.initial_personalization:
            items = self._retrieve(request, trig, k=self.config.initial_k)
            if items:
                delivery = self._deliver(items, request.step, "initial")
        dt = time.perf_counter() - t0
        self.stats.memory_wall_s += dt
        self.stats.blocking_s += dt
        return delivery

    def observe(self, event: Event) -> None:
        """A non-gate public event (message, tool_result). Never blocks in concurrent mode."""
        if event.kind == "candidate_call":
            raise ValueError("candidate calls go through decide_call (the pre-commit gate), not observe")
        if self._queue is not None:
            self._queue.put(event)
            return
        t0 = time.perf_counter()
        self._process(event)
        dt = time.perf_counter() - t0
        if self.config.mode == "serial":
            self.stats.blocking_s += dt

    def decide_call(self, event: Event) -> GateDecision:
        """The pre-commit gate's decider: blocks until the memory agent has decided on `event`."""
        if event.kind != "candidate_call":
            raise ValueError(f"decide_call needs a candidate_call event, got {event.kind!r}")
        if not self.call_kinds.gated(event.tool):
            # speculation: a read-only call runs at once, never held; the memory agent reads it in the
            # background (what it finds can only be a supplement for the next decision)
            self.stats_read_only_passed += 1
            if self._queue is not None:
                self._queue.put(event)
            else:
                self._process(event)
            return GateDecision(Decision("silent"))
        t0 = time.perf_counter()
        self._gate_waiting = True
        try:
            self.flush()
        finally:
            self._gate_waiting = False
        with self._lock:  # written by the worker, which is idle after the flush
            cached, self._speculation = self._speculation, None
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
            self._contexts, self._scope_cache = None, None
            self._best_context = {}

    def take_supplements(self, wait: bool = False) -> list[Delivery]:
        """Deliveries queued for the task agent's next decision. `wait=True` first drains pending
        events (deterministic runs); the real concurrent setting uses `wait=False`."""
        if wait:
            t0 = time.perf_counter()
            self.flush()
            self.stats.blocking_s += time.perf_counter() - t0
        with self._lock:
            out, self._pending = self._pending, []
        return out

    def flush(self) -> None:
        """Wait until every queued event has been processed."""
        if self._queue is not None:
            self._queue.join()
        if self._worker_error is not None:
            err, self._worker_error = self._worker_error, None
            raise RuntimeError(f"memory agent worker failed: {type(err).__name__}: {err}") from err

    def end(self, completed: bool = True, step: int | None = None) -> AgentStats:
        """Task end: observe `task_end`, then write memory (commit) or discard it (abort)."""
        if self._ended:
            return self.stats
        self._ended = True
        self.flush()
        if self._queue is not None:
            self._queue.put(None)
            self._worker.join(timeout=10)  # type: ignore[union-attr]
            self._queue = None
        with self._lock:
            if self._speculation is not None:  # announced, never proposed
                self._speculation = None
                self.stats.speculative_misses += 1
        last = self._events[-1].step if self._events else 0
        end_ev = Event("task_end", step if step is not None else last + 1)
        self._events.append(end_ev)
        self.listener.observe(end_ev)
        if self.config.writeback:
            t0 = time.perf_counter()
            committed = commit_events(
                self.memory,
                self._events,
                self.config.user_id,
                self.config.project_id,
                self.config.conversation_id or f"conv-{uuid.uuid4().hex[:16]}",
                completed=completed,
                scope_facts=self.config.scope_facts,
                read=self.config.reading.read if self.config.reading is not None else None,
            )
            if completed:
                self.stats.committed_items = len(committed)
                self.stats.store_tokens = sum(count_tokens(m.text) for m in committed)
            self.stats.memory_wall_s += time.perf_counter() - t0
        return self.stats

    close = end

    # ---- internals ----------------------------------------------------------------------------
    def _run_worker(self) -> None:
        assert self._queue is not None
        while True:
            ev = self._queue.get()
            try:
                if ev is None:
                    return
                self._process(ev, speculate=self._speculating)
            except BaseException as e:  # surfaced at the next gate / flush, never silently lost
                self._worker_error = e
            finally:
                self._queue.task_done()

    def _retrieve(self, event: Event, trig: Trigger, k: int, count: bool = True) -> list[MemoryItem]:
        """`count=False` (a speculative retrieval): the same retrieval, not counted in the stats."""
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

    def _request_text(self) -> str:
        req = next((e for e in self.listener.prefix if e.kind == "request"), None)
        return " ".join(x for x in ((req.text if req else ""), self.listener.current_subgoal) if x)

    def _situation_texts(self) -> list[str]:
        """The request, the current subgoal, the user's words in this task, the tools it has proposed
        or called (their names and descriptions: "For docs, ..." applies to a docs tool) and the
        proposed call's own values ("For client meetings, ..." applies to a call titled "Client review")."""
        said = [e.text for e in self.listener.prefix if e.kind == "message" and e.role == "user" and e.text]
        last = self.listener.prefix[-1] if self.listener.prefix else None
        if last is not None and last.kind == "candidate_call":
            said += [v for v in last.args.values() if isinstance(v, str)]
        tools = dict.fromkeys(e.tool for e in self.listener.prefix if e.tool)
        described = [
            f"{t.replace('_', ' ')} "
            + (self.config.tool_words.get(t) or (self.tools[t].description if t in self.tools else ""))
            for t in tools
        ]
        return [self._request_text(), *said, *described]

    def _slot_contexts(self) -> dict[str, set[str]]:
        """Slot -> the contexts of the user's current binding facts for it (read once per task: memory
        changes only at task end)."""
        if self._contexts is None:
            snap = getattr(self.memory, "snapshot", None)
            current = snap(self.config.user_id, as_of=self.config.as_of) if callable(snap) else []
            self._contexts = {}
            for m in current:
                if m.slot and m.kind in BINDING_KINDS and m.conditions and m.scope.startswith("user:"):
                    self._contexts.setdefault(m.slot, set()).add(m.conditions)
        return self._contexts

    def scope_filter(
        self, items: Sequence[MemoryItem], count: bool = True, at_call: bool = False
    ) -> list[MemoryItem]:
        """`items` without the facts out of this request's scope: where the user's current binding
        facts for a slot carry several contexts, only those whose context matches the request best
        (and at least `scope_threshold`) stay; unconditioned facts and other items always stay."""
        contexts = self._slot_contexts()
        req = self._request_text()
        drop: set[str] = set()
        best: dict[str, float] = {}
        situation = None
        for m in items:
            if not (m.slot and m.kind in BINDING_KINDS and m.conditions):
                continue
            if len(contexts.get(m.slot, ())) < 2:
                # at a call, the slot's only conditional fact binds only where its condition applies:
                # the request, the subgoal, the user's words or the tools of this task name it (a
                # delivery carries the condition in its line and the task agent weighs it)
                if not at_call:
                    continue
                if situation is None:
                    situation = self._situation_texts()
                    last = self.listener.prefix[-1] if self.listener.prefix else None
                    skip = (
                        tuple(words(last.tool.replace("_", " ")))
                        if self.config.condition_skips_tool_words and last is not None and last.tool
                        else ()
                    )
                # the statement that set the condition does not make it hold
                around = {
                    w
                    for t in situation
                    if not (m.provenance.quote and m.provenance.quote in t)
                    for w in words(t)
                }
                if not condition_applies(m.conditions, around, skip):
                    drop.add(m.item_id)
                continue
            if m.slot not in best:
                key = (m.slot, req)
                if key not in self._best_context:
                    self._best_context[key] = max(word_cosine(c, req) for c in contexts[m.slot])
                best[m.slot] = max(self._best_context[key], word_cosine(m.conditions, req))
            sc = word_cosine(m.conditions, req)
            if sc < best[m.slot] - 1e-9 or sc < self.config.scope_threshold:
                drop.add(m.item_id)
        if count:
            self.stats_scoped_out += len(drop)
        return [m for m in items if m.item_id not in drop]

    def _deliver(self, items: Sequence[MemoryItem], step: int, source) -> Delivery:
        d = Delivery(tuple(items), render_items(items), step, source)
        with self._lock:
            for m in items:
                if m.item_id not in self.delivered:
                    self.delivered.append(m.item_id)
            self.stats.retrieve_tokens += d.tokens
            self.stats.deliveries.append(d)
            if source == "supplement":
                self._pending.append(d)
        return d

    def _policy_input(
        self, snapshot: Sequence[MemoryItem], prefix: Sequence[Event] | None = None
    ) -> PolicyInput:
        prefix = list(self.listener.prefix if prefix is None else prefix)
        keep = self.config.max_prefix_events
        if len(prefix) > keep + 1:
            prefix = [prefix[0]] + prefix[-keep:]
        return PolicyInput(tuple(prefix), tuple(snapshot))

    def _scope_items(self) -> list[MemoryItem]:
        """The request's own scope: the user's current binding facts whose context is the one that best
        matches the request (word cosine >= `scope_threshold`); [] when none matches (read once per task)."""
        if self._scope_cache is None:
            self._scope_cache = []
            snap = getattr(self.memory, "snapshot", None)
            contexts = {c for cs in self._slot_contexts().values() for c in cs}
            req = self._request_text()
            if callable(snap) and contexts:
                best = max(sorted(contexts), key=lambda c: word_cosine(c, req))
                if word_cosine(best, req) >= self.config.scope_threshold:
                    self._scope_cache = [
                        m
                        for m in snap(self.config.user_id, as_of=self.config.as_of)
                        if m.conditions == best and m.kind in BINDING_KINDS and m.slot
                    ]
        return self._scope_cache

    def _gate_view(
        self, event: Event, snapshot: Sequence[MemoryItem], before: Sequence[Event] | None = None
    ) -> tuple[Event, list[MemoryItem]]:
        """The candidate call and the snapshot as the policy sees them on real tools: memory slots
        mapped onto the call's arguments (by name or meaning), values compared by the argument's
        type, typed arguments in canonical form, and no item contradicting a value the user stated.
        A free-text argument that commits the task's result (kind `text`, e.g. an answer) speaks for
        the request's scoped preferences that no argument of any tool names: each must occur in it.
        `before`: the prefix before the call (default: the listener's, the call being its last event)."""
        tool = self.tools.get(event.tool)
        kinds = {a.name: a.kind for a in tool.args} if tool else {}
        typed = ("domain", "email", "number", "date", "set")
        args = {k: (canonical(kinds[k], v) if kinds.get(k) in typed else v) for k, v in event.args.items()}
        stated = user_stated(list(self.listener.prefix[:-1] if before is None else before))
        named = {a.name for t in self.tools.values() for a in t.args}
        text_args = [k for k in args if kinds.get(k) == "text"]
        out: list[MemoryItem] = []
        for m in snapshot:
            if not m.slot or m.kind not in BINDING_KINDS:
                out.append(m)
                continue
            a = self.mapper.arg_for(event.tool, m.slot, m.topic, tuple(event.args))
            if (
                (a is None or a.name not in args)
                and text_args
                and m.slot not in named
                and any(m.item_id == x.item_id for x in self._scope_items())
            ):
                a = tool.arg(text_args[0]) if tool else None
            if a is None or a.name not in args:
                out.append(m)
                continue
            now, kind = args[a.name], kinds.get(a.name, "string")
            said = stated.get(a.name, "")
            if said and said != "?" and not allows(m.value, said, kind or "string"):
                continue  # the user stated another value in this task: it wins
            value = (
                now
                if allows(m.value, now, kind or "string")
                or (kind == "text" and same_value(kind, _said_value(m), now))
                else (canonical(kind, m.value) if kind in typed else m.value)
            )
            out.append(replace(m, slot=a.name, value=value))
        return replace(event, args=args), out

    def _decision_input(
        self, event: Event, trig: Trigger, prefix: Sequence[Event], count: bool = True
    ) -> tuple[list[MemoryItem], PolicyInput | None]:
        """Retrieval at `event` (the last event of `prefix`) and the policy input it makes (None: no
        evidence and `skip_policy_without_evidence`). The one code path of every decision point: an
        event's, the gate's, and a speculative gate input (`count=False`: not counted in the stats)."""
        snapshot = self._retrieve(event, trig, k=self.config.retrieve_k, count=count)
        view = None
        if event.kind == "candidate_call" and self.tools:
            tool = self.tools.get(event.tool)
            if tool and any(a.kind == "text" and a.name in event.args for a in tool.args):
                have = {m.item_id for m in snapshot}  # a result-committing text: the scope's facts too
                snapshot = snapshot + [m for m in self._scope_items() if m.item_id not in have]
            view = self._gate_view(event, snapshot, prefix[:-1])
        if not snapshot and self.config.skip_policy_without_evidence:
            return snapshot, None
        inp = self._policy_input(snapshot, prefix)
        if view is not None:
            inp = PolicyInput(inp.prefix[:-1] + (view[0],), tuple(view[1]))
        return snapshot, inp

    def _needs_policy(self, inp: PolicyInput) -> bool:
        return not self.config.precheck or needs_decision(inp, can_hold=self._can_hold(inp.prefix[-1]))

    def _can_hold(self, event: Event) -> bool:
        """Whether an intervention on `event` would hold it: not once the call's holds are spent."""
        cap = self.config.max_holds_per_call
        return not (event.kind == "candidate_call" and cap and self._holds.get(event.tool, 0) >= cap)

    # ---- speculation (concurrent streaming; see the module docstring) ---------------------------
    def _speculative_input(self, call: Event) -> PolicyInput | None:
        """The policy input the gate would build if `call` were the next event (nothing is appended to
        the prefix); None where the gate would make no policy call."""
        ents = event_entities(call)
        trig = Trigger(True, "candidate_call", tuple(e for e in ents if e not in self.listener.seen_entities))
        _, inp = self._decision_input(call, trig, [*self.listener.prefix, call], count=False)
        return inp if inp is not None and self._needs_policy(inp) else None

    def _keep_speculation(self, call: Event, inp: PolicyInput, out) -> None:
        with self._lock:
            if self._speculation is not None:  # superseded before any gate used it
                self.stats.speculative_misses += 1
            self._speculation = _Speculation(call, inp, out)
            self.stats.speculative_calls += 1

    def _speculate_rest(self, call: Event, inp: PolicyInput | None, decided: bool, delivered: bool) -> None:
        """After an announcing message was processed: if it delivered something (retrieval may differ
        now) re-check the speculative input, dropping a decision made for an input that changed; then
        decide the input ahead if not done yet, unless the gate is already waiting (it decides itself)."""
        t0 = time.perf_counter()
        if delivered:
            now = self._speculative_input(call)
            if decided and (now is None or not same_input(now, inp)):  # type: ignore[arg-type]
                with self._lock:
                    if self._speculation is not None and self._speculation.inp is inp:
                        self._speculation = None
                        self.stats.speculative_misses += 1
                decided = False
            inp = now
        if inp is not None and not decided and not self._gate_waiting:
            self._keep_speculation(call, inp, self.policy.decide_batch([inp])[0])
        with self._lock:
            self.stats.memory_wall_s += time.perf_counter() - t0

    def _process(
        self, event: Event, speculate: bool = False, cached: _Speculation | None = None
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
        decision, evidence, parse_ok, called, converted = Decision("silent"), [], True, False, ""
        from_speculation = False
        active = self.config.mode == "serial" or (self.config.mode == "streaming" and trig.fire)
        if (
            active
            and self._gate_waiting
            and event.kind != "candidate_call"
            and self.config.mode == "streaming"
        ):
            active = False
            self.stats_skipped_stale += 1
        ahead: tuple[Event, PolicyInput | None] | None = None  # (announced call, its gate input)
        if speculate and not self._gate_waiting:
            call = predict_call(event, self._call_specs)
            if call is not None and self.call_kinds.gated(call.tool):
                ahead = (call, self._speculative_input(call))
        decided_ahead = False
        n_delivered = len(self.delivered)
        if active:
            snapshot, inp = self._decision_input(event, trig, self.listener.prefix)
            out = None
            if inp is None:
                pass
            elif not self._needs_policy(inp):
                self.stats.precheck_skips += 1  # memory cannot change what happens next: no call
            elif cached is not None and same_input(cached.inp, inp):
                out, cached, from_speculation = cached.out, None, True  # decided ahead for this very input
                with self._lock:
                    self.stats.speculative_hits += 1
            else:
                batch = [inp] + ([ahead[1]] if ahead is not None and ahead[1] is not None else [])
                outs = self.policy.decide_batch(batch)
                out = outs[0]
                self.stats.policy_calls += 1
                if len(batch) > 1:
                    self._keep_speculation(ahead[0], batch[1], outs[1])  # type: ignore[index]
                    decided_ahead = True
            if out is not None:
                called = True
                parse_ok = out.parse.ok
                if not parse_ok:
                    self.stats.parse_failures += 1
                decision = out.decision
                by_id = {m.item_id: m for m in snapshot}
                evidence = [by_id[i] for i in decision.evidence if i in by_id]
                if decision.action == "intervene" and event.kind != "candidate_call":
                    self.stats.illegal_interventions += 1
                    decision, evidence, converted = Decision("silent"), [], "illegal_intervene->silent"
                elif decision.action == "intervene" and not self.call_kinds.gated(event.tool):
                    # a read-only call already ran (speculation): what memory has is for the next decision
                    decision, converted = (
                        Decision("supplement", decision.evidence, decision.message),
                        "read_only intervene->supplement",
                    )
                elif decision.action == "intervene" and not self._can_hold(event):
                    # the call's one hold is spent: it passes, and its evidence is not delivered again
                    decision, evidence, converted = Decision("silent"), [], "repeat_hold->silent"
                elif decision.action == "intervene" and not self.config.allow_intervene:
                    decision, converted = (
                        Decision("supplement", decision.evidence, decision.message),
                        "intervene->supplement",
                    )
        if cached is not None:  # decided ahead for another input: never acts
            with self._lock:
                self.stats.speculative_misses += 1
        if decision.action == "supplement" and evidence:
            self.stats.supplements += 1
            self._deliver(evidence, event.step, "supplement")
        elif decision.action == "supplement":
            decision = Decision("silent")  # a supplement without resolvable evidence delivers nothing
        elif decision.action == "intervene":
            self.stats.interventions += 1
            if evidence:
                self._deliver(evidence, event.step, "intervene")
        dt = time.perf_counter() - t0
        with self._lock:
            self.stats.memory_wall_s += dt
            self.stats.decisions.append(
                DecisionRecord(
                    event.step,
                    event.kind,
                    trig.reason if active else "",
                    decision.action,
                    tuple(m.item_id for m in evidence),
                    parse_ok,
                    called,
                    dt,
                    converted,
                    from_speculation,
                )
            )
        if ahead is not None:
            self._speculate_rest(ahead[0], ahead[1], decided_ahead, len(self.delivered) != n_delivered)
        return decision, evidence, parse_ok
