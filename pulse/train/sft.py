"""SFT warm start with trl's SFTTrainer on labeled completions (prompt-completion, loss on the
completion only). Full fine-tune for a random-init tiny model, LoRA (merged on save) otherwise."""

from __future__ import annotations

from pathlib import Path

from pulse.config.schema import TrainConfig
from pulse.core.examples import PolicyExample
from pulse.train.batch import check_trl_batch, sft_batch_sizes
from pulse.train.data import sft_rows
from pulse.train.length_pools import length_pooled
from pulse.train.metrics_log import JsonlMetricsCallback
from pulse.train.trainer_common import (
    common_args,
    last_checkpoint,
    lora_config,
    report_to,
    save_final,
    write_provenance,
)


def build_sft_config(cfg: TrainConfig, output_dir: Path, num_processes: int = 1):
    from trl import SFTConfig

    sizes = sft_batch_sizes(cfg, num_processes)
    return SFTConfig(
        output_dir=str(output_dir),
        max_steps=cfg.sft.steps,
        per_device_train_batch_size=sizes["per_device_train_batch_size"],
        learning_rate=cfg.sft.learning_rate,
        warmup_steps=int(cfg.sft.warmup_ratio * cfg.sft.steps),
        lr_scheduler_type="cosine",
        save_steps=cfg.sft.save_every_steps,
        completion_only_loss=True,
        max_length=cfg.model.tiny.max_position_embeddings if cfg.model.build == "tiny_qwen3" else 2048,
        packing=False,
        # length_pooled() has put the rows in batch order already
        train_sampling_strategy="sequential" if cfg.sft.length_pool_batches else "random",
        report_to=report_to(cfg),
        **common_args(cfg),
    )


def run_sft(
    cfg: TrainConfig, base_path: str, examples: list[PolicyExample], out_dir: Path, num_processes: int = 1
) -> Path:
    """Train and save the warm-started policy to out_dir/final (a plain model dir); returns it."""
    from datasets import Dataset
    from trl import SFTTrainer

    from pulse.models.loading import load_model, load_tokenizer
    from pulse.policy.export import merge_adapter

    final = out_dir / "final"
    if final.exists():
        return final
    tokenizer = load_tokenizer(base_path)
    model = load_model(base_path, cfg.model.dtype)
    peft_config = None if cfg.model.sft_full_finetune else lora_config(cfg)
    rows = sft_rows(examples, cfg.model.prompt_style)
    if cfg.sft.length_pool_batches:  # batches of similar length: less padding (pulse/train/length_pools.py)
        rows = length_pooled(
            rows,
            n_rows=cfg.sft.steps * cfg.sft.examples_per_step,
            batch_size=cfg.sft.examples_per_step,
            pool_batches=cfg.sft.length_pool_batches,
            seed=cfg.seed,
        )
    if cfg.model.chat_template_kwargs:  # trl's SFTTrainer reads them per row: the prompt GRPO and eval see
        rows = [{**r, "chat_template_kwargs": dict(cfg.model.chat_template_kwargs)} for r in rows]
    trainer = SFTTrainer(
        model=model,
        args=build_sft_config(cfg, out_dir, num_processes),
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        peft_config=peft_config,
        callbacks=[JsonlMetricsCallback(Path(cfg.out_dir) / "metrics.jsonl", "sft")],
    )
    check_trl_batch(trainer, "sft", sft_batch_sizes(cfg, num_processes))
    trainer.train(resume_from_checkpoint=last_checkpoint(out_dir) if cfg.resume else None)

    def finish(folder: Path) -> None:
        if peft_config is not None:  # the adapter becomes a plain model dir (merged from the files)
            merge_adapter(str(folder), folder, cfg.model.dtype)
        tokenizer.save_pretrained(folder)
        write_provenance(folder, cfg, "sft", base_path)

    save_final(trainer, final, finish)
    return final
