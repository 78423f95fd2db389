"""Every `configs/method/*.yaml` as hydra composes it (a variant extends its base through `defaults`,
so its own file states only what differs): name -> the method's keys, plain dicts."""

from __future__ import annotations

from functools import cache
from pathlib import Path

CONF = Path(__file__).resolve().parents[2] / "configs"


@cache
def method_configs() -> dict[str, dict]:
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(str(CONF), version_base="1.3"):
        return {
            p.stem: OmegaConf.to_container(compose(f"method/{p.stem}"), resolve=True)["method"]
            for p in sorted((CONF / "method").glob("*.yaml"))
        }
