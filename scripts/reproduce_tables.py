"""Reproduce the offline Table 1-3 rows: every experiment config x suites x seeds, in one process.

    .venv/bin/python scripts/reproduce_tables.py --runs outputs/tables/runs --out results/tables \
        --checkpoint 'outputs/demo/s{seed}/grpo_pulse/grpo/final' \
        --base 'outputs/demo/s{seed}/sft_run/sft/final'

Each run is `pulse eval experiment=<table>/<row> benchmark=<suite> seed=<seed>` composed from
configs/ exactly as the CLI composes it (hydra compose API), then run in this process, so model
loading and interpreter start-up are paid once per process instead of once per run. `{seed}` in a
checkpoint path pairs training seed s with evaluation seed s (3 training seeds -> spread over seeds
includes training variance); a policy is loaded once per process and shared by every run that uses it.
The memory baselines (Mem0, LightMem, A-MEM, OpenClaw, dsh, ZCode, the Proactive Memory Agent) need no
checkpoint: their memory-side calls go to the `llm=` group (offline stand-ins unless overridden, e.g.
`llm=openai llm.model=M llm.base_url=URL`). Rows that need a checkpoint that was not given are skipped
and listed.
Runs resume (rows already complete are not rerun). Results come from the *simulated* task agent
unless overrides select another (`agent=openai ...`); they are labelled as such everywhere. Then
`pulse tables` renders Markdown/LaTeX/PNG from the run directories.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "configs"


def rows_of(tables: list[str], only: list[str]) -> list[str]:
    out = []
    for t in tables:
        for p in sorted((CONF / "experiment" / t).glob("*.yaml")):
            name = f"{t}/{p.stem}"
            if not only or name in only:
                out.append(name)
    return out


def share_loaded_policies() -> None:
    """Every run of this process that asks for the same policy config gets the model loaded once
    (`pulse.policy.factory.build_policy`, memoised by its frozen config)."""
    import pulse.policy.factory as factory

    build, cache = factory.build_policy, {}

    def shared(cfg, *args, **kwargs):
        key = (repr(cfg), repr(args), repr(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = build(cfg, *args, **kwargs)
        return cache[key]

    factory.build_policy = shared


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="outputs/tables/runs", help="run directories go here")
    ap.add_argument("--out", default="outputs/tables", help="tables (Markdown, LaTeX, JSON, PNG) go here")
    ap.add_argument("--tables", nargs="+", default=["table1", "table2", "table3", "tableB4"])
    ap.add_argument("--rows", nargs="*", default=[], help="only these tableK/row names")
    ap.add_argument("--benchmarks", nargs="+", default=["pibench_sim", "mcp_persona_sim", "independent_sim"])
    ap.add_argument(
        "--chains-parallel",
        type=int,
        default=6,
        help="persona chains of a run at once; their policy decisions go out as one batch",
    )
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument(
        "--checkpoint", default="", help="trained policy path; '{seed}' is replaced; 'rule' = rule policy"
    )
    ap.add_argument(
        "--base", default="", help="policy of the 'w/o RL' rows (base_policy); '{seed}' is replaced"
    )
    ap.add_argument("overrides", nargs="*", help="extra hydra overrides for every run")
    a = ap.parse_args(argv)

    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from eval.config import EvalConfig
    from eval.harness import run_eval
    from pulse.config.schema import to_typed

    share_loaded_policies()
    runs = Path(a.runs)
    skipped: list[str] = []
    t0 = time.perf_counter()
    n_runs = 0
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        for row in rows_of(a.tables, a.rows):
            for bench in a.benchmarks:
                for seed in a.seeds:
                    ov = [
                        f"experiment={row}",
                        f"benchmark={bench}",
                        f"seed={seed}",
                        "progress=false",
                        f"out_dir={runs / row / bench / f'seed{seed}'}",
                        f"chains_parallel={a.chains_parallel}",
                        *a.overrides,
                    ]
                    probe = compose("eval", overrides=ov)
                    # only Pulse's own rows run a policy (the baselines' memory-side calls go to llm=)
                    uses_policy = (
                        probe.method.impl == "pulse" and probe.method.get("mode", "streaming") != "start_only"
                    )
                    needs_trained = uses_policy and probe.method.get("policy", "trained") == "trained"
                    needs_base = uses_policy and probe.method.get("policy", "trained") == "base"
                    if needs_trained and not a.checkpoint:
                        skipped.append(f"{row} (needs --checkpoint)")
                        break
                    if needs_base and not a.base:
                        skipped.append(f"{row} (needs --base)")
                        break
                    if needs_trained and a.checkpoint == "rule":
                        ov += ["method.policy=rule", f"method.name={probe.method.name}-rule"]
                    elif needs_trained:
                        ov.append(f"policy.name_or_path={a.checkpoint.format(seed=seed)}")
                    if needs_base:
                        ov.append(f"base_policy.name_or_path={a.base.format(seed=seed)}")
                    cfg = compose("eval", overrides=ov)
                    run_eval(to_typed(cfg, EvalConfig), OmegaConf.to_yaml(cfg, resolve=True))
                    n_runs += 1
                    print(f"[{time.perf_counter() - t0:7.1f}s] {row} {bench} seed {seed}", flush=True)
    if skipped:
        print("rows not run: " + "; ".join(dict.fromkeys(skipped)))
    print(f"{n_runs} runs in {time.perf_counter() - t0:.1f}s")
    from pulse.cli.tables import main as tables_main

    per_seed = "{seed}" in a.checkpoint or "{seed}" in a.base
    return tables_main([str(runs), "--out", a.out, *(["--per-seed-checkpoints"] if per_seed else [])]) or 0


if __name__ == "__main__":
    sys.exit(main())
