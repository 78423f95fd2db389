"""Typed, frozen configs for `pulse train`, `pulse eval-policy`, `pulse gen-data` and `pulse demo`.

Hydra composes YAML from `configs/`; each entry point converts the result once, at its top, with
`to_typed`, and library code only ever sees these dataclasses. The YAML files carry a comment above
every knob (unit and effect); the defaults here mirror the CPU default.

Validation happens in `to_typed`, before any data, model or trainer is touched:
- unknown keys, wrong types and missing values;
- enumerated knobs are annotated `Literal[...]`: a value outside the choices is refused with the
  dotted key, the value and the choices (`knob(aliases=...)` maps accepted spellings onto a choice);
- numeric knobs declare their range with `knob(default, ge=/gt=/le=/lt=)` (dataclass field metadata).
Every failure is a `ConfigError`; the CLI prints it on one line and exits with status 2.
"""

from __future__ import annotations

import difflib
import math
import typing
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from pulse.core.errors import PulseUserError

T = TypeVar("T")


class ConfigError(PulseUserError, ValueError):
    """A config value is invalid; the message names the key."""


def knob(
    default: Any = MISSING,
    *,
    default_factory: Any = MISSING,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    aliases: dict[Any, Any] | None = None,
) -> Any:
    """A dataclass field with declared checks that `to_typed` enforces: a numeric range (ge/gt/le/lt,
    inclusive/exclusive bounds) and, for a Literal field, accepted spellings mapped onto a choice."""
    checks = {k: v for k, v in (("ge", ge), ("gt", gt), ("le", le), ("lt", lt)) if v is not None}
    meta: dict[str, Any] = {}
    if checks:
        meta["range"] = checks
    if aliases:
        meta["aliases"] = dict(aliases)
    if default_factory is not MISSING:
        return field(default_factory=default_factory, metadata=meta)
    return field(default=default, metadata=meta)


# Enumerated values shared by several configs. Each mirrors the code that consumes it (the tests in
# tests/test_typed_configs.py check they agree): pulse.core.policy_io.PROMPT_STYLES,
# pulse.models.loading.resolve_dtype, pulse.registry.POLICY_BACKENDS.
PromptStyle = Literal["compact", "compact_marked", "rich"]
Dtype = Literal["float32", "fp32", "bfloat16", "bf16", "float16", "fp16", "auto"]
PolicyBackend = Literal["transformers", "openai", "vllm"]
# trl GRPOConfig.loss_type values (trl pinned in pyproject.toml).
LossType = Literal["grpo", "dapo", "dr_grpo", "bnpo", "cispo", "sapo", "luspo", "vespo"]


@dataclass(frozen=True)
class TinyModelSpec:
    """Shape of the offline tiny Qwen3 (pulse/models/tiny_qwen3.py); YAML: configs/model/tiny_qwen3.yaml."""

    # BPE vocabulary size (tokens). Small on purpose: with Qwen's 151k vocabulary the same model is
    # many times slower per GRPO step on CPU (the output layer and log-prob over the vocabulary dominate).
    vocab_size: int = knob(2048, ge=1)
    hidden_size: int = knob(256, ge=1)
    intermediate_size: int = knob(768, ge=1)
    num_hidden_layers: int = knob(4, ge=1)
    num_attention_heads: int = knob(4, ge=1)
    num_key_value_heads: int = knob(2, ge=1)
    head_dim: int = knob(64, ge=1)
    max_position_embeddings: int = knob(1024, ge=1)


@dataclass(frozen=True)
class LoraSpec:
    """The LoRA adapter (`model.lora`): rank `r`, scaling `alpha`, `dropout` and the projection modules it
    wraps. GRPO always trains one (its dropout has no effect there: trl disables dropout); SFT trains one only
    when `model.sft_full_finetune` is false."""

    r: int = knob(16, ge=1)
    alpha: int = knob(32, gt=0)
    dropout: float = knob(0.0, ge=0.0, lt=1.0)
    target_modules: list[str] = field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    )


@dataclass(frozen=True)
class ModelConfig:
    """The policy model to train (`model.*`): where its weights are (`name_or_path`) and what builds them when
    missing (`build`), its dtype, the prompt style and completion cap it is trained with, chat-template
    arguments, gradient checkpointing, and full fine-tuning vs LoRA for SFT."""

    name: str = "tiny_qwen3"
    name_or_path: str = "artifacts/models/tiny_qwen3"
    # "" = must exist; otherwise the builder used when name_or_path is missing (pulse/train/pipeline.py)
    build: Literal["", "tiny_qwen3", "smollm2_135m", "qwen_coder_0_5b"] = "tiny_qwen3"
    tiny: TinyModelSpec = field(default_factory=TinyModelSpec)
    dtype: Dtype = "float32"
    # compact_marked: the tiny model learns it; plain compact never settled (results/README.md)
    prompt_style: PromptStyle = "compact_marked"
    max_completion_tokens: int = knob(32, ge=1)
    sft_full_finetune: bool = True
    gradient_checkpointing: bool = False
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    lora: LoraSpec = field(default_factory=LoraSpec)


def _paper_reward_weights() -> dict[str, float]:
    """The default weights: configs/reward/pulse.yaml's (the one place a weight is written)."""
    from pathlib import Path

    from omegaconf import OmegaConf

    path = Path(__file__).resolve().parents[2] / "configs" / "reward" / "pulse.yaml"
    if not path.is_file():
        raise ConfigError(f"reward.weights: no default weights ({path} is missing); give reward.weights")
    return {str(k): float(v) for k, v in OmegaConf.to_container(OmegaConf.load(path).weights).items()}


@dataclass(frozen=True)
class RewardConfig:
    """GRPO reward: one weight per term registered in pulse/train/rewards.py (`@reward_term`), checked
    against that registry here: an unknown term or a term without a weight is a ConfigError."""

    name: str = "pulse"
    weights: dict[str, float] = field(default_factory=_paper_reward_weights)

    def __post_init__(self) -> None:
        check_reward_weights(self.weights)


def check_reward_weights(weights: dict[str, Any], key: str = "reward.weights") -> None:
    """Every weight names a term registered in pulse/train/rewards.py and every registered term has a
    weight (0 switches one off); a ConfigError naming the config key and the known terms otherwise."""
    from pulse.train.rewards import REWARD_TERMS

    known = ", ".join(REWARD_TERMS)
    for name in weights:
        if name not in REWARD_TERMS:
            close = difflib.get_close_matches(str(name), REWARD_TERMS, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise _fail(
                f"{key}.{name}",
                f"unknown reward term{hint} (known terms: {known}; a term is registered with "
                "@reward_term in pulse/train/rewards.py)",
            )
    missing = [n for n in REWARD_TERMS if n not in weights]
    if missing:
        raise _fail(
            key,
            f"no weight for reward term(s) {', '.join(missing)} (every registered term needs one, 0 "
            f"switches it off; known terms: {known})",
        )


@dataclass(frozen=True)
class DataConfig:
    """The policy dataset (`data.*`): its folder, whether to generate it when missing, the generator's seed
    and number of users, caps on train / eval examples, and the source of its decision points (the generator's
    synthetic prefixes, or a share of run-time ones)."""

    path: str = "artifacts/data/pulse_v1"
    generate_if_missing: bool = True
    seed: int = 0
    n_users: int = knob(0, ge=0)  # 0 = generator default
    max_train_examples: int = knob(0, ge=0)  # 0 = all
    max_eval_examples: int = knob(0, ge=0)  # 0 = all
    # synthetic: the generator's prefixes (data_gen/build.py) | runtime: decision points recorded on
    # the run-time path (data_gen/runtime.py) mixed with the generator's by `runtime_fraction`
    source: Literal["synthetic", "runtime"] = "synthetic"
    # runtime only: share of run-time decision points in every split (1 = run-time only)
    runtime_fraction: float = knob(0.5, gt=0.0, le=1.0)
    # runtime only: training personas run through the real agent (0 = data_gen.runtime default)
    runtime_personas: int = knob(0, ge=0)


@dataclass(frozen=True)
class SFTConfig:
    """The SFT warm start (`sft.*`): on/off, optimizer steps, examples per step, learning rate, warmup share,
    checkpoint interval and how many batches are sorted by length together (`length_pool_batches`)."""

    enabled: bool = True
    steps: int = knob(600, ge=1)
    examples_per_step: int = knob(16, ge=1)
    learning_rate: float = knob(2e-3, gt=0.0)
    warmup_ratio: float = knob(0.05, ge=0.0, le=1.0)
    save_every_steps: int = knob(200, ge=1)
    length_pool_batches: int = knob(4, ge=0)


@dataclass(frozen=True)
class VLLMConfig:
    """vLLM generation during GRPO (`grpo.vllm.*`): on/off, colocated with the trainer or a separate server
    (`server_base_url`), its GPU memory share and tensor-parallel size."""

    enabled: bool = False
    mode: Literal["colocate", "server"] = "colocate"
    server_base_url: str = ""
    gpu_memory_utilization: float = knob(0.3, gt=0.0, le=1.0)
    tensor_parallel_size: int = knob(1, ge=1)


@dataclass(frozen=True)
class GRPOStageConfig:
    """The GRPO stage (`grpo.*`): on/off, optimizer steps, prompts per step and completions per prompt (the
    group), gradient accumulation, learning rate, sampling temperature, KL weight `beta`, trl's loss
    aggregation, checkpoint interval, vLLM generation, and which training prompts it sees
    (`prompts`, `selection_candidates`)."""

    enabled: bool = True
    steps: int = knob(60, ge=1)
    prompts_per_step: int = knob(8, ge=1)
    # GRPO's advantage is relative to the group: one completion per prompt learns nothing.
    generations_per_prompt: int = knob(8, ge=2)
    gradient_accumulation_steps: int = knob(1, ge=1)
    learning_rate: float = knob(3e-4, gt=0.0)
    temperature: float = knob(1.0, gt=0.0)
    beta: float = knob(0.0, ge=0.0)
    loss_type: LossType = "dapo"
    save_every_steps: int = knob(20, ge=1)
    vllm: VLLMConfig = field(default_factory=VLLMConfig)
    # 0: trl draws the prompts from the whole training set. N > 0: N training prompts (drawn with the run's
    # seed) are scored under the starting policy and GRPO sees the steps x prompts_per_step whose groups
    # are likeliest to differ in reward (pulse/train/prompt_selection.py): a group rewarded alike has no
    # advantage and teaches nothing.
    selection_candidates: int = knob(0, ge=0)
    # all: every training example is a GRPO prompt. decision_points: only those where the run-time
    # pre-check would ask the policy (pulse.agent.precheck.needs_decision, read from the input alone): a
    # deployed Pulse never asks its policy anywhere else, so GRPO spends no steps on points it never meets.
    prompts: Literal["all", "decision_points"] = "all"

    def __post_init__(self) -> None:
        needed = self.steps * self.prompts_per_step
        if 0 < self.selection_candidates < needed:
            raise ConfigError(
                f"grpo.selection_candidates: {self.selection_candidates} candidates cannot fill "
                f"grpo.steps x grpo.prompts_per_step = {needed} prompts (0 switches selection off)"
            )


@dataclass(frozen=True)
class LoggerConfig:
    """Where training metrics go besides the local metrics JSONL (always written): `wandb` (its project and
    mode) or nothing more (`jsonl`)."""

    name: Literal["jsonl", "wandb"] = "jsonl"  # the local metrics JSONL is always written
    project: str = "pulse"
    wandb_mode: Literal["offline", "online", "disabled"] = "offline"


# `resume` of `pulse train` (configs/train.yaml, docs/DESIGN.md "Provenance and resume"):
#   true   continue the run in out_dir (finished stages skipped, killed ones from their newest
#          checkpoint); refused when out_dir was made by a different config (keys named)
#   false  start over: delete this run's outputs in out_dir, then train from scratch
#   fork   keep out_dir untouched when its config differs; train in <out_dir>-<new config hash>
ResumeMode = Literal[True, False, "fork"]


@dataclass(frozen=True)
class TrainConfig:
    """The typed config of `pulse train` (configs/train.yaml): run name, output folder, seed, device, resume
    mode, evaluation after training, an optional starting checkpoint (`init_from`), and the model, reward,
    data, SFT, GRPO and logger sections."""

    run_name: str = "tiny_qwen3-pulse-s0"
    out_dir: str = "outputs/train/tiny_qwen3-pulse-s0"
    seed: int = 0
    device: Literal["cpu", "auto"] = "cpu"  # auto: accelerate decides
    resume: ResumeMode = True
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
    """One policy to run (`policy.*`, `base_policy.*`): the backend (transformers, vLLM or an
    OpenAI-compatible endpoint), the checkpoint or model name, the endpoint's URL and key, prompt style
    (`auto`: as trained), token cap, batch size, dtype, device and chat-template arguments.
    `pulse.policy.factory.build_policy` builds it."""

    backend: PolicyBackend = "transformers"
    name_or_path: str = ""  # checkpoint dir, LoRA adapter dir, or hub id
    # openai backend: the endpoint (pulse.llm.endpoint.EndpointConfig keys; the model is name_or_path;
    # timeout 60 s, 4 retries from 0.5 s backoff)
    base_url: str = ""
    api_key: str = "EMPTY"
    api_key_env: str = ""  # name of an environment variable holding the key (replaces api_key)
    # auto: the style the checkpoint was trained with (its provenance.json), "rich" for an endpoint
    prompt_style: Literal["auto", "compact", "compact_marked", "rich"] = "auto"
    max_new_tokens: int = knob(32, ge=1)
    batch_size: int = knob(64, ge=1)
    dtype: Dtype = "float32"
    # auto: cuda when a GPU is visible, else cpu (where transformers / vLLM put the model)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    # apply_chat_template arguments (Qwen3: {enable_thinking: false}). None = what the checkpoint was
    # trained with (its run's model.chat_template_kwargs, pulse/policy/record.py), {} = none
    chat_template_kwargs: dict[str, Any] | None = None


@dataclass(frozen=True)
class EvalPolicyConfig:
    """The typed config of `pulse eval-policy` (configs/eval_policy.yaml): output folder, split, seed, row
    label, the dataset and the policy to score, and the source of the decision points (the dataset's labelled
    examples, or every policy call of a run of each suite in `benchmarks`)."""

    out_dir: str = "outputs/eval_policy/run"
    split: Literal["train", "validation", "test"] = "test"
    seed: int = 0
    label: str = ""  # row name in tables
    data: DataConfig = field(default_factory=DataConfig)
    policy: PolicyBackendConfig = field(default_factory=PolicyBackendConfig)
    # dataset: labelled examples of `data` [split] | suite: every policy call of a run of each offline
    # suite in `benchmarks` (real PulseAgent + simulated task agent), labelled by the gold rule
    source: Literal["dataset", "suite"] = "dataset"
    benchmarks: list[str] = field(default_factory=lambda: ["pibench_sim", "mcp_persona_sim"])
    # suite only: the suites' generation seed (the evaluation seed of the run is `seed`)
    suite_seed: int = 0


@dataclass(frozen=True)
class DemoConfig:
    """The demo section of `pulse demo` (configs/demo.yaml `demo.*`): the seeds, the wrong-intervention
    penalties (the reward's `wrong_intervention` weight) GRPO runs with, one run each, whether the offline
    suites run afterwards (and how many tasks per chain), whether suite decision points are scored, and a
    folder to publish the results to."""

    seeds: list[int] = field(default_factory=lambda: [0])
    penalties: list[float] = field(default_factory=lambda: [-1.0, 0.0])
    suites: bool = True  # also run the offline suites (none / pulse_no_rl / pulse) after training
    suite_max_tasks: int = knob(2, ge=0)  # 0 = every task of each suite persona chain
    # score every policy call of a run of each offline suite (pulse eval-policy source=suite) for the
    # SFT-only, GRPO(0), GRPO(-1) checkpoints and the gold rule; writes suite_decisions.json (off in
    # `make demo`, on in the cpu/tiny_grpo recipe)
    suite_decisions: bool = False
    suite_decision_benchmarks: list[str] = field(default_factory=lambda: ["pibench_sim", "mcp_persona_sim"])
    # which checkpoints are scored there: sft (SFT only), no_penalty (GRPO 0), pulse (GRPO -1); each costs a
    # run of every suite with the policy in the loop (minutes per checkpoint for a 0.5B model on 2 cores)
    suite_decision_roles: list[Literal["sft", "no_penalty", "pulse"]] = field(
        default_factory=lambda: ["sft", "no_penalty", "pulse"]
    )
    # also write demo_results.json, demo_table.md and reward_curves.png here (e.g. results/demo, the
    # committed folder the README's figures come from); "" = only the run directory
    publish: str = ""


# ---------------------------------------------------------------------------------------------------
# DictConfig -> frozen dataclasses


def to_typed(cfg: Any, cls: type[T], prefix: str | None = None) -> T:
    """Check a hydra DictConfig (or a plain mapping) against a dataclass schema and build the frozen
    objects. Missing keys take the dataclass defaults.

    Args:
        cfg: the composed config node, or a dict.
        cls: the dataclass to build (e.g. `TrainConfig`).
        prefix: the dotted key of `cfg` used in messages (None: a DictConfig node's own path).

    Returns:
        The `cls` instance, nested dataclasses built too.

    Raises:
        ConfigError: an unknown key (with close names), a wrong type, a missing or unresolvable value,
            a value outside a Literal's choices or a declared range; the message names the full
            dotted key.
    """
    from omegaconf import DictConfig, ListConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    if isinstance(cfg, (DictConfig, ListConfig)):
        if prefix is None:
            prefix = cfg._get_full_key(None) or ""
        try:
            data = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
        except OmegaConfBaseException as e:
            key = getattr(e, "full_key", "") or ""
            raise ConfigError(f"config key {key!r}: {getattr(e, 'msg', e)}".replace("\n", " ")) from None
    else:
        data = cfg
    return _build(cls, data, prefix or "")


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _fail(key: str, msg: str) -> ConfigError:
    return ConfigError(f"config key {key!r}: {msg}")


def _build(cls: type[T], data: Any, prefix: str) -> T:
    if not isinstance(data, dict):
        raise _fail(prefix or "<root>", f"expected a mapping of {cls.__name__} keys, got {data!r}")
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=2, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise _fail(_join(prefix, str(key)), f"unknown key{hint} (known keys here: {', '.join(known)})")
    kwargs = {}
    for name, f in known.items():
        if name in data:
            kwargs[name] = _field_value(f, hints[name], data[name], _join(prefix, name))
    return cls(**kwargs)


def _field_value(f: Field, tp: Any, value: Any, key: str) -> Any:
    aliases = f.metadata.get("aliases") or {}
    if isinstance(value, str) and value in aliases:
        value = aliases[value]
    out = _convert(tp, value, key, aliases)
    bounds = f.metadata.get("range")
    if bounds:
        _check_range(out, bounds, key)
    return out


_OPS = {
    "ge": (">=", lambda v, b: v >= b),
    "gt": (">", lambda v, b: v > b),
    "le": ("<=", lambda v, b: v <= b),
    "lt": ("<", lambda v, b: v < b),
}


def _check_range(value: Any, bounds: dict[str, float], key: str) -> None:
    if isinstance(value, float) and math.isnan(value):
        raise _fail(key, "nan is not a valid value")
    failed = [f"{_OPS[op][0]} {b:g}" for op, b in bounds.items() if not _OPS[op][1](value, b)]
    if failed:
        need = " and ".join(f"{_OPS[op][0]} {b:g}" for op, b in bounds.items())
        raise _fail(key, f"{value!r} is out of range (must be {need})")


def _same_literal(value: Any, choice: Any) -> bool:
    # type-exact: 1 must not match True, "1" must not match 1
    return type(value) is type(choice) and value == choice


def _fmt_choice(c: Any) -> str:
    return str(c).lower() if isinstance(c, bool) else (repr(c) if c == "" else str(c))


def _convert(tp: Any, value: Any, key: str, aliases: dict[Any, Any] | None = None) -> Any:
    origin = get_origin(tp)
    if tp is Any:
        return value
    if origin is Literal:
        choices = get_args(tp)
        for c in choices:
            if _same_literal(value, c):
                return c
        names = [_fmt_choice(c) for c in choices]
        extra = f" (also accepted: {', '.join(map(str, aliases))})" if aliases else ""
        close = difflib.get_close_matches(
            str(value), [str(c) for c in choices if isinstance(c, str)], n=1, cutoff=0.6
        )
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise _fail(key, f"{value!r} is not a valid choice; choose one of: {' | '.join(names)}{extra}{hint}")
    if origin is Union or (origin is not None and type(tp).__name__ == "UnionType"):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        error: ConfigError | None = None
        for a in args:
            if a is not type(None):
                try:
                    return _convert(a, value, key)
                except ConfigError as e:
                    error = e
        raise error or _fail(key, f"invalid value {value!r}")
    if is_dataclass(tp):
        return _build(tp, value, key)
    if origin in (list, tuple, typing.Sequence):
        if not isinstance(value, (list, tuple)):
            raise _fail(key, f"expected a list, got {value!r}")
        (item,) = get_args(tp)[:1] or (Any,)
        return [_convert(item, v, f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(key, f"expected a mapping, got {value!r}")
        _, vt = get_args(tp) or (Any, Any)
        return {k: _convert(vt, v, _join(key, str(k))) for k, v in value.items()}
    if value is None:
        raise _fail(key, f"a value is required (expected {getattr(tp, '__name__', tp)}, got null)")
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise _fail(key, f"expected true or false, got {value!r}")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        raise _fail(key, f"expected an integer, got {value!r}")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise _fail(key, f"expected a number, got {value!r}")
    if tp is str:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise _fail(key, f"expected a string, got {value!r}")
    raise _fail(key, f"unsupported schema type {tp!r}")


def as_dict(obj: Any) -> Any:
    if is_dataclass(obj):
        return {f.name: as_dict(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [as_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {k: as_dict(v) for k, v in obj.items()}
    return obj
