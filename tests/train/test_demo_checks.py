"""The demo's checks of the paper's training claims read the right numbers and say "not run" honestly."""

from eval.demo_report import policy_checks
from eval.demo_suites import suite_checks


def _m(acc, interventions, success, silent, n=100):
    return {
        "decision_accuracy": acc,
        "interventions": interventions,
        "interruption_success": success,
        "n": n,
        "per_action": {"silent": {"chosen": silent}},
    }


def test_policy_checks_penalty_direction():
    res = {
        "SFT only": [_m(0.70, 40, 0.5, 40), _m(0.72, 42, 0.5, 40)],
        "GRPO (penalty 0)": [_m(0.71, 50, 0.6, 30), _m(0.71, 52, 0.6, 30)],
        "GRPO (penalty -1)": [_m(0.76, 30, 0.8, 50), _m(0.75, 28, 0.9, 50)],
    }
    c = policy_checks(res)
    assert c["both_penalties_intervene"] and c["penalty_fewer_interventions"]
    assert c["penalty_higher_interruption_success"] and not c["grpo_always_silent"]
    assert abs(c["grpo_minus_sft_decision_accuracy_pts"] - 4.5) < 1e-9


def test_policy_checks_always_silent_is_not_a_penalty_effect():
    res = {
        "SFT only": [_m(0.4, 40, 0.3, 40)],
        "GRPO (penalty 0)": [_m(0.4, 50, 0.3, 30)],
        "GRPO (penalty -1)": [_m(0.5, 0, None, 100)],
    }
    c = policy_checks(res)
    assert c["both_penalties_intervene"] is False and c["grpo_always_silent"] is True
    assert c["penalty_fewer_interventions"] is None and c["penalty_higher_interruption_success"] is None
    assert policy_checks({"SFT only": [_m(0.4, 1, 1.0, 1)]})["penalty_fewer_interventions"] is None


def test_suite_checks_compare_rows_per_benchmark():
    def s(score, n, success):
        return {"score": score, "interventions": n, "interruption_success": success}

    data = {
        ("table1", "pulse_no_rl", "b"): [s(0.5, 10, 0.5)],
        ("table1", "pulse_penalty0", "b"): [s(0.6, 12, 0.5)],
        ("table1", "pulse", "b"): [s(0.7, 8, 0.75)],
    }
    c = suite_checks(data, ["b", "other"])["b"]
    assert c["grpo_beats_sft_score"] and c["penalty_beats_0_score"]
    assert c["penalty_beats_0_interruption_success"] and c["penalty_fewer_interventions"]
    assert suite_checks(data, ["other"])["other"]["grpo_beats_sft_score"] is None


def test_suite_decision_checks_and_seed_merge(tmp_path):
    """Per-seed demo results merge into mean ± stderr over the seeds; the issue-17 targets are checked
    on GRPO(-1)'s suite decision points against the oracle's intervention count."""
    import json

    from eval.demo_report import merge_seed_results
    from eval.demo_suite_decisions import SUITE_DECISION_KEYS, suite_decision_checks

    def cell(acc, succ, n_int, n_or):
        vals = dict.fromkeys(SUITE_DECISION_KEYS, 0.5)
        vals.update(
            decision_accuracy=acc, interruption_success=succ, interventions=n_int, oracle_interventions=n_or
        )
        return {
            **{k: {"mean": v, "stderr": None, "per_seed": [v]} for k, v in vals.items()},
            "confusion_per_seed": [{}],
        }

    def part(seed, acc):
        rows = {
            "SFT only": {"b": cell(acc - 0.02, 0.7, 30, 80)},
            "GRPO (penalty 0)": {"b": cell(acc, 0.75, 50, 80)},
            "GRPO (penalty -1)": {"b": cell(acc, 0.85, 45, 80)},
        }
        res = {
            k: [{**_m(acc, 10, 0.8, 5), "action_accuracy": acc, "parse_failure_rate": 0.0}]
            for k in ("SFT only", "GRPO (penalty 0)", "GRPO (penalty -1)")
        }
        return {
            "seeds": [seed],
            "results": res,
            "checkpoints": {f"s{seed}": {}},
            "train_config": {},
            "suite_decisions": {"seeds": [seed], "benchmarks": rows, "table": "t\nh\n-", "checks": {}},
        }

    dirs = []
    for seed, acc in ((0, 0.9), (1, 0.94)):
        d = tmp_path / f"s{seed}"
        d.mkdir()
        (d / "demo_results.json").write_text(json.dumps(part(seed, acc)))
        dirs.append(d)
    m = merge_seed_results(dirs, tmp_path / "out")
    sd = m["suite_decisions"]["benchmarks"]["GRPO (penalty -1)"]["b"]
    assert (
        sd["decision_accuracy"]["per_seed"] == [0.9, 0.94]
        and abs(sd["decision_accuracy"]["mean"] - 0.92) < 1e-9
    )
    assert sd["decision_accuracy"]["stderr"] is not None
    c = m["suite_decisions"]["checks"]["b"]
    assert (
        c["decision_accuracy_ge_90"] and c["interruption_success_ge_80"] and c["interventions_ge_half_oracle"]
    )
    assert c["penalty_fewer_interventions"] and c["penalty_higher_interruption_success"]
    assert abs(c["grpo_minus_sft_decision_accuracy_pts"] - 2.0) < 1e-6
    assert (tmp_path / "out" / "suite_decisions.json").exists()
    assert suite_decision_checks({}, ["b"])["b"]["decision_accuracy_ge_90"] is None
