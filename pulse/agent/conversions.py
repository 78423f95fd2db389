"""What a policy's `intervene` becomes where it cannot hold the call: the runtime's one rule for it.

An intervention holds a proposed call and sends the evidence back to the task agent. Where that is
impossible or unwanted it becomes something else, checked in this order:
- `illegal_intervene->silent`: not at a candidate call (nothing to hold); counted as illegal.
- `read_only intervene->supplement`: a read-only call already ran (it is never held); what memory has
  is for the task agent's next decision.
- `repeat_hold->silent`: the call's holds are spent (`max_holds_per_call`); it passes, and the
  evidence it already had is not delivered again.
- `intervene->supplement`: interventions are off (`allow_intervene=False`, supplement-only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pulse.core.records import Decision

T = TypeVar("T")

ILLEGAL = "illegal_intervene->silent"
READ_ONLY = "read_only intervene->supplement"
REPEAT_HOLD = "repeat_hold->silent"
SUPPLEMENT_ONLY = "intervene->supplement"


def convert_intervene(
    decision: Decision,
    evidence: Sequence[T],
    *,
    at_call: bool,
    gated: bool,
    can_hold: bool,
    allow_intervene: bool,
) -> tuple[Decision, list[T], str]:
    """The decision the runtime acts on, its evidence and what was converted ("" = nothing).

    Args: the policy's `decision` and its resolved `evidence`; `at_call`: the event is a candidate
    call; `gated`: that call's tool is gated (not read-only); `can_hold`: the call has holds left;
    `allow_intervene`: the config allows interventions. Any other action is returned unchanged.
    """
    if decision.action != "intervene":
        return decision, list(evidence), ""
    if not at_call:
        return Decision("silent"), [], ILLEGAL
    if not gated:
        return Decision("supplement", decision.evidence, decision.message), list(evidence), READ_ONLY
    if not can_hold:
        return Decision("silent"), [], REPEAT_HOLD
    if not allow_intervene:
        return Decision("supplement", decision.evidence, decision.message), list(evidence), SUPPLEMENT_ONLY
    return decision, list(evidence), ""
