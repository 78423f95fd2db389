"""The policy interface used by policy evaluation and the run-time agent."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

from pulse.core.policy_io import ParseResult, PolicyInput, parse_completion
from pulse.core.records import Decision


@dataclass(frozen=True)
class PolicyOutput:
    decision: Decision  # parse failures already mapped to silent
    parse: ParseResult
    completion: str
    completion_tokens: int = 0


def outputs_from_texts(texts: Sequence[str], token_counts: Sequence[int] | None = None) -> list[PolicyOutput]:
    counts = token_counts or [0] * len(texts)
    out = []
    for text, n in zip(texts, counts):
        parsed = parse_completion(text)
        out.append(PolicyOutput(parsed.decision_or_silent(), parsed, text, n))
    return out


@runtime_checkable
class Policy(Protocol):
    name: str

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]: ...
