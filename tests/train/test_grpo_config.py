import dataclasses

import pytest

from pulse.config.schema import ConfigError, TrainConfig
from pulse.train.grpo import build_grpo_config, derived_batch_sizes


def _cfg(**grpo):
    base = TrainConfig()
    return dataclasses.replace(base, grpo=dataclasses.replace(base.grpo, **grpo))


def test_derived_batch_sizes():
    s = derived_batch_sizes(
        _cfg(prompts_per_step=8, generations_per_prompt=4, gradient_accumulation_steps=2), 2
    )
    assert s["completions_per_step"] == 32 and s["per_device_train_batch_size"] == 8


@pytest.mark.parametrize(
    "kw,key",
    [
        ({"generations_per_prompt": 1}, "generations_per_prompt"),
        (
            {"prompts_per_step": 3, "generations_per_prompt": 3, "gradient_accumulation_steps": 2},
            "gradient_accumulation_steps",
        ),
    ],
)
def test_impossible_batches_name_the_key(kw, key):
    with pytest.raises(ConfigError, match=key):
        derived_batch_sizes(_cfg(**kw), 1)


def test_build_grpo_config(tmp_path):
    c = build_grpo_config(_cfg(prompts_per_step=4, generations_per_prompt=4), tmp_path)
    assert c.num_generations == 4 and c.per_device_train_batch_size == 16
    assert c.reward_weights == [1.0, 0.5, -1.0, 0.0]
    assert c.use_cpu and not c.bf16 and not c.gradient_checkpointing and not c.use_vllm


def test_vllm_server_mode_needs_url(tmp_path):
    cfg = _cfg()
    cfg = dataclasses.replace(
        cfg,
        grpo=dataclasses.replace(
            cfg.grpo, vllm=dataclasses.replace(cfg.grpo.vllm, enabled=True, mode="server")
        ),
    )
    with pytest.raises(ConfigError, match="server_base_url"):
        build_grpo_config(cfg, tmp_path)
