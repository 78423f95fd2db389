"""The one rule for what an `intervene` becomes where it cannot hold the call (pulse/agent/conversions.py)."""

import pytest

from pulse.agent.conversions import ILLEGAL, READ_ONLY, REPEAT_HOLD, SUPPLEMENT_ONLY, convert_intervene
from pulse.core.records import Decision

HOLD = Decision("intervene", ("m1",), "use wandb")
CAN = dict(at_call=True, gated=True, can_hold=True, allow_intervene=True)


def test_a_legal_intervention_stays():
    assert convert_intervene(HOLD, ["e"], **CAN) == (HOLD, ["e"], "")


@pytest.mark.parametrize(
    "change, action, evidence, converted",
    [
        ({"at_call": False}, "silent", [], ILLEGAL),
        ({"gated": False}, "supplement", ["e"], READ_ONLY),
        ({"can_hold": False}, "silent", [], REPEAT_HOLD),
        ({"allow_intervene": False}, "supplement", ["e"], SUPPLEMENT_ONLY),
    ],
)
def test_each_conversion(change, action, evidence, converted):
    decision, got, why = convert_intervene(HOLD, ["e"], **{**CAN, **change})
    assert (decision.action, got, why) == (action, evidence, converted)
    if action == "supplement":  # the evidence and message travel with it
        assert (decision.evidence, decision.message) == (HOLD.evidence, HOLD.message)


def test_the_first_reason_wins():
    # not at a call: illegal, whatever else holds (the runtime counts it as an illegal intervention)
    assert (
        convert_intervene(HOLD, ["e"], at_call=False, gated=False, can_hold=False, allow_intervene=False)[2]
        == ILLEGAL
    )
    # a read-only call is never held, so spent holds do not matter
    assert (
        convert_intervene(HOLD, ["e"], at_call=True, gated=False, can_hold=False, allow_intervene=True)[2]
        == READ_ONLY
    )
    assert (
        convert_intervene(HOLD, ["e"], at_call=True, gated=True, can_hold=False, allow_intervene=False)[2]
        == REPEAT_HOLD
    )


@pytest.mark.parametrize("action", ["silent", "supplement"])
def test_other_actions_pass_unchanged(action):
    d = Decision(action, ("m1",) if action == "supplement" else ())
    assert convert_intervene(d, ["e"], at_call=False, gated=False, can_hold=False, allow_intervene=False) == (
        d,
        ["e"],
        "",
    )
