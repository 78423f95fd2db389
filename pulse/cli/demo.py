"""`pulse demo` / `python -m pulse.cli.demo`: the whole spine on the CPU default in minutes.

generate data -> build tiny Qwen3 -> per seed: SFT warm start, then GRPO with penalty -1 and 0
(both from that SFT checkpoint) -> evaluate base, SFT-only, GRPO(0), GRPO(-1) on held-out users and
task groups -> table (mean ± stderr over seeds) + reward curves PNG + demo_results.json.

Numbers are the real policy's decisions on *generated* held-out data; no simulated agent is involved
in this table (the suite table that follows, if enabled, is simulated-agent and says so).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pulse.cli.support import hydra_entry
from pulse.utils.stats import mean_stderr


def _fmt(values: list[Any], pct: bool = True) -> str:
    m, se = mean_stderr(values)
    if m is None:
        return "n/a"
    scale = 100 if pct else 1
    return f"{scale * m:.1f}" + ("" if se is None else f" ± {scale * se:.1f}")


def comparison_table(results: dict[str, list[dict[str, Any]]], seeds: list[int], n: int) -> str:
    lines = [
        f"Held-out policy metrics on generated data ({n} examples, held-out users and task groups; "
        f"seeds {seeds}; mean ± stderr)",
        "| policy | action acc % | decision acc % | interruption success % | interventions | parse fail % |",
        "|---|---|---|---|---|---|",
    ]
    for name, runs in results.items():
        lines.append(
            f"| {name} | {_fmt([r['action_accuracy'] for r in runs])} | "
            f"{_fmt([r['decision_accuracy'] for r in runs])} | "
            f"{_fmt([r['interruption_success'] for r in runs])} | "
            f"{_fmt([r['interventions'] for r in runs], pct=False)} | "
            f"{_fmt([r['parse_failure_rate'] for r in runs])} |"
        )
    lines.append(
        "action acc: chosen action = gold action. decision acc: action and required evidence right "
        "(pulse/core/correctness.py). interruption success: correct interventions / chosen interventions. "
        "Parse failures act as silent."
    )
    return "\n".join(lines)


def plot_reward_curves(runs: dict[str, list[Path]], out_png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pulse.train.metrics_log import read_metrics

    keys = [
        ("reward", "total reward"),
        ("rewards/correct_action/mean", "correct action rate"),
        ("rewards/correct_decision/mean", "correct decision (with evidence) rate"),
        ("rewards/wrong_intervention/mean", "wrong intervention rate"),
    ]
    fig, axes = plt.subplots(1, len(keys), figsize=(4.5 * len(keys), 3.6))
    for name, paths in runs.items():
        for ax, (key, title) in zip(axes, keys):
            series = []
            for p in paths:
                rows = [r for r in read_metrics(p) if r.get("stage") == "grpo" and key in r]
                series.append([r[key] for r in rows])
            if not series or not min(map(len, series)):
                continue
            n = min(map(len, series))
            mean = [sum(s[i] for s in series) / len(series) for i in range(n)]
            w = max(1, n // 10)  # moving average for readability
            smooth = [
                sum(mean[max(0, i - w + 1) : i + 1]) / len(mean[max(0, i - w + 1) : i + 1]) for i in range(n)
            ]
            ax.plot(range(1, n + 1), smooth, label=name)
            ax.set_title(title)
            ax.set_xlabel("GRPO step")
    axes[0].legend()
    fig.suptitle("GRPO reward curves (tiny Qwen3, generated data; mean over seeds, moving average)")
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def penalty_name(p: float) -> str:
    return "pulse" if p == -1.0 else ("no_penalty" if p == 0.0 else f"penalty{p:g}")


def run_demo(train_cfg, demo_cfg) -> dict[str, Any]:
    from data_gen.ensure import ensure_dataset
    from pulse.config.schema import PolicyBackendConfig, as_dict
    from pulse.policy.evaluate import evaluate_policy
    from pulse.policy.factory import build_policy
    from pulse.train.data import load_examples
    from pulse.train.pipeline import ensure_model, run_training
    from pulse.utils.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text

    root = Path(train_cfg.out_dir)
    data_path = ensure_dataset(train_cfg.data)
    train = load_examples(data_path, "train", train_cfg.data.max_train_examples)
    held_out = load_examples(data_path, "test", train_cfg.data.max_eval_examples)
    base = ensure_model(train_cfg, train)
    results: dict[str, list[dict[str, Any]]] = {"base (untrained)": [], "SFT only": []}
    for p in sorted(demo_cfg.penalties, reverse=True):
        results[f"GRPO (penalty {p:g})"] = []
    curves: dict[str, list[Path]] = {k: [] for k in results if k.startswith("GRPO")}
    checkpoints: dict[str, Any] = {}
    run_fps: dict[str, Any] = {}  # per seed and run: what it was trained from (pulse/utils/fingerprint.py)

    base_policy = build_policy(
        PolicyBackendConfig(
            name_or_path=base,
            prompt_style=train_cfg.model.prompt_style,
            max_new_tokens=train_cfg.model.max_completion_tokens,
        )
    )
    base_metrics, _ = evaluate_policy(base_policy, held_out)
    for seed in demo_cfg.seeds:
        print(f"\n[pulse demo] seed {seed}: SFT warm start", flush=True)
        results["base (untrained)"].append(base_metrics)  # one untrained init, same for every seed
        sft_cfg = dataclasses.replace(
            train_cfg,
            seed=seed,
            run_name=f"s{seed}-sft",
            out_dir=str(root / f"s{seed}" / "sft_run"),
            grpo=dataclasses.replace(train_cfg.grpo, enabled=False),
        )
        sft = run_training(sft_cfg, ensure_dataset)
        results["SFT only"].append(sft["eval"]["sft"])
        checkpoints[f"s{seed}"] = {"sft": sft["checkpoints"]["sft"]}
        run_fps[f"s{seed}"] = {"sft": sft["fingerprints"]}
        for p in sorted(demo_cfg.penalties, reverse=True):
            name = penalty_name(p)
            print(f"\n[pulse demo] seed {seed}: GRPO with wrong-intervention penalty {p:g}", flush=True)
            g_cfg = dataclasses.replace(
                train_cfg,
                seed=seed,
                run_name=f"s{seed}-grpo-{name}",
                out_dir=str(root / f"s{seed}" / f"grpo_{name}"),
                init_from=sft["checkpoints"]["sft"],
                sft=dataclasses.replace(train_cfg.sft, enabled=False),
                reward=dataclasses.replace(
                    train_cfg.reward,
                    name=name,
                    weights={**train_cfg.reward.weights, "wrong_intervention": float(p)},
                ),
            )
            g = run_training(g_cfg, ensure_dataset)
            results[f"GRPO (penalty {p:g})"].append(g["eval"]["grpo"])
            curves[f"GRPO (penalty {p:g})"].append(Path(g_cfg.out_dir) / "metrics.jsonl")
            checkpoints[f"s{seed}"][name] = g["checkpoints"]["grpo"]
            run_fps[f"s{seed}"][name] = g["fingerprints"]

    table = comparison_table(results, list(demo_cfg.seeds), len(held_out))
    plot_reward_curves(curves, root / "reward_curves.png")
    out = {
        "table": table,
        "seeds": list(demo_cfg.seeds),
        "results": results,
        "checks": policy_checks(results),
        "checkpoints": checkpoints,
        "train_config": as_dict(train_cfg),
        "provenance": demo_provenance(data_path, base, checkpoints, run_fps),
    }
    if demo_cfg.suite_decisions:
        out["suite_decisions"] = suite_decision_results(
            checkpoints, list(demo_cfg.seeds), train_cfg, list(demo_cfg.suite_decision_benchmarks)
        )
        table += "\n\n" + out["suite_decisions"]["table"]
    if demo_cfg.suites:
        out["suites"] = _run_suites(root, checkpoints, train_cfg, demo_cfg)
    md = table + "\n" + (out.get("suites") or {}).get("table", "") + "\n"
    for folder in dict.fromkeys([root] + ([Path(demo_cfg.publish)] if demo_cfg.publish else [])):
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_json(folder / "demo_results.json", out)
        if out.get("suite_decisions"):
            atomic_write_json(folder / "suite_decisions.json", out["suite_decisions"])
        atomic_write_text(folder / "demo_table.md", md)
        if folder != root and (root / "reward_curves.png").exists():
            atomic_write_bytes(folder / "reward_curves.png", (root / "reward_curves.png").read_bytes())
    print("\n" + table)
    print(
        "checks: "
        + ", ".join(f"{k}={v if not isinstance(v, float) else round(v, 1)}" for k, v in out["checks"].items())
    )
    if out.get("suites", {}).get("table"):
        print("\n" + out["suites"]["table"])
    print(
        f"\n[pulse demo] reward curves: {root / 'reward_curves.png'}; results: {root / 'demo_results.json'}"
    )
    return out


def demo_provenance(
    data_path: Path, base: str, checkpoints: dict[str, Any], run_fps: dict[str, Any]
) -> dict[str, Any]:
    """What the figures came from: the code commit, the dataset's generator fingerprint
    (data_gen/fingerprint.py), each training run's data / code / starting-weights fingerprints and
    the content hash of every model evaluated (pulse/utils/fingerprint.py). A fresh clone's commit
    differs by construction, so scripts/reproduce_check.py reports these and compares the figures."""
    from pulse.train.data import recorded_fingerprint
    from pulse.utils.fingerprint import model_fingerprint
    from pulse.utils.manifest import git_commit

    models: dict[str, Any] = {"base": model_fingerprint(base)}
    for seed, roles in checkpoints.items():
        models[seed] = {role: model_fingerprint(path) for role, path in roles.items()}
    return {
        "git_commit": git_commit(),
        "dataset_fingerprint": recorded_fingerprint(Path(data_path)),
        "runs": run_fps,
        "models": models,
    }


def _run_suites(root: Path, checkpoints: dict[str, Any], train_cfg, demo_cfg) -> dict[str, Any]:
    """Offline benchmark suites with the simulated task agent (eval/), if that part is installed."""
    try:
        from eval.demo_suites import run_suites
    except ImportError as e:
        return {"table": "", "skipped": f"offline suites unavailable: {e}"}
    # "w/o RL" here is the SFT-only policy: the random-init base cannot emit a parseable decision,
    # so as a no-RL row it would only repeat the start-only result (the paper's base is instruct-tuned).
    out = run_suites(
        {seed: checkpoints[f"s{seed}"] for seed in demo_cfg.seeds},
        out_dir=str(root / "suites"),
        max_tasks=demo_cfg.suite_max_tasks,
        prompt_style=train_cfg.model.prompt_style,
        max_new_tokens=train_cfg.model.max_completion_tokens,
    )
    out["table"] += (
        "\n\npulse = the GRPO (penalty -1) checkpoint of the same training seed as the evaluation "
        "seed; pulse_penalty0 = its GRPO (penalty 0) checkpoint; pulse_no_rl = its SFT-only checkpoint. "
        "Simulated task agent."
    )
    return out


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


def _suite_decision_row(name: str, benchmark: str, cell: dict[str, Any]) -> str:
    """One row of the suite decision-point table: each metric over the seeds that have a value."""

    def f(k, pct=True):
        return _fmt([v for v in cell[k]["per_seed"] if v is not None], pct)

    return (
        f"| {name} | {benchmark} | {f('n', False)} | {f('decision_accuracy')} | {f('intervene_recall')} | "
        f"{f('interruption_success')} | {f('interventions', False)} | "
        f"{f('oracle_interventions', False)} | {f('task_mean_score')} |"
    )


def suite_decision_results(
    checkpoints: dict[str, Any], seeds: list[int], train_cfg, benchmarks: list[str]
) -> dict[str, Any]:
    """Every policy call of a run of each offline suite (eval/policy_decisions.py), per training seed s
    with s's checkpoints and evaluation seed s; the gold rule (oracle) on the same suites and seeds.
    Per row and benchmark: each key's mean, stderr (None for one seed) and per-seed values; confusion
    matrices per seed."""
    from eval.policy_decisions import suite_decisions
    from pulse.agent.rule_policy import RulePolicy
    from pulse.config.schema import PolicyBackendConfig
    from pulse.policy.factory import build_policy

    raw: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for seed in seeds:
        roles = checkpoints[f"s{seed}"]
        rows = [(name, role) for name, role in SUITE_DECISION_ROWS if role in roles] + [
            ("oracle (gold rule)", None)
        ]
        for name, role in rows:
            policy = (
                RulePolicy()
                if role is None
                else build_policy(
                    PolicyBackendConfig(
                        name_or_path=str(roles[role]),
                        prompt_style=train_cfg.model.prompt_style,
                        max_new_tokens=train_cfg.model.max_completion_tokens,
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
            lines.append(_suite_decision_row(name, b, cell))
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


def policy_checks(results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The paper's training claims on the held-out policy metrics (means over seeds; None = not run):
    GRPO(-1) makes fewer interventions than GRPO(0) with higher interruption success, both
    intervening; GRPO(-1) beats SFT-only on decision accuracy without falling to always-silent."""

    def mean(name: str, key: str) -> float | None:
        return mean_stderr([r[key] for r in results.get(name, [])])[0]

    p, p0, sft = "GRPO (penalty -1)", "GRPO (penalty 0)", "SFT only"
    n_p, n_p0 = mean(p, "interventions"), mean(p0, "interventions")
    is_p, is_p0 = mean(p, "interruption_success"), mean(p0, "interruption_success")
    acc_p, acc_sft = mean(p, "decision_accuracy"), mean(sft, "decision_accuracy")
    silent = mean_stderr([r["per_action"]["silent"]["chosen"] / r["n"] for r in results.get(p, [])])[0]
    both = None if n_p is None or n_p0 is None else (n_p > 0 and n_p0 > 0)
    return {
        "both_penalties_intervene": both,
        "penalty_fewer_interventions": None if not both else n_p < n_p0,
        "penalty_higher_interruption_success": None
        if not both or is_p is None or is_p0 is None
        else is_p > is_p0,
        "grpo_minus_sft_decision_accuracy_pts": None
        if acc_p is None or acc_sft is None
        else 100 * (acc_p - acc_sft),
        "grpo_always_silent": None if silent is None else silent >= 0.999,
    }


def _run(cfg) -> None:
    from omegaconf import OmegaConf

    from pulse.config.schema import DemoConfig, TrainConfig, to_typed

    demo = to_typed(cfg.demo, DemoConfig)
    train_part = OmegaConf.masked_copy(cfg, [k for k in cfg.keys() if k != "demo"])
    run_demo(to_typed(train_part, TrainConfig), demo)


main = hydra_entry("demo", _run)

if __name__ == "__main__":
    main()


def merge_seed_results(folders: list[str | Path], out: str | Path) -> dict[str, Any]:
    """Merge per-seed demo results (each `pulse demo demo.seeds=[s] demo.publish=DIR`, e.g. one resumable
    chunk per seed on 2 cores) into one result with mean ± stderr over the seeds: the held-out table,
    its checks, and the suite decision points (suite_decisions.json). Writes demo_results.json,
    demo_table.md and suite_decisions.json to `out`."""

    from pulse.config.schema import ConfigError
    from pulse.utils.atomic import atomic_write_json, atomic_write_text
    from pulse.utils.json_input import read_json_file

    parts = [
        read_json_file(Path(f) / "demo_results.json", error=ConfigError, what="demo results") for f in folders
    ]
    seeds = [s for p in parts for s in p["seeds"]]
    results: dict[str, list[dict[str, Any]]] = {}
    for p in parts:
        for name, runs in p["results"].items():
            results.setdefault(name, []).extend(runs)
    n = parts[0]["results"]["SFT only"][0]["n"]
    table = comparison_table(results, seeds, n)
    merged: dict[str, Any] = {
        "table": table,
        "seeds": seeds,
        "results": results,
        "checks": policy_checks(results),
        "checkpoints": {k: v for p in parts for k, v in p["checkpoints"].items()},
        "train_config": parts[0]["train_config"],
        "merged_from": [str(f) for f in folders],
        "provenance": {str(f): p.get("provenance") for f, p in zip(folders, parts)},
    }
    if all(p.get("suite_decisions") for p in parts):
        rows: dict[str, dict[str, dict[str, Any]]] = {}
        for p in parts:
            for name, per in p["suite_decisions"]["benchmarks"].items():
                for b, cell in per.items():
                    tgt = rows.setdefault(name, {}).setdefault(b, {})
                    for k, v in cell.items():
                        if k == "confusion_per_seed":
                            tgt.setdefault(k, []).extend(v)
                        else:
                            tgt.setdefault(k, {"per_seed": []})["per_seed"].extend(v["per_seed"])
        for per in rows.values():
            for cell in per.values():
                for k, v in cell.items():
                    if k != "confusion_per_seed":
                        vals = [x for x in v["per_seed"] if x is not None]
                        v["mean"], v["stderr"] = mean_stderr(vals) if vals else (None, None)
        benchmarks = list(next(iter(rows.values())))
        lines = parts[0]["suite_decisions"]["table"].splitlines()[:3]
        lines[0] = lines[0].replace(str(parts[0]["seeds"]), str(seeds))
        for name, per in rows.items():
            for b, cell in per.items():
                lines.append(_suite_decision_row(name, b, cell))
        merged["suite_decisions"] = {
            "seeds": seeds,
            "benchmarks": rows,
            "table": "\n".join(lines),
            "checks": suite_decision_checks(rows, benchmarks),
        }
        merged["table"] += "\n\n" + merged["suite_decisions"]["table"]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "demo_results.json", merged)
    atomic_write_text(out / "demo_table.md", merged["table"] + "\n")
    if merged.get("suite_decisions"):
        atomic_write_json(out / "suite_decisions.json", merged["suite_decisions"])
    return merged
