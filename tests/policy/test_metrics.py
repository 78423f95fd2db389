from pulse.core.examples import PolicyExample
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Decision, Event, MemoryItem
from pulse.policy.base import outputs_from_texts
from pulse.policy.evaluate import format_metrics_table, policy_metrics


def _ex(i, gold, case="conflict"):
    inp = PolicyInput(
        (Event("candidate_call", 0, tool="t", args={"size": "M"}),),
        (MemoryItem("m1", "preference", "user:u", "size L", slot="size", value="L"),),
    )
    return PolicyExample(f"e{i}", "g", "u", case, inp, gold)


def test_policy_metrics_on_crafted_outputs():
    exs = [
        _ex(0, Decision("intervene", ("m1",))),
        _ex(1, Decision("intervene", ("m1",))),
        _ex(2, Decision("silent"), "consistent"),
        _ex(3, Decision("silent"), "habit"),
    ]
    outs = outputs_from_texts(
        [
            '{"action": "intervene", "evidence": ["m1"]}',  # correct intervention
            '{"action": "intervene", "evidence": ["m9"]}',  # right action, wrong evidence
            '{"action": "intervene", "evidence": ["m1"]}',  # wrong interruption
            "not json",
        ],
        [ex.inp for ex in exs],
        "compact",
    )  # parse failure -> silent
    m = policy_metrics(exs, outs)
    assert m["action_accuracy"] == 3 / 4
    assert m["decision_accuracy"] == 2 / 4
    assert m["strict_decision_accuracy"] == 1 / 4
    assert m["interventions"] == 3 and m["correct_interventions"] == 1
    assert abs(m["interruption_success"] - 1 / 3) < 1e-9
    assert m["parse_failure_rate"] == 1 / 4
    assert m["per_action"]["intervene"]["recall"] == 1 / 2
    assert m["decision_accuracy_by_case"] == {"conflict": 0.5, "consistent": 0.0, "habit": 1.0}
    assert "| p | 4 | 75.0 | 50.0 | 33.3 | 3 | 25.0 |" in format_metrics_table({"p": m})


def test_no_interventions_reports_none_not_zero():
    m = policy_metrics(
        [_ex(0, Decision("silent"))],
        outputs_from_texts(['{"action": "silent"}'], [_ex(0, Decision("silent")).inp], "compact"),
    )
    assert m["interruption_success"] is None and m["decision_accuracy"] == 1.0
