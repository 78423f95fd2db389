"""Batch arithmetic of both stages on any number of processes, and its check against trl's own.

GRPO: `prompts_per_step` distinct prompts x `generations_per_prompt` completions per optimizer step.
trl counts `per_device_train_batch_size` in completions, so
    per_device_train_batch_size = prompts_per_step * generations_per_prompt
                                  / (num_processes * gradient_accumulation_steps).
SFT: `examples_per_step` labelled examples per optimizer step over all processes, so
    per_device_train_batch_size = examples_per_step / num_processes.

`check_trl_batch` compares these with what trl derived from the same arguments once the trainer
exists (its accelerator's process count, `generation_batch_size`), so a launch in which the two
disagree (e.g. a process group this code counted differently from trl) stops at start-up naming the
keys, instead of training silently on another batch.
"""

from __future__ import annotations

from typing import Any

from pulse.config.schema import ConfigError, TrainConfig


def grpo_batch_sizes(cfg: TrainConfig, num_processes: int) -> dict[str, int]:
    g = cfg.grpo
    if g.generations_per_prompt < 2:
        raise ConfigError(
            "grpo.generations_per_prompt: GRPO needs at least 2 completions per prompt "
            f"(got {g.generations_per_prompt})"
        )
    completions = g.prompts_per_step * g.generations_per_prompt
    denom = num_processes * g.gradient_accumulation_steps
    if g.prompts_per_step < 1 or completions % denom:
        raise ConfigError(
            f"grpo.prompts_per_step * grpo.generations_per_prompt = {completions} completions per step must "
            f"divide by num_processes ({num_processes}) * grpo.gradient_accumulation_steps "
            f"({g.gradient_accumulation_steps})"
        )
    return {
        "prompts_per_step": g.prompts_per_step,
        "generations_per_prompt": g.generations_per_prompt,
        "completions_per_step": completions,
        "num_processes": num_processes,
        "gradient_accumulation_steps": g.gradient_accumulation_steps,
        "per_device_train_batch_size": completions // denom,
    }


def sft_batch_sizes(cfg: TrainConfig, num_processes: int) -> dict[str, int]:
    n = cfg.sft.examples_per_step
    if n % num_processes:
        raise ConfigError(
            f"sft.examples_per_step: {n} examples per step must divide by num_processes ({num_processes}); "
            f"each process takes examples_per_step / num_processes"
        )
    return {
        "examples_per_step": n,
        "num_processes": num_processes,
        "per_device_train_batch_size": n // num_processes,
    }


def check_trl_batch(trainer: Any, stage: str, sizes: dict[str, int]) -> None:
    """ConfigError naming the keys when trl's numbers differ from `sizes` (this module's)."""
    args = trainer.args
    world = trainer.accelerator.num_processes
    found: dict[str, tuple[int, int]] = {"num_processes": (sizes["num_processes"], world)}
    if stage == "sft":
        found["sft.examples_per_step"] = (
            sizes["examples_per_step"],
            args.per_device_train_batch_size * world * args.gradient_accumulation_steps,
        )
    else:
        found["grpo.prompts_per_step * grpo.generations_per_prompt (completions per step)"] = (
            sizes["completions_per_step"],
            args.generation_batch_size,
        )
        found["grpo.prompts_per_step"] = (
            sizes["prompts_per_step"],
            args.generation_batch_size // args.num_generations,
        )
        found["grpo.generations_per_prompt"] = (sizes["generations_per_prompt"], args.num_generations)
    bad = {k: v for k, v in found.items() if v[0] != v[1]}
    if bad:
        raise ConfigError(
            f"{stage} batch: pulse and trl disagree: "
            + "; ".join(f"{k}: pulse {a}, trl {b}" for k, (a, b) in bad.items())
            + f" (trl: per_device_train_batch_size {args.per_device_train_batch_size} x {world} processes x "
            f"gradient_accumulation_steps {args.gradient_accumulation_steps}). Launch with the process count "
            f"both see (e.g. device=cpu for CPU ranks, so the process group counts them)"
        )
