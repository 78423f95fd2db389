"""SFT warm start with trl's SFTTrainer on labeled completions (prompt-completion, loss on the
completion only). Full fine-tune for a random-init tiny model, LoRA (merged on save) otherwise."""

from __future__ import annotations

from pathlib import Path

from pulse.config.schema import TrainConfig
from pulse.core.examples import PolicyExample
from pulse.train.data import sft_rows
from pulse.train.metrics_log import JsonlMetricsCallback
from pulse.train.trainer_common import common_args, last_checkpoint, lora_config, report_to, write_provenance
from pulse.utils.atomic import atomic_dir


def build_sft_config(cfg: TrainConfig, output_dir: Path, num_processes: int = 1):
    from trl import SFTConfig

    per_device = max(1, cfg.sft.examples_per_step // num_processes)
    return SFTConfig(
        output_dir=str(output_dir),
        max_steps=cfg.sft.steps,
        per_device_train_batch_size=per_device,
        learning_rate=cfg.sft.learning_rate,
        warmup_steps=int(cfg.sft.warmup_ratio * cfg.sft.steps),
        lr_scheduler_type="cosine",
        save_steps=cfg.sft.save_every_steps,
        completion_only_loss=True,
        max_length=cfg.model.tiny.max_position_embeddings if cfg.model.build == "tiny_qwen3" else 2048,
        packing=False,
        report_to=report_to(cfg),
        **common_args(cfg),
    )


def run_sft(cfg: TrainConfig, base_path: str, examples: list[PolicyExample], out_dir: Path) -> Path:
    """Train and save the warm-started policy to out_dir/final (a plain model dir); returns it."""
    from datasets import Dataset
    from trl import SFTTrainer

    from pulse.models.loading import load_model, load_tokenizer

    final = out_dir / "final"
    if final.exists():
        return final
    tokenizer = load_tokenizer(base_path)
    model = load_model(base_path, cfg.model.dtype)
    peft_config = None if cfg.model.sft_full_finetune else lora_config(cfg)
    trainer = SFTTrainer(
        model=model,
        args=build_sft_config(cfg, out_dir),
        train_dataset=Dataset.from_list(sft_rows(examples, cfg.model.prompt_style)),
        processing_class=tokenizer,
        peft_config=peft_config,
        callbacks=[JsonlMetricsCallback(Path(cfg.out_dir) / "metrics.jsonl", "sft")],
    )
    trainer.train(resume_from_checkpoint=last_checkpoint(out_dir) if cfg.resume else None)
    if trainer.accelerator.is_main_process:
        model = trainer.model.merge_and_unload() if peft_config is not None else trainer.model
        with atomic_dir(final) as tmp:
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            write_provenance(tmp, cfg, "sft", base_path)
    return final
