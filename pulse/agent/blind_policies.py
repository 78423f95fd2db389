"""Situation-blind reference policies (no language model): what a memory agent scores when it
ignores the situation. They answer "does selectivity matter in this world?".

- `supplement_all`: supplement every memory line the prompt shows, at every decision point.
- `intervene_all`: intervene on every candidate call with every line shown as evidence (silent at
  other events, where an intervention is illegal).
Same Policy interface and canonical JSON completions as `RulePolicy`; `method.policy=supplement_all`
or `intervene_all` selects them (eval/harness.py). Reported as reference rows, never as methods.
"""

from __future__ import annotations

from collections.abc import Sequence

from pulse.core.policy_io import PolicyInput, gold_completion, parse_for
from pulse.core.records import Decision
from pulse.policy.base import PolicyOutput


def blind_decision(inp: PolicyInput, mode: str) -> Decision:
    """The blind decision for `mode`: silent with an empty snapshot; `intervene_all` intervenes with every
    line at a candidate call and is silent elsewhere; `supplement_all` supplements every line."""
    ids = tuple(m.item_id for m in inp.snapshot)
    if not ids:
        return Decision("silent")
    if mode == "intervene_all":
        return Decision("intervene", ids) if inp.last_event.kind == "candidate_call" else Decision("silent")
    return Decision("supplement", ids)


class BlindPolicy:
    """A situation-blind reference policy, `supplement_all` or `intervene_all` (ValueError for another mode),
    with the Policy interface."""

    def __init__(self, mode: str):
        if mode not in ("supplement_all", "intervene_all"):
            raise ValueError(f"blind policy {mode!r} not in ('supplement_all', 'intervene_all')")
        self.name = mode

    def decide_batch(self, inputs: Sequence[PolicyInput]) -> list[PolicyOutput]:
        """One `PolicyOutput` per input: the blind decision as the canonical JSON completion, parsed back."""
        outs = []
        for inp in inputs:
            text = gold_completion(inp, blind_decision(inp, self.name))
            parsed = parse_for(text, inp)
            outs.append(PolicyOutput(parsed.decision_or_silent(), parsed, text, 0))
        return outs
