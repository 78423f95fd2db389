"""The demo's suite decision points: every policy call of a run of each offline suite, scored by the
gold rule, per training seed, with the issue-17 targets checked on them (`pulse demo` reports them)."""

from __future__ import annotations

from typing import Any

from pulse.utils.stats import format_mean_stderr, mean_stderr

SUITE_DECISION_ROWS = (
    ("SFT only", "sft"),
    ("GRPO (penalty 0)", "no_penalty"),
    ("GRPO (penalty -1)", "pulse"),
)
SUITE_DECISION_KEYS = (
    "decision_accuracy",
    "action_accuracy",
    "intervene_recall",
    "interruption_success",
    "interventions",
    "oracle_interventions",
    "harness_interruption_success",
    "harness_interventions",
    "harness_interventions_fixed",
    "harness_interventions_misled",
    "task_mean_score",
    "n",
    "parse_failure_rate",
)


def suite_decision_row(name: str, benchmark: str, cell: dict[str, Any]) -> str:
    """One row of the suite decision-point table: each metric over the seeds that have a value."""

    def f(k, pct=True):
        return format_mean_stderr([v for v in cell[k]["per_seed"] if v is not None], pct)

    return (
        f"| {name} | {benchmark} | {f('n', False)} | {f('decision_accuracy')} | {f('intervene_recall')} | "
        f"{f('interruption_success')} | {f('interventions', False)} | "
        f"{f('oracle_interventions', False)} | {f('task_mean_score')} |"
    )


def suite_decision_results(
    checkpoints: dict[str, Any],
    seeds: list[int],
    train_cfg,
    benchmarks: list[str],
    roles: list[str] | None = None,
) -> dict[str, Any]:
    """Every policy call of a run of each offline suite (eval/policy_decisions.py), per training seed s
    with s's checkpoints and evaluation seed s; the gold rule (oracle) on the same suites and seeds.
    `roles`: the checkpoints scored (sft, no_penalty, pulse; None = every one trained).
    Per row and benchmark: each key's mean, stderr (None for one seed) and per-seed values; confusion
    matrices per seed."""
    from eval.policy_decisions import suite_decisions
    from pulse.agent.rule_policy import RulePolicy
    from pulse.config.schema import PolicyBackendConfig
    from pulse.policy.factory import build_policy

    raw: dict[str, dict[str, list[dict[str, Any]]]] = {}
    wanted = None if roles is None else set(roles)
    for seed in seeds:
        trained = checkpoints[f"s{seed}"]
        rows = [
            (name, role)
            for name, role in SUITE_DECISION_ROWS
            if role in trained and (wanted is None or role in wanted)
        ] + [("oracle (gold rule)", None)]
        for name, role in rows:
            policy = (
                RulePolicy()
                if role is None
                else build_policy(
                    PolicyBackendConfig(
                        name_or_path=str(trained[role]),
                        prompt_style=train_cfg.model.prompt_style,
                        max_new_tokens=train_cfg.model.max_completion_tokens,
                        dtype=train_cfg.model.dtype,  # as trained (bf16 for the pretrained recipe)
                        batch_size=8,
                    )
                )
            )
            print(f"[pulse demo] seed {seed}: suite decision points of {name}", flush=True)
            res, _ = suite_decisions(policy, benchmarks, seed)
            for b, m in res.items():
                raw.setdefault(name, {}).setdefault(b, []).append(m)
    summary: dict[str, Any] = {}
    for name, per in raw.items():
        summary[name] = {}
        for b, ms in per.items():
            cell = {}
            for k in SUITE_DECISION_KEYS:
                vals = [m.get(k) for m in ms]
                mean, se = (
                    mean_stderr([v for v in vals if v is not None])
                    if any(v is not None for v in vals)
                    else (None, None)
                )
                cell[k] = {"mean": mean, "stderr": se, "per_seed": vals}
            cell["confusion_per_seed"] = [m.get("confusion") for m in ms]
            summary[name][b] = cell
    lines = [
        f"Suite decision points (every policy call of a run of each offline suite, gold-rule label; "
        f"simulated task agent; training seeds = evaluation seeds {seeds}; mean ± stderr)",
        "| policy | benchmark | calls | decision acc % | intervene recall % | interruption success % | "
        "interventions | oracle interventions (same points) | mean task score % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, per in summary.items():
        for b, cell in per.items():
            lines.append(suite_decision_row(name, b, cell))
    return {
        "seeds": seeds,
        "benchmarks": summary,
        "table": "\n".join(lines),
        "checks": suite_decision_checks(summary, benchmarks),
    }


def suite_decision_checks(summary: dict[str, Any], benchmarks: list[str]) -> dict[str, Any]:
    """The issue-17 targets on suite decision points, per benchmark, for GRPO(-1): decision accuracy
    >= 90 %, interruption success >= 80 %, interventions >= half the oracle's on the same points; and
    the penalty's direction against GRPO(0) and the gain over SFT-only."""

    def mean(row, b, k):
        return ((summary.get(row) or {}).get(b) or {}).get(k, {}).get("mean")

    p, p0, sft = "GRPO (penalty -1)", "GRPO (penalty 0)", "SFT only"
    out = {}
    for b in benchmarks:
        da, isr, n, n_or = (
            mean(p, b, k)
            for k in ("decision_accuracy", "interruption_success", "interventions", "oracle_interventions")
        )
        out[b] = {
            "decision_accuracy_ge_90": None if da is None else da >= 0.9,
            "interruption_success_ge_80": None if isr is None else isr >= 0.8,
            "interventions_ge_half_oracle": None if n is None or not n_or else n >= 0.5 * n_or,
            "grpo_minus_sft_decision_accuracy_pts": None
            if da is None or mean(sft, b, "decision_accuracy") is None
            else 100 * (da - mean(sft, b, "decision_accuracy")),
            "penalty_fewer_interventions": None
            if n is None or mean(p0, b, "interventions") is None
            else n < mean(p0, b, "interventions"),
            "penalty_higher_interruption_success": None
            if isr is None or mean(p0, b, "interruption_success") is None
            else isr > mean(p0, b, "interruption_success"),
        }
    return out
