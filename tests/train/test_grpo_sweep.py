"""scripts/grpo_sweep.py: GRPO runs from one SFT start grouped by their knobs, each group's difference
from the SFT start over its seeds, and the training signal per step."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import grpo_sweep as gs  # noqa: E402


def _eval(folder: Path, name: str, acc: float, interventions: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(
        json.dumps(
            {
                "n": 400,
                "decision_accuracy": acc,
                "interruption_success": 0.8,
                "interventions": interventions,
                "per_action": {"intervene": {"recall": acc - 0.1}},
            }
        )
    )


def _run(root: Path, name: str, temperature: float, seed: int, acc: float, zero: list[float]) -> Path:
    run = root / name
    _eval(run, "eval_grpo.json", acc, 100)
    cfg = {
        "seed": seed,
        "grpo": {"temperature": temperature, "generations_per_prompt": 8, "prompts_per_step": 8, "steps": 3},
        "reward": {"weights": {"wrong_intervention": -1.0}},
    }
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    rows = [{"stage": "sft", "step": 1, "loss": 1.0}]
    rows += [
        {"stage": "grpo", "step": i + 1, "reward": 0.5 + 0.1 * i, "frac_reward_zero_std": z}
        for i, z in enumerate(zero)
    ]
    (run / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return run


def test_runs_group_by_knobs_and_pair_with_the_sft_start(tmp_path):
    _eval(tmp_path / "sft", "eval_sft.json", 0.80, 104)
    runs = [
        _run(tmp_path, "t1-s0", 1.0, 0, 0.85, [0.5, 0.5, 0.5]),
        _run(tmp_path, "t1-s1", 1.0, 1, 0.86, [0.25, 0.25, 0.25]),
        _run(tmp_path, "t2-s0", 2.0, 0, 0.85, [0.0, 0.0, 0.0]),
        _run(tmp_path, "t2-s1", 2.0, 1, 0.79, [0.0, 0.0, 0.0]),
    ]
    text = gs.report(tmp_path / "sft", runs)
    lines = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| 1.0 |")}
    assert len(lines) == 1
    # +5 and +6 points over the same start: beyond the spread; reward 0.5..0.7 over three steps
    moved = "+5.5 ± 0.5 (+5.0, +6.0)"  # decision accuracy and intervene recall
    assert f"| 0, 1 | {moved} | +0.0 ± 0.0 (+0.0, +0.0) | {moved} | -4.0 ± 0.0 | yes |" in text
    assert "+0.60 → +0.60 | 38 % |" in text
    assert "| 0, 1 | +2.0 ± 3.0 (+5.0, -1.0) |" in text and "| 2.0 | 8 |" in text  # moved both ways: no
    assert "| t2-s1 | 79.0 | 80.0 | 100 |" in text


def test_a_run_without_its_evaluation_is_named(tmp_path):
    _eval(tmp_path / "sft", "eval_sft.json", 0.80, 104)
    run = _run(tmp_path, "r", 1.0, 0, 0.85, [0.5])
    (run / "eval_grpo.json").unlink()
    with pytest.raises(gs.SweepError, match="eval_grpo.json: cannot read run file"):
        gs.report(tmp_path / "sft", [run])
    assert gs.main(["--sft", str(tmp_path / "sft"), str(run)]) == 2


def test_curves_are_drawn_per_configuration_over_its_seeds(tmp_path, monkeypatch):
    _eval(tmp_path / "sft", "eval_sft.json", 0.80, 104)
    runs = [
        _run(tmp_path, "t1-s0", 1.0, 0, 0.85, [0.5, 0.5, 0.5]),
        _run(tmp_path, "t1-s1", 1.0, 1, 0.86, [0.25, 0.25, 0.25]),
        _run(tmp_path, "t2-s0", 2.0, 0, 0.85, [0.0, 0.0, 0.0]),
    ]
    import eval.demo_report as demo_report

    drawn = {}
    real = demo_report.plot_reward_curves
    monkeypatch.setattr(
        demo_report,
        "plot_reward_curves",
        lambda runs, out, keys, title: drawn.update(runs) or real(runs, out, keys, title),
    )
    out = tmp_path / "curves.png"
    assert gs.main(["--sft", str(tmp_path / "sft"), *map(str, runs), "--curves", str(out)]) == 0
    # one line per configuration, over both of its seeds' step logs; the signal's share is drawn
    assert {k: len(v) for k, v in drawn.items()} == {"T 1.0, G 8": 2, "T 2.0, G 8": 1}
    assert "frac_reward_zero_std" in dict(gs.CURVES)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
