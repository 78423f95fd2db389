"""scripts/grpo_vs_sft.py: the paired GRPO - SFT difference and when it counts as beyond the spread."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import grpo_vs_sft as gvs  # noqa: E402


def test_beyond_spread_needs_every_seed_the_same_way_and_two_stderrs():
    assert gvs._paired([0.80, 0.82], [0.85, 0.86])[1]  # +5, +4: mean 4.5, stderr 0.5
    assert not gvs._paired([0.80, 0.82], [0.85, 0.81])[1]  # +5, -1: not the same way
    assert not gvs._paired([0.80, 0.80], [0.81, 0.86])[1]  # +1, +6: mean 3.5 < 2 x 2.5
    assert not gvs._paired([0.80], [0.90])[1]  # one seed has no spread


def _seed(folder: Path, seed: int, sft: float, grpo: float) -> None:
    def cell(acc):
        return {
            "decision_accuracy": acc,
            "interruption_success": 1.0,
            "confusion": {"intervene->intervene": 3, "silent->intervene": 1},
        }

    folder.mkdir(parents=True)
    (folder / "demo_results.json").write_text(
        json.dumps({"seeds": [seed], "results": {gvs.SFT: [cell(sft)], gvs.GRPO: [cell(grpo)]}})
    )

    def suite(acc):
        return {
            "decision_accuracy": {"mean": acc},
            "interruption_success": {"mean": 1.0},
            "confusion_per_seed": [{"silent->silent": 2}],
        }

    (folder / "suite_decisions.json").write_text(
        json.dumps(
            {"benchmarks": {gvs.SFT: {"pibench_sim": suite(sft)}, gvs.GRPO: {"pibench_sim": suite(grpo)}}}
        )
    )


def test_report_pairs_seeds_and_sums_confusions(tmp_path):
    _seed(tmp_path / "s0", 0, 0.80, 0.85)
    _seed(tmp_path / "s1", 1, 0.82, 0.86)
    text = gvs.report([tmp_path / "s0", tmp_path / "s1"])
    assert "| pibench_sim | decision acc | 80.0, 82.0 | 85.0, 86.0 | +4.5 ± 0.5 (+5.0, +4.0) | yes |" in text
    assert "| silent | 0 | 0 | 2 |" in text  # held-out confusion summed over the two seeds


def test_grpo_runs_replace_the_demos_grpo_with_a_variant_run(tmp_path):
    """--grpo-runs: the variant's held-out eval_grpo.json and `pulse eval-policy source=suite` file are
    paired with the demo's SFT of the same seed."""
    for seed, sft in ((0, 0.80), (1, 0.82)):
        _seed(tmp_path / f"s{seed}", seed, sft, 0.10)  # the demo's own GRPO must not be read
        run = tmp_path / "variant" / f"s{seed}"
        (run / "suite").mkdir(parents=True)
        (run / "eval_grpo.json").write_text(
            json.dumps({"decision_accuracy": sft + 0.01, "interruption_success": 1})
        )
        suite = {
            "decision_accuracy": sft + 0.05,
            "interruption_success": 1.0,
            "confusion": {"silent->silent": 7},
        }
        (run / "suite" / "suite_decisions.json").write_text(
            json.dumps({"benchmarks": {"pibench_sim": suite}})
        )
    text = gvs.report([tmp_path / "s0", tmp_path / "s1"], grpo_runs=str(tmp_path / "variant" / "s{seed}"))
    assert "| pibench_sim | decision acc | 80.0, 82.0 | 85.0, 87.0 | +5.0 ± 0.0 (+5.0, +5.0) |" in text
    assert "| held-out | decision acc | 80.0, 82.0 | 81.0, 83.0 |" in text
    assert "| silent | 14 | 0 | 0 |" in text  # the variant's suite confusion, summed over seeds
    assert "no GRPO trainer_state.json under" in text  # the training signal is looked for in the variant
