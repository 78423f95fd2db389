"""Build a policy backend from its typed config (the registry lives at the CLI boundary)."""
from __future__ import annotations

from pulse.config.schema import ConfigError, PolicyBackendConfig
from pulse.registry import POLICY_BACKENDS, RegistryError


def build_policy(cfg: PolicyBackendConfig):
    try:
        cls = POLICY_BACKENDS.get(cfg.backend)
    except RegistryError as e:
        raise ConfigError(f"policy.backend: {e}") from None
    if not cfg.name_or_path:
        raise ConfigError("policy.name_or_path: give a checkpoint dir, LoRA adapter dir or model id")
    if cfg.backend == "openai":
        if not cfg.base_url:
            raise ConfigError("policy.base_url: required for policy.backend=openai")
        return cls(model=cfg.name_or_path, base_url=cfg.base_url, api_key=cfg.api_key,
                   prompt_style=cfg.prompt_style, max_new_tokens=cfg.max_new_tokens)
    if cfg.backend == "vllm":
        return cls(cfg.name_or_path, prompt_style=cfg.prompt_style, dtype=cfg.dtype, max_new_tokens=cfg.max_new_tokens)
    return cls(cfg.name_or_path, prompt_style=cfg.prompt_style, dtype=cfg.dtype,
               max_new_tokens=cfg.max_new_tokens, batch_size=cfg.batch_size)
