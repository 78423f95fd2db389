"""The policy interface used by policy evaluation and the run-time agent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pulse.core.policy_io import ParseResult, PolicyInput, PromptStyle, parse_for
from pulse.core.records import Decision


@dataclass(frozen=True)
class PolicyOutput:
    """One policy decision: the decision (a parse failure already mapped to silent), the parse result, the raw
    completion and its token count."""

    decision: Decision  # real item ids; parse failures already mapped to silent
    parse: ParseResult  # as parsed, evidence mapped back to real item ids
    completion: str
    completion_tokens: int = 0


def outputs_from_texts(
    texts: Sequence[str],
    inputs: Sequence[PolicyInput],
    style: PromptStyle,
    token_counts: Sequence[int] | None = None,
) -> list[PolicyOutput]:
    """Parse each completion for its input; evidence comes back as real item ids."""
    counts = token_counts or [0] * len(texts)
    out = []
    for text, inp, n in zip(texts, inputs, counts):
        parsed = parse_for(text, inp, style)
        out.append(PolicyOutput(parsed.decision_or_silent(), parsed, text, n))
    return out


@runtime_checkable
class Policy(Protocol):
    """What every policy backend offers: a `name` and `decide_batch`."""

    name: str

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        """Decide every input of a batch.

        Args:
            inputs: the `PolicyInput`s (event prefix and memory snapshot), in any number; the backend
                batches them as it can.

        Returns:
            One `PolicyOutput` per input, in order, evidence as real item ids. A completion that does not
            parse is a silent decision with `parse.ok` False, never an error.

        Raises:
            Exception: whatever the engine raises (e.g. the endpoint client's errors after its
                retries).
        """
