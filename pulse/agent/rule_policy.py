"""A non-learned reference policy with the Policy interface (no language model).

It is the gold rule itself (`pulse.core.gold.gold_decision`) applied to the same `PolicyInput` the
trained policy sees, with no difference: on labelled data it reproduces every label (a test checks
this on the test split), so it is the upper bound of the *labelled task*. In the harness it is a
reference row (`method=pulse_rule`), reported as such; it is not the paper's method, and its
quality there is bounded by what retrieval puts in the snapshot. Its completions are the canonical
JSON, so stats and parse counters work unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from pulse.core.gold import gold_decision
from pulse.core.policy_io import PolicyInput, gold_completion, parse_for
from pulse.core.records import Decision
from pulse.policy.base import PolicyOutput


def rule_decision(inp: PolicyInput) -> Decision:
    """The gold rule's decision on `inp` (its prefix and snapshot)."""
    return gold_decision(inp.prefix, inp.snapshot)


class RulePolicy:
    """The gold rule as a policy (the module docstring): `decide_batch(inputs)` returns one
    `PolicyOutput` per `PolicyInput`, with the canonical JSON completion; never fails to parse."""

    name = "rule"

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        """One `PolicyOutput` per input: the gold rule's decision as the canonical JSON completion, parsed
        back."""
        outs = []
        for inp in inputs:
            text = gold_completion(inp, rule_decision(inp))
            parsed = parse_for(text, inp)
            outs.append(PolicyOutput(parsed.decision_or_silent(), parsed, text, 0))
        return outs
