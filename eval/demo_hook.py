"""What `pulse demo` calls after training: evaluate none / pulse_no_rl / pulse on both offline
suites with the simulated task agent and return the rendered table.

    from eval.demo_hook import run_suites
    print(run_suites({0: ("outputs/demo/s0/grpo_pulse/grpo/final", "outputs/demo/s0/sft/final")}, "outputs/demo/suites"))

`checkpoints` maps each seed to (trained policy, "w/o RL" policy): LoRA adapter dirs or model dirs.
Evaluation seed s uses training seed s's checkpoints, so the spread over seeds includes training
variance. `max_tasks` > 0 keeps the first N tasks of each persona chain (a faster demo). Runs start
afresh (resume=false): the demo retrains in place, and a run dir never mixes checkpoints.
Returns Markdown (Table 1 layout; rows marked "(sim)": simulated task agent, mean ± stderr over seeds).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

from pulse.config.schema import PolicyBackendConfig
from eval.config import BenchmarkConfig, EvalConfig, MethodConfig
from eval.harness import run_eval
from eval.tables import build_tables, collect, find_runs, to_markdown

DEMO_METHODS = (MethodConfig("none", "none"), MethodConfig("pulse_no_rl", policy="base"),
                MethodConfig("pulse", policy="trained"))


def run_suites(checkpoints: Mapping[int, tuple[str, str]], out_dir: str,
               benchmarks: Sequence[str] = ("pibench_sim", "mcp_persona_sim"), max_tasks: int = 0,
               prompt_style: str = "compact", max_new_tokens: int = 32) -> str:
    out = Path(out_dir)
    for seed, (trained, no_rl) in checkpoints.items():
        pol = PolicyBackendConfig(backend="transformers", name_or_path=str(trained), prompt_style=prompt_style,
                                  max_new_tokens=max_new_tokens, batch_size=8)
        base = replace(pol, name_or_path=str(no_rl))
        for bench in benchmarks:
            for method in DEMO_METHODS:
                run_eval(EvalConfig(out_dir=str(out / "runs" / bench / method.name / f"seed{seed}"), seed=seed,
                                    experiment=f"table1/{method.name}",
                                    benchmark=BenchmarkConfig(bench, max_tasks=max_tasks, transport="direct"),
                                    method=method, policy=pol, base_policy=base, progress=False, resume=False))
    head, rows, caption = build_tables(collect(find_runs([out / "runs"]), per_seed_checkpoints=True))["table1"]
    md = to_markdown(head, rows, caption)
    (out / "table1.md").write_text(md)
    return md
