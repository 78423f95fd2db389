"""Pieces shared by the SFT and GRPO stages: device/precision args, LoRA, resume, logging, provenance."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
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


def save_final(trainer: Any, final: Path, finish: Callable[[Path], None]) -> None:
    """Every rank calls the trainer's save (under ZeRO-3 the sharded weights are gathered by
    accelerate's state dict, a collective; the main process writes) into `.final.partial`; the main
    process then completes that folder with `finish(folder)` and renames it to `final`."""
    from pulse.train import dist

    partial = final.with_name(f".{final.name}.partial")
    if dist.is_main() and partial.exists():
        shutil.rmtree(partial)
    dist.wait_for_everyone()
    trainer.save_model(str(partial))
    if dist.is_main():
        finish(partial)
        os.replace(partial, final)
    dist.wait_for_everyone()  # the next stage loads `final` on every rank


def write_provenance(final_dir: Path, cfg: TrainConfig, stage: str, base_path: str) -> None:
    """final/provenance.json: which config (hash) and commit produced these weights, from which base,
    and how they read their input: prompt style and chat-template arguments (every policy backend
    renders the prompt from these, pulse/policy/record.py), dtype and, for an adapter, its rank."""
    from pulse.utils import cpu_numerics
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
            "chat_template_kwargs": dict(cfg.model.chat_template_kwargs),
            "dtype": cfg.model.dtype,
            "git_commit": git_commit(),
            "cpu_numerics": cpu_numerics.describe(),  # the arithmetic a CPU run trained with
        },
    )
