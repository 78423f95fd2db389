"""What one task episode produced, whichever task agent ran it (scored by the harness)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pulse.core.records import Event


@dataclass
class InterventionRecord:
    """One held call of an episode: its step and tool, whether the intervention was correct, whether the
    step's final call was right (`fixed`) or made wrong (`misled`), and the evidence item ids."""

    step: int
    tool: str
    # a correct intervention (pulse.core.correctness.is_correct_intervention): the held call
    # conflicts with a current binding memory item of the true memory *and* the evidence names it
    correct: bool
    fixed: bool = False  # the call finally executed for this step had every argument right
    # the held call had every argument right, and the call finally executed did not (the
    # intervention made a right call wrong: the paper's Notion/Obsidian case)
    misled: bool = False
    evidence: tuple[str, ...] = ()


@dataclass
class EpisodeOutcome:
    """What a task agent reports of one episode: LLM and tool calls, tool errors, abandoned steps, time (and
    the part spent blocked on memory), each intervention, what held calls made it do, and the agent's own
    events and extra fields. The harness scores it and writes it into the episode row."""

    llm_calls: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    abandoned_steps: int = 0
    seconds: float = 0.0  # time per task (simulated agent: latency model + measured memory time)
    memory_blocking_s: float = 0.0
    interventions: list[InterventionRecord] = field(default_factory=list)
    # what the agent did with each held call (eval/agents/behaviour.py hold_response): counts
    hold_responses: dict[str, int] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def event_maker(task) -> Callable[..., Event]:
    """`event(kind, **fields)`: the episode's next event, numbered 1, 2, ... and stamped with the
    task's time and an id `<task_id>#<n>` (what every task agent shows the memory session)."""
    n = 0

    def event(kind: str, **kw) -> Event:
        nonlocal n
        n += 1
        return Event(kind, n, time=task.time, event_id=f"{task.task_id}#{n}", **kw)

    return event
