"""An avoided value ("never to a gift card", memory value `not:gift_card`) under the one comparison
rule (`pulse.core.values.allows`) that the gold rule, the pre-check and correctness share."""

from __future__ import annotations

from pulse.core.correctness import conflicts
from pulse.core.gold import gold_decision
from pulse.core.records import Event, MemoryItem, Provenance
from pulse.core.values import AVOID, allows, avoid_value, avoided, one_of_value, wanted

AVOID_GIFT = MemoryItem(
    "m1",
    "preference",
    "user:u",
    "The user avoids payment_method = gift_card.",
    slot="payment_method",
    value=AVOID + "gift_card",
    provenance=Provenance("user_statement", "e1", "never to a gift card"),
)


def test_allows():
    assert allows("credit_card", "credit_card") and not allows("credit_card", "gift_card")
    assert not allows("not:gift_card", "gift_card") and allows("not:gift_card", "paypal")
    assert allows("not:https://shop.com", "paypal", "domain") and not allows(
        "not:shop.com", "www.shop.com/x", "domain"
    )


def _call(value: str) -> list[Event]:
    return [
        Event("request", 0, role="user", text="Refund order 1."),
        Event("candidate_call", 1, tool="refund", args={"payment_method": value}),
    ]


def test_gold_holds_the_avoided_value_and_passes_any_other():
    held = gold_decision(_call("gift_card"), [AVOID_GIFT])
    assert held.action == "intervene" and held.evidence == ("m1",)
    assert gold_decision(_call("paypal"), [AVOID_GIFT]).action == "silent"
    assert conflicts(AVOID_GIFT, {"payment_method": "gift_card"})
    assert not conflicts(AVOID_GIFT, {"payment_method": "paypal"})


def test_several_avoided_values_are_one_memory_value():
    both = avoid_value(["paypal", "gift_card", "paypal"])
    assert both == "not:paypal|gift_card" and avoided(both) == ("paypal", "gift_card")
    assert not allows(both, "paypal") and not allows(both, "gift_card") and allows(both, "credit_card")
    assert avoided("paypal") == ()


def test_values_wanted_in_one_breath_are_one_memory_value():
    either = one_of_value(["zoom", "teams", "zoom"])
    assert either == "any:zoom|teams" and wanted(either) == ("zoom", "teams")
    assert allows(either, "zoom") and allows(either, "teams") and not allows(either, "phone")
    assert one_of_value(["zoom"]) == "zoom" and wanted("zoom") == ("zoom",) and wanted("not:zoom") == ()
