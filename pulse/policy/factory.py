"""Build a policy backend from its typed config (the registry lives at the CLI boundary)."""

from __future__ import annotations

import json
from pathlib import Path

from pulse.config.schema import ConfigError, PolicyBackendConfig
from pulse.registry import POLICY_BACKENDS, RegistryError


def trained_prompt_style(name_or_path: str) -> str:
    """The prompt style a local checkpoint was trained with, "" if unrecorded: its provenance.json
    (every final/ dir), else the run's config.yaml two levels up (trainer checkpoint-N dirs)."""
    path = Path(name_or_path)
    try:
        if (path / "provenance.json").is_file():
            return str(json.loads((path / "provenance.json").read_text()).get("prompt_style", ""))
        run_config = path.parent.parent / "config.yaml"
        if path.is_dir() and path.name.startswith("checkpoint-") and run_config.is_file():
            from omegaconf import OmegaConf

            return str(OmegaConf.select(OmegaConf.load(run_config), "model.prompt_style", default="") or "")
    except Exception as e:  # unreadable record: say which file, never guess
        raise ConfigError(
            f"policy.name_or_path: the training record of {path} is unreadable ({type(e).__name__}: {e})"
        ) from None
    return ""


def resolve_prompt_style(cfg: PolicyBackendConfig) -> str:
    """`auto` -> the checkpoint's own style (compact when it records none; rich for an endpoint). An
    explicit style that differs from the recorded one is refused: the policy would read a prompt
    format it never saw, and its numbers would be meaningless."""
    trained = "" if cfg.backend == "openai" else trained_prompt_style(cfg.name_or_path)
    if cfg.prompt_style == "auto":
        return trained or ("rich" if cfg.backend == "openai" else "compact")
    if trained and trained != cfg.prompt_style:
        raise ConfigError(
            f"policy.prompt_style: {cfg.name_or_path} was trained with prompt_style={trained!r}, "
            f"not {cfg.prompt_style!r}; set policy.prompt_style={trained} or auto"
        )
    return cfg.prompt_style


def build_policy(cfg: PolicyBackendConfig):
    try:
        cls = POLICY_BACKENDS.get(cfg.backend)
    except RegistryError as e:
        raise ConfigError(f"policy.backend: {e}") from None
    if not cfg.name_or_path:
        raise ConfigError("policy.name_or_path: give a checkpoint dir, LoRA adapter dir or model id")
    style = resolve_prompt_style(cfg)
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
        return cls(endpoint, prompt_style=style, max_new_tokens=cfg.max_new_tokens)
    if cfg.backend == "vllm":
        return cls(cfg.name_or_path, prompt_style=style, dtype=cfg.dtype, max_new_tokens=cfg.max_new_tokens)
    return cls(
        cfg.name_or_path,
        prompt_style=style,
        dtype=cfg.dtype,
        max_new_tokens=cfg.max_new_tokens,
        batch_size=cfg.batch_size,
    )
