"""GRPO with trl's GRPOTrainer + peft LoRA and the Eq. 12 reward terms (pulse/train/rewards.py).

Batch units and their check against trl: pulse/train/batch.py. The GRPO variant is trl's: the loss
aggregation is `grpo.loss_type` (trl's default `dapo`), the KL term `grpo.beta` (trl's default 0:
no reference model), dropout off (`disable_dropout`, so `model.lora.dropout` has no effect here).
"""

from __future__ import annotations

import logging
from pathlib import Path

from pulse.config.schema import ConfigError, TrainConfig
from pulse.core.examples import PolicyExample
from pulse.train.batch import check_trl_batch, grpo_batch_sizes
from pulse.train.data import grpo_rows
from pulse.train.metrics_log import JsonlMetricsCallback
from pulse.train.rewards import make_reward_terms, term_weights
from pulse.train.trainer_common import (
    common_args,
    last_checkpoint,
    lora_config,
    report_to,
    save_final,
    write_provenance,
)

log = logging.getLogger("pulse.train")

derived_batch_sizes = grpo_batch_sizes  # the name the pipeline and tests use


def max_model_length(tokenizer, rows: list[dict], chat_template_kwargs: dict, completion_tokens: int) -> int:
    """The longest rendered training prompt plus the completion cap: vLLM's context length for this
    data (unset, vLLM sizes its KV cache for the model's full context, 40,960 tokens for Qwen3-8B)."""
    texts = [
        tokenizer.apply_chat_template(
            r["prompt"], add_generation_prompt=True, tokenize=False, **chat_template_kwargs
        )
        for r in rows
    ]
    longest = max(len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"])
    return longest + completion_tokens


def build_grpo_config(
    cfg: TrainConfig, output_dir: Path, num_processes: int = 1, vllm_max_model_length: int | None = None
):
    """The one place our typed config becomes trl's GRPOConfig."""
    from trl import GRPOConfig

    g = cfg.grpo
    sizes = derived_batch_sizes(cfg, num_processes)
    vllm = {}
    if g.vllm.enabled:
        vllm = dict(
            use_vllm=True,
            vllm_mode=g.vllm.mode,
            vllm_gpu_memory_utilization=g.vllm.gpu_memory_utilization,
            vllm_tensor_parallel_size=g.vllm.tensor_parallel_size,
        )
        if vllm_max_model_length:
            vllm["vllm_max_model_length"] = vllm_max_model_length
        if g.vllm.mode == "server":
            if not g.vllm.server_base_url:
                raise ConfigError(
                    "grpo.vllm.server_base_url: required when grpo.vllm.mode=server "
                    "(start `trl vllm-serve --model ...` and give its URL)"
                )
            vllm["vllm_server_base_url"] = g.vllm.server_base_url
        elif g.vllm.mode != "colocate":
            raise ConfigError(f"grpo.vllm.mode: {g.vllm.mode!r} not in ['colocate', 'server']")
    return GRPOConfig(
        output_dir=str(output_dir),
        max_steps=g.steps,
        learning_rate=g.learning_rate,
        per_device_train_batch_size=sizes["per_device_train_batch_size"],
        gradient_accumulation_steps=g.gradient_accumulation_steps,
        num_generations=g.generations_per_prompt,
        max_completion_length=cfg.model.max_completion_tokens,
        temperature=g.temperature,
        beta=g.beta,
        loss_type=g.loss_type,
        reward_weights=term_weights(cfg.reward.weights),  # the order of make_reward_terms
        save_steps=g.save_every_steps,
        remove_unused_columns=False,
        disable_dropout=True,
        lr_scheduler_type="constant",
        chat_template_kwargs=dict(cfg.model.chat_template_kwargs) or None,
        report_to=report_to(cfg),
        log_completions=False,
        **vllm,
        **common_args(cfg),
    )


def timed(trainer_cls):
    """`trainer_cls` that also logs where each optimizer step's time went: `time/generation_s`
    (sampling the completions), `time/scoring_s` (the reward terms) and `time/update_s` (the rest:
    log-probabilities, forward/backward, optimizer), summing to trl's `step_time`."""
    import time

    class TimedGRPOTrainer(trainer_cls):
        """`trainer_cls` with the time of each optimizer step split into generation, reward scoring and the
        rest, logged as `time/generation_s`, `time/scoring_s` and `time/update_s`."""

        _generation_s = 0.0
        _scoring_s = 0.0

        def _generate(self, prompts):
            t0 = time.perf_counter()
            try:
                return super()._generate(prompts)
            finally:
                self._generation_s += time.perf_counter() - t0

        def _calculate_rewards(self, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return super()._calculate_rewards(*args, **kwargs)
            finally:
                self._scoring_s += time.perf_counter() - t0

        def training_step(self, model, inputs, num_items_in_batch):
            n_before = len(self._metrics["train"].get("step_time", []))
            out = super().training_step(model, inputs, num_items_in_batch)
            step_times = self._metrics["train"].get("step_time", [])
            if len(step_times) > n_before:  # an optimizer step just ended (trl appended its time)
                m = self._metrics["train"]
                m["time/generation_s"].append(self._generation_s)
                m["time/scoring_s"].append(self._scoring_s)
                m["time/update_s"].append(step_times[-1] - self._generation_s - self._scoring_s)
                self._generation_s = self._scoring_s = 0.0
            return out

    TimedGRPOTrainer.__name__ = f"Timed{trainer_cls.__name__}"
    return TimedGRPOTrainer


def decision_point_prompts(examples: list[PolicyExample]) -> list[PolicyExample]:
    """The examples at which the run-time pre-check asks the policy (`grpo.prompts=decision_points`)."""
    from pulse.agent.precheck import needs_decision

    kept = [e for e in examples if needs_decision(e.inp)]
    if not kept:
        raise ConfigError(
            f"grpo.prompts=decision_points: none of the {len(examples)} training examples is a point where "
            "the run-time pre-check asks the policy (pulse/agent/precheck.py); use grpo.prompts=all"
        )
    log.info(
        "GRPO prompts: %d of %d training examples are run-time decision points", len(kept), len(examples)
    )
    return kept


def _selected(
    cfg: TrainConfig, model, tokenizer, examples: list[PolicyExample], out_dir: Path
) -> list[PolicyExample]:
    """The prompts GRPO trains on under `grpo.selection_candidates` (pulse/train/prompt_selection.py); the
    main process chooses and records them, the others read its record."""
    from pulse.train import dist
    from pulse.train.prompt_selection import select_prompts

    g = cfg.grpo
    with dist.main_process_first():
        return select_prompts(
            model,
            tokenizer,
            examples,
            candidates=g.selection_candidates,
            keep=g.steps * g.prompts_per_step,
            seed=cfg.seed,
            style=cfg.model.prompt_style,
            template_kwargs=dict(cfg.model.chat_template_kwargs),
            temperature=g.temperature,
            group=g.generations_per_prompt,
            weights=cfg.reward.weights,
            run_dir=out_dir,
        )


def run_grpo(
    cfg: TrainConfig, base_path: str, examples: list[PolicyExample], out_dir: Path, num_processes: int = 1
) -> Path:
    """Train a LoRA adapter on top of `base_path`; save it to out_dir/final; returns that dir."""
    from datasets import Dataset
    from trl import GRPOTrainer

    from pulse.models.loading import load_model, load_tokenizer
    from pulse.policy.end_tokens import end_token_ids

    final = out_dir / "final"
    if final.exists():
        return final
    tokenizer = load_tokenizer(base_path)
    model = load_model(base_path, cfg.model.dtype)
    if cfg.model.lora.dropout:
        log.info(
            "model.lora.dropout=%s has no effect in GRPO (trl's disable_dropout)", cfg.model.lora.dropout
        )
    if cfg.grpo.prompts == "decision_points":
        examples = decision_point_prompts(examples)
    if cfg.grpo.selection_candidates:
        examples = _selected(cfg, model, tokenizer, examples, out_dir)
    rows = grpo_rows(examples, cfg.model.prompt_style)
    context = None
    if cfg.grpo.vllm.enabled:
        context = max_model_length(
            tokenizer, rows, dict(cfg.model.chat_template_kwargs), cfg.model.max_completion_tokens
        )
        log.info("vllm_max_model_length %d (longest training prompt + max_completion_tokens)", context)
    # the ids trl stops generation on: a completion ending with any of them is finished
    terms = make_reward_terms(end_token_ids(tokenizer, getattr(model, "generation_config", None)))
    trainer = timed(GRPOTrainer)(
        model=model,
        reward_funcs=list(terms.values()),
        args=build_grpo_config(cfg, out_dir, num_processes, context),
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        peft_config=lora_config(cfg),
        callbacks=[JsonlMetricsCallback(Path(cfg.out_dir) / "metrics.jsonl", "grpo")],
    )
    check_trl_batch(trainer, "grpo", grpo_batch_sizes(cfg, num_processes))
    trainer.train(resume_from_checkpoint=last_checkpoint(out_dir) if cfg.resume else None)

    def finish(folder: Path) -> None:  # the LoRA adapter; adapter_config names base_path
        tokenizer.save_pretrained(folder)
        write_provenance(folder, cfg, "grpo", base_path)

    save_final(trainer, final, finish)
    return final
