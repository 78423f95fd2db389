"""A checkpoint is always read with the prompt style it was trained with."""

import json

import pytest

from pulse.config.schema import ConfigError, PolicyBackendConfig
from pulse.policy.factory import resolve_prompt_style


def test_auto_takes_the_checkpoints_style_and_a_mismatch_is_refused(tmp_path):
    ck = tmp_path / "final"
    ck.mkdir()
    (ck / "provenance.json").write_text(json.dumps({"stage": "sft", "prompt_style": "compact_marked"}))
    assert resolve_prompt_style(PolicyBackendConfig(name_or_path=str(ck))) == "compact_marked"
    assert (
        resolve_prompt_style(PolicyBackendConfig(name_or_path=str(ck), prompt_style="compact_marked"))
        == "compact_marked"
    )
    with pytest.raises(
        ConfigError, match="policy.prompt_style: .* trained with prompt_style='compact_marked'"
    ):
        resolve_prompt_style(PolicyBackendConfig(name_or_path=str(ck), prompt_style="compact"))


def test_auto_without_a_record():
    assert resolve_prompt_style(PolicyBackendConfig(name_or_path="/nonexistent/model")) == "compact"
    assert (
        resolve_prompt_style(
            PolicyBackendConfig(backend="openai", name_or_path="Qwen/Qwen3-8B", base_url="http://x")
        )
        == "rich"
    )
    assert (
        resolve_prompt_style(PolicyBackendConfig(name_or_path="/nonexistent", prompt_style="rich")) == "rich"
    )


def test_trainer_checkpoint_reads_its_runs_config(tmp_path):
    ck = tmp_path / "run" / "sft" / "checkpoint-400"
    ck.mkdir(parents=True)
    (tmp_path / "run" / "config.yaml").write_text("model:\n  prompt_style: compact_marked\n")
    assert resolve_prompt_style(PolicyBackendConfig(name_or_path=str(ck))) == "compact_marked"
    (tmp_path / "run" / "config.yaml").write_text("model: [unclosed\n")
    with pytest.raises(ConfigError, match="training record"):
        resolve_prompt_style(PolicyBackendConfig(name_or_path=str(ck)))
