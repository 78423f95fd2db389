"""Build a policy backend from its typed config (the registry lives at the CLI boundary)."""

from __future__ import annotations

from typing import Any

from pulse.config.schema import ConfigError, PolicyBackendConfig
from pulse.policy.record import trained_record
from pulse.registry import POLICY_BACKENDS, RegistryError


def trained_prompt_style(name_or_path: str) -> str:
    """The prompt style a local checkpoint was trained with, "" if unrecorded (pulse/policy/record.py)."""
    return str(trained_record(name_or_path).get("prompt_style", "") or "")


def resolve_prompt_style(cfg: PolicyBackendConfig) -> str:
    """`auto` -> the checkpoint's own style (compact when it records none; rich for an endpoint). An
    explicit style that differs from the recorded one is refused: the policy would read a prompt
    format it never saw, and its numbers would be meaningless."""
    # an endpoint's model name is a record only when it is the local folder it was served from
    trained = trained_prompt_style(cfg.name_or_path)
    if cfg.prompt_style == "auto":
        return trained or ("rich" if cfg.backend == "openai" else "compact")
    if trained and trained != cfg.prompt_style:
        raise ConfigError(
            f"policy.prompt_style: {cfg.name_or_path} was trained with prompt_style={trained!r}, "
            f"not {cfg.prompt_style!r}; set policy.prompt_style={trained} or auto"
        )
    return cfg.prompt_style


def resolve_device(device: str) -> str:
    """`auto` -> cuda when a GPU is visible, else cpu; an explicit cuda without one is refused."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("policy.device: cuda, but torch sees no GPU (set policy.device=cpu or auto)")
    return device


def resolve_chat_template_kwargs(cfg: PolicyBackendConfig) -> dict[str, Any]:
    """None -> the checkpoint's own (the prompt it was trained on); explicit arguments that differ
    from the recorded ones are refused, as a differing prompt style is."""
    trained = trained_record(cfg.name_or_path).get("chat_template_kwargs")
    if cfg.chat_template_kwargs is None:
        return dict(trained or {})
    if trained is not None and dict(trained) != dict(cfg.chat_template_kwargs):
        raise ConfigError(
            f"policy.chat_template_kwargs: {cfg.name_or_path} was trained with chat_template_kwargs="
            f"{dict(trained)}, not {dict(cfg.chat_template_kwargs)}; leave the key unset (null) to use "
            f"the recorded ones"
        )
    return dict(cfg.chat_template_kwargs)


def build_policy(cfg: PolicyBackendConfig):
    """Build the policy backend `cfg` names. The checkpoint's training record (pulse/policy/record.py)
    fills the prompt style and chat-template arguments, so training's held-out evaluation, `pulse
    eval-policy`, `pulse eval` and `pulse serve` render the prompt the policy was trained on.

    Args:
        cfg: the `PolicyBackendConfig` (backend, checkpoint or model name, endpoint, prompt style,
            token cap, batch size, dtype, device, chat-template arguments).

    Returns:
        The policy: `TransformersPolicy`, `VLLMPolicy` or `OpenAIPolicy`, each with `name` and
        `decide_batch(inputs)`.

    Raises:
        ConfigError: an unknown backend, no `name_or_path`, an openai backend without `base_url`,
            vllm or `device=cuda` without a visible GPU, a prompt style or chat-template arguments
            other than the checkpoint was trained with, an unreadable training record.
        ModelLoadError: a local checkpoint that cannot be loaded (transformers backend).
        RuntimeError: vllm backend without vLLM installed.
    """
    try:
        cls = POLICY_BACKENDS.get(cfg.backend)
    except RegistryError as e:
        raise ConfigError(f"policy.backend: {e}") from None
    if not cfg.name_or_path:
        raise ConfigError("policy.name_or_path: give a checkpoint dir, LoRA adapter dir or model id")
    style = resolve_prompt_style(cfg)
    template_kwargs = resolve_chat_template_kwargs(cfg)
    if cfg.backend == "openai":
        if not cfg.base_url:
            raise ConfigError("policy.base_url: required for policy.backend=openai")
        from pulse.llm.endpoint import EndpointConfig

        endpoint = EndpointConfig(
            model=cfg.name_or_path,
            base_url=cfg.base_url,
            api_key=cfg.api_key,
            api_key_env=cfg.api_key_env,
            retries=4,
        )
        return cls(
            endpoint,
            prompt_style=style,
            max_new_tokens=cfg.max_new_tokens,
            chat_template_kwargs=template_kwargs,
        )
    if cfg.backend == "vllm":
        if resolve_device(cfg.device) != "cuda":
            raise ConfigError("policy.backend=vllm: needs a CUDA GPU (policy.device resolves to cpu)")
        return cls(
            cfg.name_or_path,
            prompt_style=style,
            dtype=cfg.dtype,
            max_new_tokens=cfg.max_new_tokens,
            chat_template_kwargs=template_kwargs,
        )
    return cls(
        cfg.name_or_path,
        prompt_style=style,
        dtype=cfg.dtype,
        max_new_tokens=cfg.max_new_tokens,
        batch_size=cfg.batch_size,
        device=resolve_device(cfg.device),
        chat_template_kwargs=template_kwargs,
    )
