"""What `pulse demo` calls after training: run the learned policies on both offline suites with the
simulated task agent, render Tables 1 and 2, and check the paper's training claims on them.

    from eval.demo_suites import run_suites
    run_suites({0: {"sft": "outputs/demo/s0/sft_run/sft/final",
                    "pulse": "outputs/demo/s0/grpo_pulse/grpo/final",
                    "no_penalty": "outputs/demo/s0/grpo_no_penalty/grpo/final"}}, "outputs/demo/suites")

`checkpoints` maps each seed to the demo's checkpoints by role (`sft`, and one per GRPO penalty as
`eval.demo_report.penalty_name` names it). Rows: `none` (no memory), `pulse_no_rl` (the SFT-only policy),
`pulse_penalty0` (GRPO with penalty 0) and `pulse` (GRPO with penalty -1), each present when its
checkpoint is. Evaluation seed s uses training seed s's checkpoints, so the spread over seeds
includes training variance. `max_tasks` > 0 keeps the first N tasks of each persona chain (a faster
demo). Runs start afresh (resume=false): the demo retrains in place, and a run dir never mixes
checkpoints. Every row is marked "(sim)": simulated task agent, mean ± stderr over seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from eval.config import BenchmarkConfig, EvalConfig, MethodConfig
from eval.harness import run_eval
from eval.table_format import summaries_for
from eval.tables import build_tables, collect, find_runs, to_markdown
from pulse.config.schema import PolicyBackendConfig
from pulse.utils.stats import mean_stderr

# suite row -> (method, the checkpoint role it runs; None = no policy)
DEMO_ROWS: tuple[tuple[MethodConfig, str | None], ...] = (
    (MethodConfig("none", "none"), None),
    (MethodConfig("pulse_no_rl", policy="base"), "sft"),
    (MethodConfig("pulse_penalty0", policy="trained"), "no_penalty"),
    (MethodConfig("pulse", policy="trained"), "pulse"),
)


def run_suites(
    checkpoints: Mapping[int, Mapping[str, str]],
    out_dir: str,
    benchmarks: Sequence[str] = ("pibench_sim", "mcp_persona_sim"),
    max_tasks: int = 0,
    prompt_style: str = "compact",
    max_new_tokens: int = 32,
) -> dict[str, Any]:
    """Returns {"table": Markdown of Tables 1 and 2, "checks": `suite_checks`, "out_dir": ...}."""
    out = Path(out_dir)
    for seed, roles in checkpoints.items():
        pol = PolicyBackendConfig(
            backend="transformers", prompt_style=prompt_style, max_new_tokens=max_new_tokens, batch_size=8
        )
        for bench in benchmarks:
            for method, role in DEMO_ROWS:
                if role is not None and role not in roles:
                    continue
                ck = replace(pol, name_or_path=str(roles[role])) if role else pol
                run_eval(
                    EvalConfig(
                        out_dir=str(out / "runs" / bench / method.name / f"seed{seed}"),
                        seed=seed,
                        experiment=f"table1/{method.name}",
                        benchmark=BenchmarkConfig(bench, max_tasks=max_tasks, transport="direct"),
                        method=method,
                        policy=ck,
                        base_policy=ck,
                        progress=False,
                        resume=False,
                    )
                )
    data = collect(find_runs([out / "runs"]), per_seed_checkpoints=True)
    tables = build_tables(data)
    md = "\n\n".join(to_markdown(*tables[t]) for t in ("table1", "table2"))
    (out / "tables.md").write_text(md + "\n")
    return {"table": md, "checks": suite_checks(data, benchmarks), "out_dir": str(out)}


def suite_checks(data, benchmarks: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per benchmark: mean score / interventions / interruption success of each learned row, and
    whether GRPO(-1) beats SFT-only and GRPO(0) on the score, and beats GRPO(0) on interruption success."""
    out: dict[str, dict[str, Any]] = {}
    for b in benchmarks:
        mean = {}
        for m in ("pulse_no_rl", "pulse_penalty0", "pulse"):
            ss = summaries_for(data, "table2", m, b)  # the row's runs from any table, as Table 2 finds them
            mean[m] = (
                {
                    k: mean_stderr([s.get(k) for s in ss])[0]
                    for k in ("score", "interventions", "interruption_success")
                }
                if ss
                else None
            )
        p, p0, sft = mean["pulse"], mean["pulse_penalty0"], mean["pulse_no_rl"]

        def gt(a, b, k):
            return None if not a or not b or a[k] is None or b[k] is None else a[k] > b[k]

        out[b] = {
            "means": mean,
            "grpo_beats_sft_score": gt(p, sft, "score"),
            "penalty_beats_0_score": gt(p, p0, "score"),
            "penalty_beats_0_interruption_success": gt(p, p0, "interruption_success"),
            "penalty_fewer_interventions": gt(p0, p, "interventions"),
        }
    return out
