"""Where a method's memory policy comes from (`method.policy`): one builder per source name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eval.config import EvalConfig


def _rule(cfg: EvalConfig, source: str) -> Any:
    from pulse.agent.rule_policy import RulePolicy

    return RulePolicy()


def _blind(cfg: EvalConfig, source: str) -> Any:
    from pulse.agent.blind_policies import BlindPolicy

    return BlindPolicy(source)


def _checkpoint(cfg: EvalConfig, source: str) -> Any:
    """The trained checkpoint (`policy`) or the untrained base model (`base_policy`)."""
    from pulse.config.schema import ConfigError
    from pulse.policy.factory import build_policy

    pcfg = cfg.policy if source == "trained" else cfg.base_policy
    key = "policy" if source == "trained" else "base_policy"
    if not pcfg.name_or_path:
        raise ConfigError(
            f"{key}.name_or_path: method {cfg.method.name!r} needs the "
            f"{'trained checkpoint' if source == 'trained' else 'untrained base model'}"
        )
    return build_policy(pcfg)


# source name -> builder(cfg, source): the policy that `method.policy: <source>` runs
POLICY_SOURCES: dict[str, Callable[[EvalConfig, str], Any]] = {
    "trained": _checkpoint,
    "base": _checkpoint,
    "rule": _rule,
    "supplement_all": _blind,
    "intervene_all": _blind,
}


def build_policy_source(cfg: EvalConfig, source: str) -> Any:
    """The policy for `source` under `cfg`. Raises ConfigError for an unknown source, or for a
    checkpoint source whose `name_or_path` is not set."""
    from pulse.config.schema import ConfigError

    build = POLICY_SOURCES.get(source)
    if build is None:
        raise ConfigError(f"method.policy: {source!r} not in {tuple(POLICY_SOURCES)}")
    return build(cfg, source)
