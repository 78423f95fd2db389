"""Opt-in per-episode traces for `pulse trace`: `PULSE_TRACE=1 pulse eval ...` adds a `trace` field
to every episode row of `episodes.jsonl`.

The harness wraps each episode's method session once (`traced(session, task, row)`; unchanged when
the variable is unset) and, after the task agent's run, adds the task agent's own record of the
episode (`note_outcome(row, outcome)`). The wrapper sits between the task agent and the session, so
it sees every task agent (simulated, scripted, LLM) and every method (Pulse, the memory baselines,
the Proactive Memory Agent, none) the same way, and records (version 2):
- `events`: what the task agent showed the memory session, in order (request, messages, candidate
  calls, tool results) with their text and arguments;
- `deliveries`: every delivery of any method, as the task agent received it: the initial one
  (`start`), each supplement, reminder or injected bank the task agent took before a decision
  (`take_supplements`; `after_step` = the last event before it was taken; `transient` = context of
  the next call only, the Proactive Memory Agent's reminder), and the method's own deliveries the
  task agent never took (`after_step` null); an intervention's evidence is in `gates`;
- `gates`: the pre-commit gate's answer at each candidate call (action, evidence ids, message);
- `retrievals`: for a Pulse session, every memory retrieval with the event it served and each
  returned item's score and the reason retrieval gives for it (`ScoredItem.reason`);
- `items`: every memory item named anywhere above, once (id -> kind, slot, value, text, validity);
- `decisions`: the memory agent's decision log (`DecisionRecord`: trigger, action, evidence, parse
  ok, converted);
- `policy`: each policy call of a Pulse session (the step it decided, its prompt as the policy's
  prompt style renders it, its raw output; `speculative` for a decision made ahead), and each
  memory-side LLM call of a text method (`purpose`, prompt = system + user, raw output); prompts
  are capped at `PROMPT_CAP` characters and outputs at `OUTPUT_CAP` (the middle is cut, marked);
- `checkpoints`: the task's checkpoints (generated suites), which the viewer marks passed / failed
  with the row's `failed_checkpoints`;
- from the task agent (`note_outcome`): `interventions` (per held call: step, tool, correct, fixed,
  misled, evidence; `eval/episode.py` InterventionRecord) and `announced` (a plan message's intended
  arguments, by step: the agent-side record only).
The trace is written into the row when the session ends (the task agent's `end`, or the harness's
`end(False)` after a failure), so it is on the row the harness appends. Nothing here changes what
the session or the agent do.
"""

from __future__ import annotations

import os
import threading
from dataclasses import asdict
from typing import Any

ENV = "PULSE_TRACE"
VERSION = 2
PROMPT_CAP = 6000  # characters of a recorded prompt (head and tail kept)
OUTPUT_CAP = 2000  # characters of a recorded raw output
MESSAGE_CAP = 4000  # characters of a delivery's or a gate's message


def enabled() -> bool:
    """True when PULSE_TRACE is set to anything but "", 0, false or no."""
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no")


def traced(session: Any, task: Any, row: dict[str, Any]) -> Any:
    """The episode's session, recording its trace into `row["trace"]` when PULSE_TRACE is set.

    Args:
        session: the method's session for one task (None: a failed open; returned as it is).
        task: the task (its request and, for a generated suite, its checkpoints go into the trace).
        row: the episode row the harness will append; the trace is added when the session ends.

    Returns:
        A `TracingSession` around `session` when tracing is on, else `session` itself.
    """
    if not enabled() or session is None:
        return session
    return TracingSession(session, task, row)


def note_outcome(row: dict[str, Any], outcome: Any) -> None:
    """The task agent's record of a traced episode: each intervention's verdict and the intended
    arguments of plan messages (no-op for a row without a trace)."""
    tr = row.get("trace")
    if tr is None:
        return
    tr["interventions"] = [
        {**asdict(i), "evidence": list(i.evidence)} for i in getattr(outcome, "interventions", ())
    ]
    tr["announced"] = {
        str(e["step"]): e["announced"]
        for e in getattr(outcome, "events", ())
        if isinstance(e, dict) and "announced" in e and "step" in e
    }


def cap(text: Any, limit: int) -> str:
    """`text` of at most about `limit` characters: head and tail, the cut marked with its size."""
    text = "" if text is None else str(text)
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    tail = limit - head
    return f"{text[:head]}\n… [{len(text) - limit} characters cut] …\n{text[len(text) - tail :]}"


def item_view(m: Any) -> dict[str, Any]:
    return {
        "id": m.item_id,
        "kind": m.kind,
        "slot": m.slot,
        "value": m.value,
        "text": cap(m.text, MESSAGE_CAP),
        "since": m.valid_from,
        "until": m.valid_to,
        "source": m.provenance.source_kind,
    }


def event_view(ev: Any) -> dict[str, Any]:
    out = {"step": ev.step, "kind": ev.kind}
    for key in ("role", "text", "tool"):
        if getattr(ev, key):
            out[key] = cap(getattr(ev, key), MESSAGE_CAP)
    if ev.args:
        out["args"] = dict(ev.args)
    return out


def prompt_text(messages: Any) -> str:
    if isinstance(messages, str):
        return messages
    return "\n\n".join(f"[{m.get('role', '')}]\n{m.get('content', '')}" for m in messages)


_local = threading.local()  # .recorder: the traced session of this thread, for memory-side LLM calls
_install_lock = threading.Lock()


def _install(llm: Any) -> bool:
    """Make `llm` (a run's memory-side LLM, eval/methods/memory_llm.py, shared by every chain of the
    run) report each call's prompt and raw text to the traced session of the calling thread; calls
    outside a traced session (the seed build) report nothing. False where it has no `_complete`."""
    with _install_lock:
        if getattr(llm, "_pulse_trace_recording", False):
            return True
        complete = getattr(llm, "_complete", None)
        if not callable(complete):
            return False

        def recording(purpose, system, user, standin):
            out = complete(purpose, system, user, standin)
            rec = getattr(_local, "recorder", None)
            if rec is not None:
                rec(purpose, system, user, out[1])
            return out

        llm._complete = recording
        llm._pulse_trace_recording = True
        return True


class _RecordingMemory:
    """A memory whose `retrieve` also reports each query and its scored items; the rest delegates."""

    def __init__(self, inner: Any, on_retrieve):
        self._inner = inner
        self._on_retrieve = on_retrieve

    def retrieve(self, query):
        scored = self._inner.retrieve(query)
        self._on_retrieve(query, scored)
        return scored

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _RecordingPolicy:
    """A policy whose `decide_batch` also reports each input's prompt and raw output."""

    def __init__(self, inner: Any, on_call):
        self._inner = inner
        self._on_call = on_call

    def decide_batch(self, inputs):
        outs = self._inner.decide_batch(inputs)
        self._on_call(self._inner, list(inputs), list(outs))
        return outs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class TracingSession:
    """A method session that records its episode's trace (the module docstring) into `row["trace"]`: built by
    `traced(session, task, row)`, it forwards the session interface (`start`, `observe`, `decide_call`,
    `take_supplements`, `end`) to the wrapped session and writes the trace when the session ends. A Pulse
    session also gets its retrievals and policy calls recorded; any other attribute is the wrapped session's.
    """

    def __init__(self, inner: Any, task: Any, row: dict[str, Any]):
        self._inner = inner
        self._task = task
        self._row = row
        self._events: list[dict[str, Any]] = []
        self._gates: list[dict[str, Any]] = []
        self._deliveries: list[dict[str, Any]] = []
        self._taken: set[int] = set()  # id() of the Delivery objects the task agent took
        self._retrievals: list[dict[str, Any]] = []
        self._policy: list[dict[str, Any]] = []
        self._items: dict[str, dict[str, Any]] = {}
        self._llm = False
        from pulse.agent.runtime import PulseAgent

        if isinstance(inner, PulseAgent):
            inner.memory = _RecordingMemory(inner.memory, self._on_retrieve)
            inner.policy = _RecordingPolicy(inner.policy, self._on_policy)
        else:  # a text method: its memory-side LLM calls (eval/methods/text_method.py Accountant)
            llm = getattr(getattr(getattr(inner, "chain", None), "acct", None), "llm", None)
            if llm is not None and _install(llm):
                _local.recorder = self._on_llm  # this thread's session (a chain runs on one thread)
                self._llm = True

    def __getattr__(self, name: str) -> Any:  # stats, config, ... of the wrapped session
        return getattr(self._inner, name)

    def _step(self) -> int | None:
        return self._events[-1]["step"] if self._events else None

    def _ids(self, items) -> list[str]:
        for m in items:
            if m.item_id not in self._items:
                self._items[m.item_id] = item_view(m)
        return [m.item_id for m in items]

    def _delivery(self, d: Any, after: int | None) -> None:
        self._deliveries.append(
            {
                "step": d.step,
                "source": d.source,
                "transient": bool(getattr(d, "transient", False)),
                "after_step": after,
                "message": cap(d.message, MESSAGE_CAP),
                "items": self._ids(d.items),
            }
        )

    # -- the session interface (eval/methods/base.py) ---------------------------------------------
    def start(self, request):
        self._events.append(event_view(request))
        d = self._inner.start(request)
        if d is not None:
            self._taken.add(id(d))
            self._delivery(d, request.step)
        return d

    def observe(self, event) -> None:
        self._events.append(event_view(event))
        self._inner.observe(event)

    def decide_call(self, event):
        self._events.append(event_view(event))
        gd = self._inner.decide_call(event)
        if gd is not None:
            self._gates.append(
                {
                    "step": event.step,
                    "action": gd.decision.action,
                    "evidence": self._ids(gd.evidence),
                    "message": cap(gd.message, MESSAGE_CAP),
                    "parse_ok": gd.parse_ok,
                }
            )
        return gd

    def take_supplements(self, wait: bool = False):
        out = self._inner.take_supplements(wait)
        for d in out:
            self._taken.add(id(d))
            self._delivery(d, self._step() or 0)
        return out

    def end(self, *args, **kwargs):
        try:
            stats = self._inner.end(*args, **kwargs)
        finally:
            if self._llm and getattr(_local, "recorder", None) == self._on_llm:
                _local.recorder = None
            self._llm = False
        self._row["trace"] = self._build(stats)
        return stats

    close = end

    # -- recording --------------------------------------------------------------------------------
    def _on_retrieve(self, query, scored) -> None:
        prefix = getattr(getattr(self._inner, "listener", None), "prefix", None)
        step = prefix[-1].step if prefix else None
        self._retrievals.append(
            {
                "step": step,
                "subgoal": query.subgoal,
                "entities": list(query.entities),
                "call": query.candidate_call.tool if query.candidate_call is not None else "",
                "items": [
                    {"id": i, "score": round(float(s.score), 4), "reason": s.reason}
                    for i, s in zip(self._ids([s.item for s in scored]), scored)
                ],
            }
        )

    def _on_llm(self, purpose: str, system: str, user: str, text: str) -> None:
        prompt = prompt_text([{"role": "system", "content": system}, {"role": "user", "content": user}])
        self._policy.append(
            {
                "step": self._step(),
                "purpose": purpose,
                "prompt": cap(prompt, PROMPT_CAP),
                "output": cap(text, OUTPUT_CAP),
            }
        )

    def _on_policy(self, policy: Any, inputs: list, outs: list) -> None:
        from pulse.core.policy_io import render_prompt

        style = getattr(policy, "prompt_style", "compact") or "compact"
        for n, (inp, out) in enumerate(zip(inputs, outs)):
            try:
                prompt = prompt_text(render_prompt(inp, style))
            except Exception as e:  # a style this renderer does not know: the trace says so
                prompt = f"(prompt not rendered: {type(e).__name__}: {e})"
            self._policy.append(
                {
                    "step": inp.last_event.step,
                    "event": inp.last_event.kind,
                    "speculative": n > 0,
                    "prompt": cap(prompt, PROMPT_CAP),
                    "output": cap(getattr(out, "completion", ""), OUTPUT_CAP),
                }
            )

    def _build(self, stats: Any) -> dict[str, Any]:
        decisions = [asdict(d) for d in getattr(stats, "decisions", [])]
        for d in decisions:
            d["evidence"] = list(d["evidence"])
            d["wall_s"] = round(d["wall_s"], 6)
        for d in getattr(stats, "deliveries", []):  # the method's own, never taken by the task agent
            if id(d) not in self._taken and d.source != "intervene":
                self._delivery(d, None)
        checkpoints = [
            {
                "id": c.checkpoint_id,
                "artifact": c.artifact,
                "slot": c.slot,
                "expected": c.expected,
                "stage": c.stage,
                "source": c.source,
                "weight": c.weight,
            }
            for c in getattr(self._task, "checkpoints", ())
        ]
        return {
            "version": VERSION,
            "request": cap(getattr(self._task, "request_text", ""), MESSAGE_CAP),
            "events": self._events,
            "gates": self._gates,
            "deliveries": self._deliveries,
            "retrievals": self._retrievals,
            "items": self._items,
            "decisions": decisions,
            "policy": self._policy,
            "checkpoints": checkpoints,
        }
