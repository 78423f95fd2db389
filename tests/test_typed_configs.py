"""Typos in config values fail in `to_typed` (before anything is loaded) with the dotted key, the bad
value and the valid choices; numeric knobs keep their declared ranges."""

import subprocess
import sys
from typing import get_args

import pytest
from hydra import compose, initialize_config_dir

from eval.config import MEMORY_ALIASES, AgentMode, EvalConfig, MemoryKind
from pulse.cli.support import CONFIG_DIR
from pulse.config.schema import ConfigError, Dtype, PolicyBackend, PromptStyle, TrainConfig, to_typed


def _compose(name, overrides=()):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name=name, overrides=list(overrides))


# (config, override, dotted key, bad value, valid choices the message must list)
TYPOS = [
    ("eval", "method.mode=steaming", "method.mode", "steaming", ["streaming", "start_only", "serial"]),
    ("eval", "method.policy=trianed", "method.policy", "trianed", ["trained", "base", "rule"]),
    (
        "eval",
        "method.memory=flat_users",
        "method.memory",
        "flat_users",
        ["structured", "flat", "flat_user", "flat_project"],
    ),
    ("eval", "benchmark.transport=http", "benchmark.transport", "http", ["direct", "mcp"]),
    ("eval", "policy.backend=vlm", "policy.backend", "vlm", ["transformers", "openai", "vllm"]),
    ("eval", "base_policy.prompt_style=compat", "base_policy.prompt_style", "compat", ["compact", "rich"]),
    ("train", "grpo.vllm.mode=colocated", "grpo.vllm.mode", "colocated", ["colocate", "server"]),
    ("train", "model.prompt_style=verbose", "model.prompt_style", "verbose", ["compact", "rich"]),
    ("train", "model.dtype=bf32", "model.dtype", "bf32", ["float32", "bfloat16", "float16"]),
    ("train", "logger=jsonl logger.name=tensorboard", "logger.name", "tensorboard", ["jsonl", "wandb"]),
    ("train", "logger.wandb_mode=onlin", "logger.wandb_mode", "onlin", ["offline", "online", "disabled"]),
    ("train", "device=gpu", "device", "gpu", ["cpu", "auto"]),
    ("train", "resume=yes", "resume", "yes", ["true", "false", "fork"]),
    ("train", "grpo.loss_type=gspo", "grpo.loss_type", "gspo", ["grpo", "dapo", "dr_grpo", "bnpo"]),
    ("train", "model.build=tiny", "model.build", "tiny", ["tiny_qwen3", "smollm2_135m", "qwen_coder_0_5b"]),
    ("eval_policy", "policy.name_or_path=x split=tset", "split", "tset", ["train", "validation", "test"]),
]

SCHEMAS = {"train": TrainConfig, "eval": EvalConfig}


def _schema(name):
    if name == "eval_policy":
        from pulse.config.schema import EvalPolicyConfig

        return EvalPolicyConfig
    return SCHEMAS[name]


@pytest.mark.parametrize("config,override,key,value,choices", TYPOS, ids=[t[1] for t in TYPOS])
def test_typo_names_key_value_and_choices(config, override, key, value, choices):
    cfg = _compose(config, override.split())
    with pytest.raises(ConfigError) as e:
        to_typed(cfg, _schema(config))
    msg = str(e.value)
    assert f"'{key}'" in msg and repr(value) in msg and "\n" not in msg
    for c in choices:
        assert c in msg


@pytest.mark.parametrize(
    "config,override,key",
    [
        ("train", "sft.steps=0", "sft.steps"),
        ("train", "grpo.steps=-1", "grpo.steps"),
        ("train", "sft.examples_per_step=0", "sft.examples_per_step"),
        ("train", "grpo.prompts_per_step=0", "grpo.prompts_per_step"),
        ("train", "grpo.generations_per_prompt=1", "grpo.generations_per_prompt"),
        ("train", "grpo.learning_rate=0", "grpo.learning_rate"),
        ("train", "sft.learning_rate=-1e-3", "sft.learning_rate"),
        ("train", "data.max_eval_examples=-1", "data.max_eval_examples"),
        ("train", "grpo.vllm.gpu_memory_utilization=1.5", "grpo.vllm.gpu_memory_utilization"),
        ("eval", "benchmark.max_tasks=-2", "benchmark.max_tasks"),
        ("eval", "method.retrieve_k=0", "method.retrieve_k"),
        ("eval", "policy.batch_size=0", "policy.batch_size"),
        ("eval", "policy.max_new_tokens=0", "policy.max_new_tokens"),
    ],
)
def test_numeric_ranges(config, override, key):
    with pytest.raises(ConfigError, match=f"'{key}'.*out of range"):
        to_typed(_compose(config, [override]), SCHEMAS[config])


def test_unknown_keys_and_types_are_named():
    with pytest.raises(ConfigError, match=r"'grpo.stepz': unknown key; did you mean 'steps'"):
        to_typed(_compose("train", ["+grpo.stepz=3"]), TrainConfig)
    with pytest.raises(ConfigError, match=r"'method.foo': unknown key"):
        to_typed(_compose("eval", ["+method.foo=1"]), EvalConfig)
    with pytest.raises(ConfigError, match=r"'model.tiny.vocab_size': expected an integer"):
        to_typed(_compose("train", ["model.tiny.vocab_size=big"]), TrainConfig)
    with pytest.raises(ConfigError, match=r"'demo.suite_max_tasks'"):  # a sub-node keeps its path
        from pulse.config.schema import DemoConfig

        to_typed(_compose("demo", ["demo.suite_max_tasks=-1"]).demo, DemoConfig)


def test_memory_aliases_are_normalised_and_resume_values():
    assert to_typed(_compose("eval", ["method.memory=flat+user"]), EvalConfig).method.memory == "flat_user"
    assert to_typed(_compose("eval", ["method.memory=full"]), EvalConfig).method.memory == "structured"
    assert [
        to_typed(_compose("train", [f"resume={v}"]), TrainConfig).resume for v in ("true", "false", "fork")
    ] == [True, False, "fork"]
    typed = to_typed(_compose("train", ["grpo.learning_rate=1"]), TrainConfig)
    assert typed.grpo.learning_rate == 1.0 and isinstance(typed.grpo.learning_rate, float)


def test_literals_match_the_code_that_consumes_them():
    """One source of truth: each Literal mirrors the module that interprets the value."""
    from pulse.agent.runtime import AGENT_MODES
    from pulse.core.policy_io import PROMPT_STYLES
    from pulse.memory.factory import ALIASES, KINDS
    from pulse.models.loading import resolve_dtype
    from pulse.registry import POLICY_BACKENDS

    assert set(get_args(MemoryKind)) == set(KINDS)
    assert MEMORY_ALIASES == ALIASES
    assert set(get_args(AgentMode)) == set(AGENT_MODES)
    assert set(get_args(PromptStyle)) == set(PROMPT_STYLES)
    assert set(get_args(PolicyBackend)) == set(POLICY_BACKENDS.names())
    for d in get_args(Dtype):
        resolve_dtype(d)


def _cli(args):
    return subprocess.run(
        [sys.executable, "-m", "pulse.cli", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "verb,override,key,choices",
    [
        ("train", "grpo.vllm.mode=colocated", "grpo.vllm.mode", "colocate | server"),
        ("eval", "method.mode=steaming", "method.mode", "streaming | start_only | serial"),
    ],
)
def test_cli_typo_exits_2_with_one_line(tmp_path, verb, override, key, choices):
    out = tmp_path / "run"
    r = _cli([verb, override, f"out_dir={out}"])
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and key in lines[0] and choices in lines[0], r.stderr
    assert not any(
        (out / f).exists() for f in ("config.yaml", "manifest.json", "metrics.jsonl", "episodes.jsonl")
    )
