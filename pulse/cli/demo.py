"""`pulse demo` / `python -m pulse.cli.demo`: the whole spine on the CPU default in minutes.

generate data -> build tiny Qwen3 -> per seed: SFT warm start, then GRPO with penalty -1 and 0
(both from that SFT checkpoint) -> evaluate base, SFT-only, GRPO(0), GRPO(-1) on held-out users and
task groups -> table (mean ± stderr over seeds) + reward curves PNG + demo_results.json. What is
reported and how lives in `eval/demo_report.py` (and `eval/demo_suite_decisions.py`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pulse.cli.support import hydra_entry


def run_demo(train_cfg, demo_cfg) -> dict[str, Any]:
    """Train and evaluate the demo's runs under `train_cfg.out_dir`, then report them: per seed an SFT
    warm start, then one GRPO run from it per penalty in `demo_cfg.penalties` (the reward's
    `wrong_intervention` weight); the base and every checkpoint scored on the held-out examples, collected
    as `eval.demo_report.DemoRuns`; `demo_report` adds the offline suites, writes table, curves, results.

    Args:
        train_cfg: the typed `TrainConfig` every run of the demo starts from.
        demo_cfg: the demo's own knobs (`DemoConfig`).

    Returns:
        The demo's result, as written to demo_results.json.

    Raises:
        PulseUserError: a bad dataset row, a model that cannot load, a config value training refuses
            (ConfigError, RecordError, ModelLoadError, ...); `pulse demo` prints it as one line, exit 2.
    """
    from data_gen.ensure import ensure_dataset
    from eval.demo_report import DemoRuns, demo_report, penalty_name, untrained_metrics
    from pulse.train.data import load_examples
    from pulse.train.pipeline import ensure_model, run_training

    root = Path(train_cfg.out_dir)
    data_path = ensure_dataset(train_cfg.data)
    train = load_examples(data_path, "train", train_cfg.data.max_train_examples)
    held_out = load_examples(data_path, "test", train_cfg.data.max_eval_examples)
    base = ensure_model(train_cfg, train)
    penalties = sorted(demo_cfg.penalties, reverse=True)
    runs = DemoRuns.for_penalties(penalties)
    base_metrics = untrained_metrics(base, train_cfg.model, held_out)
    for seed in demo_cfg.seeds:
        print(f"\n[pulse demo] seed {seed}: SFT warm start", flush=True)
        runs.add_base(base_metrics)
        at = root / f"s{seed}"
        sft_cfg = dataclasses.replace(
            train_cfg,
            seed=seed,
            run_name=f"s{seed}-sft",
            out_dir=str(at / "sft_run"),
            grpo=dataclasses.replace(train_cfg.grpo, enabled=False),
        )
        sft = run_training(sft_cfg, ensure_dataset)
        runs.add_sft(seed, sft)
        for p in penalties:
            name = penalty_name(p)
            print(f"\n[pulse demo] seed {seed}: GRPO with wrong-intervention penalty {p:g}", flush=True)
            weights = {**train_cfg.reward.weights, "wrong_intervention": float(p)}
            g_cfg = dataclasses.replace(
                train_cfg,
                seed=seed,
                run_name=f"s{seed}-grpo-{name}",
                out_dir=str(at / f"grpo_{name}"),
                init_from=sft["checkpoints"]["sft"],
                sft=dataclasses.replace(train_cfg.sft, enabled=False),
                reward=dataclasses.replace(train_cfg.reward, name=name, weights=weights),
            )
            runs.add_grpo(seed, p, run_training(g_cfg, ensure_dataset), g_cfg.out_dir)
    return demo_report(root, runs, data_path, base, len(held_out), train_cfg, demo_cfg)


def _run(cfg) -> None:
    from omegaconf import OmegaConf

    from pulse.config.schema import DemoConfig, TrainConfig, to_typed

    demo = to_typed(cfg.demo, DemoConfig)
    train_part = OmegaConf.masked_copy(cfg, [k for k in cfg.keys() if k != "demo"])
    run_demo(to_typed(train_part, TrainConfig), demo)


main = hydra_entry("demo", _run)

if __name__ == "__main__":
    main()
