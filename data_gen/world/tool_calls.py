"""Trajectory events of a task agent working on a task: requests, messages, candidate calls, results.

All builders return `pulse.core.records.Event`s whose `args` carry the structured slot values
(the compact policy prompt reads `args`, the rich one reads `text`). Tool results never carry
slot values: a tool result can never state a user preference (DESIGN §1, memory writes).
"""

from __future__ import annotations

from collections.abc import Mapping

from data_gen.world.domains import DomainSpec
from pulse.core.records import Event

# Roles of message events. A supplement the memory agent delivered earlier is a message too
# (pulse.core.gold.context_values counts it as context); it gets its own role so both prompts show it.
USER, AGENT, MEMORY = "user", "agent", "memory"


def describe(spec: DomainSpec, args: Mapping[str, str]) -> str:
    """Explicit phrases for the slot values in args ("in size 32x32, under $60")."""
    return ", ".join(spec.slot(s).explicit.format(v=v) for s, v in args.items() if s in spec.slot_names)


def request_event(step: int, time: str, text: str, args: Mapping[str, str]) -> Event:
    return Event("request", step, time, text, args=dict(args), role=USER, event_id=f"e{step}")


def message_event(step: int, time: str, role: str, text: str, args: Mapping[str, str] | None = None) -> Event:
    return Event("message", step, time, text, args=dict(args or {}), role=role, event_id=f"e{step}")


def call_event(step: int, time: str, tool: str, query: str, slot_args: Mapping[str, str]) -> Event:
    args = {"query": query, **slot_args}
    text = f"{tool}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
    return Event("candidate_call", step, time, text, tool=tool, args=args, event_id=f"e{step}")


def result_event(step: int, time: str, tool: str, n_results: int, top: str) -> Event:
    text = f"{n_results} results; top: {top}" if n_results else "no results"
    return Event(
        "tool_result", step, time, text, tool=tool, args={"n_results": str(n_results)}, event_id=f"e{step}"
    )
