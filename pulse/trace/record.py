"""Opt-in per-episode traces for `pulse trace`: `PULSE_TRACE=1 pulse eval ...` adds a `trace` field
to every episode row of `episodes.jsonl`.

The harness wraps each episode's method session once (`traced(session, task, row)`; unchanged when
the variable is unset). The wrapper sits between the task agent and the session, so it sees every
task agent (simulated, scripted, LLM) the same way, and records:
- `events`: what the task agent showed the memory session, in order (request, messages, candidate
  calls, tool results) with their text and arguments;
- `gates`: the pre-commit gate's answer at each candidate call (action, evidence ids, message);
- `taken`: the supplements the task agent took before a decision (after which event);
- `retrievals`: for a Pulse session, every memory retrieval with the event it served and each
  returned item's score and the reason retrieval gives for it (`ScoredItem.reason`);
- `decisions`: the memory agent's decision log (`DecisionRecord`: trigger, action, evidence, parse
  ok, converted), and `deliveries`: every delivery (initial, supplement, intervene) with its items;
- `checkpoints`: the task's checkpoints (generated suites), which the viewer marks passed / failed
  with the row's `failed_checkpoints`.
The trace is written into the row when the session ends (the task agent's `end`, or the harness's
`end(False)` after a failure), so it is on the row the harness appends. Nothing here changes what
the session or the agent do.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

ENV = "PULSE_TRACE"
VERSION = 1


def enabled() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no")


def traced(session: Any, task: Any, row: dict[str, Any]) -> Any:
    """`session`, recording into `row["trace"]` when PULSE_TRACE is set; else `session` itself."""
    if not enabled() or session is None:
        return session
    return TracingSession(session, task, row)


def item_view(m: Any) -> dict[str, Any]:
    return {
        "id": m.item_id,
        "kind": m.kind,
        "slot": m.slot,
        "value": m.value,
        "text": m.text,
        "since": m.valid_from,
        "until": m.valid_to,
        "source": m.provenance.source_kind,
    }


def event_view(ev: Any) -> dict[str, Any]:
    out = {"step": ev.step, "kind": ev.kind}
    for key in ("role", "text", "tool"):
        if getattr(ev, key):
            out[key] = getattr(ev, key)
    if ev.args:
        out["args"] = dict(ev.args)
    return out


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


class TracingSession:
    def __init__(self, inner: Any, task: Any, row: dict[str, Any]):
        self._inner = inner
        self._task = task
        self._row = row
        self._events: list[dict[str, Any]] = []
        self._gates: list[dict[str, Any]] = []
        self._taken: list[dict[str, Any]] = []
        self._retrievals: list[dict[str, Any]] = []
        from pulse.agent.runtime import PulseAgent

        if isinstance(inner, PulseAgent):
            inner.memory = _RecordingMemory(inner.memory, self._on_retrieve)

    def __getattr__(self, name: str) -> Any:  # stats, config, ... of the wrapped session
        return getattr(self._inner, name)

    # -- the session interface (eval/methods/base.py) ---------------------------------------------
    def start(self, request):
        self._events.append(event_view(request))
        return self._inner.start(request)

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
                    "evidence": [m.item_id for m in gd.evidence],
                    "message": gd.message,
                    "parse_ok": gd.parse_ok,
                }
            )
        return gd

    def take_supplements(self, wait: bool = False):
        out = self._inner.take_supplements(wait)
        after = self._events[-1]["step"] if self._events else 0
        for d in out:
            self._taken.append({"after_step": after, "step": d.step, "items": [m.item_id for m in d.items]})
        return out

    def end(self, *args, **kwargs):
        stats = self._inner.end(*args, **kwargs)
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
                    {**item_view(s.item), "score": round(float(s.score), 4), "reason": s.reason}
                    for s in scored
                ],
            }
        )

    def _build(self, stats: Any) -> dict[str, Any]:
        decisions = [asdict(d) for d in getattr(stats, "decisions", [])]
        for d in decisions:
            d["evidence"] = list(d["evidence"])
            d["wall_s"] = round(d["wall_s"], 6)
        deliveries = [
            {
                "step": d.step,
                "source": d.source,
                "message": d.message,
                "items": [item_view(m) for m in d.items],
            }
            for d in getattr(stats, "deliveries", [])
        ]
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
            "request": getattr(self._task, "request_text", ""),
            "events": self._events,
            "gates": self._gates,
            "taken": self._taken,
            "retrievals": self._retrievals,
            "decisions": decisions,
            "deliveries": deliveries,
            "checkpoints": checkpoints,
        }
