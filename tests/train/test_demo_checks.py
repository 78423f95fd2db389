"""The demo's checks of the paper's training claims read the right numbers and say "not run" honestly."""
from eval.demo_hook import suite_checks
from pulse.demo import policy_checks


def _m(acc, interventions, success, silent, n=100):
    return {"decision_accuracy": acc, "interventions": interventions, "interruption_success": success, "n": n,
            "per_action": {"silent": {"chosen": silent}}}


def test_policy_checks_penalty_direction():
    res = {"SFT only": [_m(0.70, 40, 0.5, 40), _m(0.72, 42, 0.5, 40)],
           "GRPO (penalty 0)": [_m(0.71, 50, 0.6, 30), _m(0.71, 52, 0.6, 30)],
           "GRPO (penalty -1)": [_m(0.76, 30, 0.8, 50), _m(0.75, 28, 0.9, 50)]}
    c = policy_checks(res)
    assert c["both_penalties_intervene"] and c["penalty_fewer_interventions"]
    assert c["penalty_higher_interruption_success"] and not c["grpo_always_silent"]
    assert abs(c["grpo_minus_sft_decision_accuracy_pts"] - 4.5) < 1e-9


def test_policy_checks_always_silent_is_not_a_penalty_effect():
    res = {"SFT only": [_m(0.4, 40, 0.3, 40)], "GRPO (penalty 0)": [_m(0.4, 50, 0.3, 30)],
           "GRPO (penalty -1)": [_m(0.5, 0, None, 100)]}
    c = policy_checks(res)
    assert c["both_penalties_intervene"] is False and c["grpo_always_silent"] is True
    assert c["penalty_fewer_interventions"] is None and c["penalty_higher_interruption_success"] is None
    assert policy_checks({"SFT only": [_m(0.4, 1, 1.0, 1)]})["penalty_fewer_interventions"] is None


def test_suite_checks_compare_rows_per_benchmark():
    def s(score, n, success):
        return {"score": score, "interventions": n, "interruption_success": success}
    data = {("table1", "pulse_no_rl", "b"): [s(0.5, 10, 0.5)], ("table1", "pulse_penalty0", "b"): [s(0.6, 12, 0.5)],
            ("table1", "pulse", "b"): [s(0.7, 8, 0.75)]}
    c = suite_checks(data, ["b", "other"])["b"]
    assert c["grpo_beats_sft_score"] and c["penalty_beats_0_score"]
    assert c["penalty_beats_0_interruption_success"] and c["penalty_fewer_interventions"]
    assert suite_checks(data, ["other"])["other"]["grpo_beats_sft_score"] is None
