"""Issue 31, item 4: SFT and GRPO batches on any number of processes, checked against trl's own."""

import dataclasses
from types import SimpleNamespace

import pytest

from pulse.config.schema import ConfigError, TrainConfig
from pulse.train.batch import check_trl_batch, grpo_batch_sizes, sft_batch_sizes


def _cfg(examples_per_step=16, **grpo):
    base = TrainConfig()
    return dataclasses.replace(
        base,
        sft=dataclasses.replace(base.sft, examples_per_step=examples_per_step),
        grpo=dataclasses.replace(base.grpo, **grpo),
    )


def test_sft_splits_the_step_over_processes():
    assert sft_batch_sizes(_cfg(16), 2)["per_device_train_batch_size"] == 8
    assert sft_batch_sizes(_cfg(16), 1)["per_device_train_batch_size"] == 16
    with pytest.raises(ConfigError, match="sft.examples_per_step"):
        sft_batch_sizes(_cfg(16), 3)


def test_sft_config_gets_the_per_process_batch(tmp_path):
    from pulse.train.sft import build_sft_config

    assert build_sft_config(_cfg(16), tmp_path, num_processes=2).per_device_train_batch_size == 8


def _trainer(args, world):
    return SimpleNamespace(args=args, accelerator=SimpleNamespace(num_processes=world))


def test_grpo_agrees_with_trl(tmp_path):
    """trl's GRPOConfig derives generation_batch_size from the same arguments: prompts x generations."""
    from pulse.train.grpo import build_grpo_config

    cfg = _cfg(prompts_per_step=4, generations_per_prompt=4, gradient_accumulation_steps=2)
    args = build_grpo_config(cfg, tmp_path)  # one process here, as trl sees it
    check_trl_batch(_trainer(args, 1), "grpo", grpo_batch_sizes(cfg, 1))
    assert args.generation_batch_size == 16 and args.num_generations == 4


def test_disagreement_names_the_keys(tmp_path):
    """pulse counted 2 processes, trl's accelerator 1 (the CPU + DeepSpeed mismatch of issue 31)."""
    from pulse.train.grpo import build_grpo_config

    cfg = _cfg(prompts_per_step=4, generations_per_prompt=4)
    args = build_grpo_config(cfg, tmp_path, num_processes=2)  # per device 8, but trl sees 1 process
    with pytest.raises(ConfigError, match=r"num_processes: pulse 2, trl 1.*grpo.prompts_per_step"):
        check_trl_batch(_trainer(args, 1), "grpo", grpo_batch_sizes(cfg, 2))
    sft_args = SimpleNamespace(per_device_train_batch_size=8, gradient_accumulation_steps=1)
    with pytest.raises(ConfigError, match=r"sft.examples_per_step: pulse 16, trl 8"):
        check_trl_batch(_trainer(sft_args, 1), "sft", sft_batch_sizes(_cfg(16), 2))
    check_trl_batch(_trainer(sft_args, 2), "sft", sft_batch_sizes(_cfg(16), 2))
