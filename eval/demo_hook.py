"""What `pulse demo` calls after training: evaluate none / pulse_no_rl / pulse on both offline
suites with the simulated task agent and return the rendered table.

    from eval.demo_hook import run_suites
    print(run_suites("outputs/demo/train/final", "artifacts/models/tiny_qwen3", "outputs/demo/eval", seeds=[0, 1, 2]))

`checkpoint_dir` is the trained policy (LoRA adapter dir or model dir), `base_model_dir` the untrained
base. `max_tasks` > 0 keeps the first N tasks of each persona chain (a faster demo). Runs resume.
Returns Markdown (Table 1 layout; rows marked "(sim)": simulated task agent, mean ± stderr over seeds).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from pulse.config.schema import PolicyBackendConfig
from eval.config import BenchmarkConfig, EvalConfig, MethodConfig
from eval.harness import run_eval
from eval.tables import build_tables, collect, find_runs, to_markdown

DEMO_METHODS = (MethodConfig("none", "none"), MethodConfig("pulse_no_rl", policy="base"),
                MethodConfig("pulse", policy="trained"))


def run_suites(checkpoint_dir: str, base_model_dir: str, out_dir: str, seeds: Sequence[int] = (0, 1, 2),
               benchmarks: Sequence[str] = ("pibench_sim", "mcp_persona_sim"), max_tasks: int = 0,
               prompt_style: str = "compact", max_new_tokens: int = 32) -> str:
    out = Path(out_dir)
    pol = PolicyBackendConfig(backend="transformers", name_or_path=str(checkpoint_dir), prompt_style=prompt_style,
                              max_new_tokens=max_new_tokens, batch_size=8)
    base = replace(pol, name_or_path=str(base_model_dir))
    for bench in benchmarks:
        for method in DEMO_METHODS:
            for seed in seeds:
                run_eval(EvalConfig(out_dir=str(out / "runs" / bench / method.name / f"seed{seed}"), seed=seed,
                                    experiment=f"table1/{method.name}",
                                    benchmark=BenchmarkConfig(bench, max_tasks=max_tasks,
                                                              transport="direct"),
                                    method=method, policy=pol, base_policy=base, progress=False))
    head, rows, caption = build_tables(collect(find_runs([out / "runs"])))["table1"]
    md = to_markdown(head, rows, caption)
    (out / "table1.md").write_text(md)
    return md
