"""`python -m pulse.cli.train` / `pulse train` / `accelerate launch -m pulse.cli.train` (hydra CLI).

Examples:
    pulse train                                   # CPU default: tiny Qwen3, SFT warm start + GRPO
    pulse train -m reward=pulse,no_penalty        # penalty sweep (two runs, one process; not under
                                                  # accelerate launch: one launch per job, docs/training.md)
    pulse train grpo.steps=100 seed=1 logger=wandb
    pulse train grpo.learning_rate=1e-4 resume=fork   # out_dir holds a run with another config: keep it
    accelerate launch --config_file configs/accelerate/zero2.yaml -m pulse.cli.train \
        +experiment=paper/qwen3_8b_grpo            # Qwen3-8B on GPUs, vLLM generation
"""

from __future__ import annotations

from pulse.cli.support import hydra_entry


def refuse_sweep_in_multi_process_launch() -> None:
    """`-m` under `accelerate launch` would run every job in the same processes: nothing frees the
    first job's trainer and vLLM engine, and the ranks fall out of step between jobs (issue 31)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from pulse.config.schema import ConfigError
    from pulse.train.dist import in_multi_process_launch

    if in_multi_process_launch() and HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN:
        raise ConfigError(
            "-m (hydra multirun): refused inside a multi-process `accelerate launch`/`torchrun`: run "
            "one launch per job instead, e.g. `for r in pulse no_penalty; do accelerate launch "
            "--config_file configs/accelerate/zero2.yaml -m pulse.cli.train "
            "+experiment=paper/qwen3_8b_grpo reward=$r; done` (docs/training.md, Sweeps)"
        )


def _run(cfg) -> None:
    from pulse.config.schema import TrainConfig, to_typed

    refuse_sweep_in_multi_process_launch()
    typed = to_typed(cfg, TrainConfig)  # every value checked here, before anything is loaded
    # imported after the check: torch, transformers and trl take seconds to import, a typo takes none
    from data_gen.ensure import ensure_dataset
    from pulse.train.pipeline import run_training

    # run_training applies `resume` to out_dir, then records the resolved config there (config.yaml)
    summary = run_training(typed, ensure_dataset)
    for stage, m in summary["eval"].items():
        success = m["interruption_success"]
        print(
            f"[pulse train] {stage}: held-out action accuracy {m['action_accuracy']:.3f}, decision accuracy "
            f"{m['decision_accuracy']:.3f}, interruption success "
            f"{success if success is None else round(success, 3)}, "
            f"interventions {m['interventions']}, parse failures {m['parse_failure_rate']:.3f}"
        )


main = hydra_entry("train", _run)

if __name__ == "__main__":
    main()
