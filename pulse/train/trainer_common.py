"""Pieces shared by the SFT and GRPO stages: device/precision args, LoRA, resume, logging, provenance."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pulse.config.schema import TrainConfig


def report_to(cfg: TrainConfig) -> list[str]:
    if cfg.logger.name == "wandb":
        os.environ.setdefault("WANDB_MODE", cfg.logger.wandb_mode)
        os.environ.setdefault("WANDB_PROJECT", cfg.logger.project)
        os.environ.setdefault("WANDB_DIR", cfg.out_dir)
        os.environ.setdefault("WANDB_NAME", cfg.run_name)
        os.environ.setdefault("WANDB_SILENT", "true")
        return ["wandb"]
    return []


def common_args(cfg: TrainConfig) -> dict[str, Any]:
    """TrainingArguments shared by both stages. trl turns bf16 and gradient checkpointing on by
    default; on CPU both are set explicitly off."""
    on_cpu = cfg.device == "cpu"
    return dict(
        use_cpu=on_cpu,
        bf16=(not on_cpu and cfg.model.dtype in ("bfloat16", "bf16")),
        fp16=False,
        gradient_checkpointing=cfg.model.gradient_checkpointing,
        logging_steps=1,
        save_total_limit=2,
        seed=cfg.seed,
        data_seed=cfg.seed,
        dataloader_num_workers=0,
        disable_tqdm=False,
        save_strategy="steps",
    )


def lora_config(cfg: TrainConfig):
    from peft import LoraConfig

    spec = cfg.model.lora
    return LoraConfig(
        r=spec.r,
        lora_alpha=spec.alpha,
        lora_dropout=spec.dropout,
        target_modules=list(spec.target_modules),
        task_type="CAUSAL_LM",
    )


def last_checkpoint(output_dir: Path) -> str | None:
    from transformers.trainer_utils import get_last_checkpoint

    return get_last_checkpoint(str(output_dir)) if output_dir.is_dir() else None


def write_provenance(final_dir: Path, cfg: TrainConfig, stage: str, base_path: str) -> None:
    """final/provenance.json: which config (hash) and commit produced these weights, from which base,
    and the prompt style they read (`policy.prompt_style=auto` uses it)."""
    from pulse.utils.atomic import atomic_write_json
    from pulse.utils.manifest import config_hash, git_commit

    atomic_write_json(
        Path(final_dir) / "provenance.json",
        {
            "stage": stage,
            "config_hash": config_hash(cfg),
            "run_name": cfg.run_name,
            "base": base_path,
            "prompt_style": cfg.model.prompt_style,
            "git_commit": git_commit(),
        },
    )
