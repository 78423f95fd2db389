"""Typed, frozen configs for `pulse train`, `pulse eval-policy`, `pulse gen-data` and `pulse demo`.

Hydra composes YAML from `configs/`; each entry point converts the result once, at its top, with
`to_typed`, and library code only ever sees these dataclasses. The YAML files carry a comment above
every knob (unit and effect); the defaults here mirror the CPU default.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


class ConfigError(ValueError):
    """A config value is invalid; the message names the key."""


@dataclass(frozen=True)
class TinyModelSpec:
    """Shape of the offline tiny Qwen3 (pulse/models/tiny_qwen3.py); YAML: configs/model/tiny_qwen3.yaml."""

    # BPE vocabulary size (tokens). Small on purpose: with Qwen's 151k vocabulary the same model is
    # ~25x slower per GRPO step (../shared/reference/offline-models.md).
    vocab_size: int = 2048
    hidden_size: int = 256
    intermediate_size: int = 768
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 64
    max_position_embeddings: int = 1024


@dataclass(frozen=True)
class LoraSpec:
    r: int = 16
    alpha: int = 32
    dropout: float = 0.0
    target_modules: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj",
                                                               "gate_proj", "up_proj", "down_proj"])


@dataclass(frozen=True)
class ModelConfig:
    name: str = "tiny_qwen3"
    name_or_path: str = "artifacts/models/tiny_qwen3"
    build: str = "tiny_qwen3"  # "" = must exist; "tiny_qwen3" = build offline if missing
    tiny: TinyModelSpec = field(default_factory=TinyModelSpec)
    dtype: str = "float32"
    prompt_style: str = "compact"
    max_completion_tokens: int = 32
    sft_full_finetune: bool = True
    gradient_checkpointing: bool = False
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    lora: LoraSpec = field(default_factory=LoraSpec)


@dataclass(frozen=True)
class RewardConfig:
    name: str = "pulse"
    correct_action: float = 1.0
    correct_decision: float = 0.5
    wrong_intervention: float = -1.0
    well_formed: float = 0.0


@dataclass(frozen=True)
class DataConfig:
    path: str = "artifacts/data/pulse_v1"
    generate_if_missing: bool = True
    seed: int = 0
    n_users: int = 0  # 0 = generator default
    max_train_examples: int = 0  # 0 = all
    max_eval_examples: int = 0  # 0 = all


@dataclass(frozen=True)
class SFTConfig:
    enabled: bool = True
    steps: int = 600
    examples_per_step: int = 16
    learning_rate: float = 2e-3
    warmup_ratio: float = 0.05
    save_every_steps: int = 200


@dataclass(frozen=True)
class VLLMConfig:
    enabled: bool = False
    mode: str = "colocate"  # colocate | server
    server_base_url: str = ""
    gpu_memory_utilization: float = 0.3
    tensor_parallel_size: int = 1


@dataclass(frozen=True)
class GRPOStageConfig:
    enabled: bool = True
    steps: int = 60
    prompts_per_step: int = 8
    generations_per_prompt: int = 8
    gradient_accumulation_steps: int = 1
    learning_rate: float = 3e-4
    temperature: float = 1.0
    beta: float = 0.0
    loss_type: str = "dapo"
    save_every_steps: int = 20
    vllm: VLLMConfig = field(default_factory=VLLMConfig)


@dataclass(frozen=True)
class LoggerConfig:
    name: str = "jsonl"  # jsonl | wandb (the local metrics JSONL is always written)
    project: str = "pulse"
    wandb_mode: str = "offline"


@dataclass(frozen=True)
class TrainConfig:
    run_name: str = "tiny_qwen3-pulse-s0"
    out_dir: str = "outputs/train/tiny_qwen3-pulse-s0"
    seed: int = 0
    device: str = "cpu"  # cpu | auto (accelerate decides)
    resume: bool = True
    eval_after: bool = True
    init_from: str = ""  # start the policy from this checkpoint (e.g. an SFT run's final) instead of model
    model: ModelConfig = field(default_factory=ModelConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    data: DataConfig = field(default_factory=DataConfig)
    sft: SFTConfig = field(default_factory=SFTConfig)
    grpo: GRPOStageConfig = field(default_factory=GRPOStageConfig)
    logger: LoggerConfig = field(default_factory=LoggerConfig)


@dataclass(frozen=True)
class PolicyBackendConfig:
    backend: str = "transformers"  # transformers | openai | vllm
    name_or_path: str = ""  # checkpoint dir, LoRA adapter dir, or hub id
    base_url: str = ""  # openai backend
    api_key: str = "EMPTY"
    prompt_style: str = "compact"
    max_new_tokens: int = 32
    batch_size: int = 64
    dtype: str = "float32"


@dataclass(frozen=True)
class EvalPolicyConfig:
    out_dir: str = "outputs/eval_policy/run"
    split: str = "test"
    seed: int = 0
    label: str = ""  # row name in tables
    data: DataConfig = field(default_factory=DataConfig)
    policy: PolicyBackendConfig = field(default_factory=PolicyBackendConfig)


@dataclass(frozen=True)
class DemoConfig:
    seeds: list[int] = field(default_factory=lambda: [0])
    penalties: list[float] = field(default_factory=lambda: [-1.0, 0.0])
    suites: bool = True  # also run the offline suites (none / pulse_no_rl / pulse) after training
    suite_max_tasks: int = 0  # 0 = every task of each suite persona chain


def to_typed(cfg: Any, cls: type[T]) -> T:
    """Merge a hydra DictConfig onto the dataclass schema and build frozen objects.

    Unknown keys and type mismatches raise ConfigError naming the full key.
    """
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        schema = OmegaConf.structured(cls)
        _writable(schema)  # frozen dataclasses make every schema node read-only
        merged = OmegaConf.merge(schema, cfg)
        obj = OmegaConf.to_object(merged)
    except OmegaConfBaseException as e:
        key = getattr(e, "full_key", "") or ""
        raise ConfigError(f"config key {key!r}: {e.msg if hasattr(e, 'msg') else e}".replace("\n", " ")) from None
    return obj  # type: ignore[return-value]


def _writable(node: Any) -> None:
    from omegaconf import DictConfig, OmegaConf

    OmegaConf.set_readonly(node, False)
    for key in node.keys() if isinstance(node, DictConfig) else ():
        child = node._get_node(key)
        if isinstance(child, DictConfig):
            _writable(child)


def as_dict(obj: Any) -> Any:
    if is_dataclass(obj):
        return {f.name: as_dict(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [as_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {k: as_dict(v) for k, v in obj.items()}
    return obj
