"""`pulse gen-data` / `python -m pulse.cli.gen_data`: generate the policy dataset.

pulse gen-data out_dir=artifacts/data/pulse_v1 seed=0
pulse gen-data overrides.n_users=120
pulse gen-data source=runtime runtime_fraction=0.5 \
    out_dir=artifacts/data/runtime_v1   # run-time decision points
"""

from __future__ import annotations

import dataclasses
import json

from pulse.cli.support import hydra_entry


def _run(cfg) -> None:
    from omegaconf import OmegaConf

    from data_gen.build import build_dataset
    from data_gen.config import GenDataConfig
    from pulse.config.schema import ConfigError

    known = {f.name for f in dataclasses.fields(GenDataConfig)}
    extra = OmegaConf.to_container(cfg.overrides, resolve=True) or {}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise ConfigError(f"overrides: unknown generator field(s) {unknown}; known: {sorted(known)}")
    source = str(cfg.get("source", "synthetic"))
    if source not in ("synthetic", "persona2web", "runtime"):
        raise ConfigError(f"source: {source!r} not in ['persona2web', 'runtime', 'synthetic']")
    gen_cfg = GenDataConfig(
        **{
            **extra,
            "seed": int(cfg.seed),
            "source": "synthetic" if source == "runtime" else source,
            "data_dir": str(cfg.get("data_dir", "") or ""),
        }
    )
    if source == "runtime":
        from data_gen.runtime import RuntimeParams, build_runtime_dataset

        fraction = float(cfg.get("runtime_fraction", 0.5))
        if not 0 < fraction <= 1:
            raise ConfigError(f"runtime_fraction: {fraction} not in (0, 1]")
        rt_node = cfg.get("runtime")
        rt_extra = (OmegaConf.to_container(rt_node, resolve=True) if rt_node is not None else None) or {}
        rt_known = {f.name for f in dataclasses.fields(RuntimeParams)}
        bad = sorted(set(rt_extra) - rt_known)
        if bad:
            raise ConfigError(f"runtime: unknown field(s) {bad}; known: {sorted(rt_known)}")
        card = build_runtime_dataset(gen_cfg, RuntimeParams(**rt_extra), fraction, cfg.out_dir)
    else:
        card = build_dataset(gen_cfg, cfg.out_dir)
    print(json.dumps(card, indent=2, default=str))
    print(f"[pulse gen-data] wrote {cfg.out_dir}")


main = hydra_entry("gen-data", _run, config_name="gen_data")

if __name__ == "__main__":
    main()
