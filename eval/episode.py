"""What one task episode produced, whichever task agent ran it (scored by the harness)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class InterventionRecord:
    step: int
    tool: str
    right: bool  # the held call had at least one argument that differs from gold
    fixed: bool = False  # the call finally executed for this step was correct on those arguments
    evidence: tuple[str, ...] = ()


@dataclass
class EpisodeOutcome:
    llm_calls: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    abandoned_steps: int = 0
    seconds: float = 0.0  # time per task (simulated agent: latency model + measured memory time)
    memory_blocking_s: float = 0.0
    interventions: list[InterventionRecord] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
