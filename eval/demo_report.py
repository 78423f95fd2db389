"""What `pulse demo` reports: its trained runs in the report's terms (`DemoRuns`), the held-out comparison
table, the paper's training claims checked on it, reward curves, provenance, the offline suites, and
per-seed results merged into one.

Numbers are the real policy's decisions on *generated* held-out data; no simulated agent is involved
in the held-out table (the suite tables that follow, if enabled, are simulated-agent and say so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.demo_suite_decisions import suite_decision_checks, suite_decision_results, suite_decision_row
from pulse.utils.stats import format_mean_stderr, mean_stderr


def comparison_table(results: dict[str, list[dict[str, Any]]], seeds: list[int], n: int) -> str:
    """The held-out table (Markdown): one row per policy of `results` (name -> per-seed metrics of
    `pulse.policy.evaluate`), mean ± stderr over `seeds`, on `n` held-out examples."""
    lines = [
        f"Held-out policy metrics on generated data ({n} examples, held-out users and task groups; "
        f"seeds {seeds}; mean ± stderr)",
        "| policy | action acc % | decision acc % | interruption success % | interventions | parse fail % |",
        "|---|---|---|---|---|---|",
    ]
    for name, runs in results.items():
        lines.append(
            f"| {name} | {format_mean_stderr([r['action_accuracy'] for r in runs])} | "
            f"{format_mean_stderr([r['decision_accuracy'] for r in runs])} | "
            f"{format_mean_stderr([r['interruption_success'] for r in runs])} | "
            f"{format_mean_stderr([r['interventions'] for r in runs], pct=False)} | "
            f"{format_mean_stderr([r['parse_failure_rate'] for r in runs])} |"
        )
    lines.append(
        "action acc: chosen action = gold action. decision acc: action and required evidence right "
        "(pulse/core/correctness.py). interruption success: correct interventions / chosen interventions. "
        "Parse failures act as silent."
    )
    return "\n".join(lines)


REWARD_CURVES = (
    ("reward", "total reward"),
    ("rewards/correct_action/mean", "correct action rate"),
    ("rewards/correct_decision/mean", "correct decision (with evidence) rate"),
    ("rewards/wrong_intervention/mean", "wrong intervention rate"),
)


def curves_title(model_name: str) -> str:
    """The reward-curve title, naming the model the recipe trains (the tiny one or a pretrained base)."""
    return f"GRPO reward curves ({model_name}, training prompts; mean over seeds, moving average)"


def plot_reward_curves(
    runs: dict[str, list[Path]],
    out_png: Path,
    keys: tuple[tuple[str, str], ...] = REWARD_CURVES,
    title: str = "GRPO reward curves (tiny Qwen3, generated data; mean over seeds, moving average)",
) -> None:
    """GRPO curves of `keys` (metrics.jsonl fields and their titles; mean over the seeds' metrics.jsonl
    per run name, moving average) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pulse.train.metrics_log import read_metrics

    fig, axes = plt.subplots(1, len(keys), figsize=(4.5 * len(keys), 3.6))
    for name, paths in runs.items():
        for ax, (key, label) in zip(axes, keys):
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
            ax.set_title(label)
            ax.set_xlabel("GRPO step")
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def penalty_name(p: float) -> str:
    """A GRPO run's role name for wrong-intervention penalty `p` (`pulse` is -1, `no_penalty` 0)."""
    return "pulse" if p == -1.0 else ("no_penalty" if p == 0.0 else f"penalty{p:g}")


def grpo_row(p: float) -> str:
    """The held-out table's row of the GRPO run with wrong-intervention penalty `p`."""
    return f"GRPO (penalty {p:g})"


def untrained_metrics(base: str, model_cfg, held_out: list) -> dict[str, Any]:
    """The held-out metrics of the untrained model at `base` (the table's "base (untrained)" row), read
    with the prompt style and completion budget it will be trained with (`model_cfg`: `ModelConfig`)
    and the policy backend's other defaults."""
    from pulse.config.schema import PolicyBackendConfig
    from pulse.policy.evaluate import evaluate_policy
    from pulse.policy.factory import build_policy

    policy = build_policy(
        PolicyBackendConfig(
            name_or_path=base,
            prompt_style=model_cfg.prompt_style,
            max_new_tokens=model_cfg.max_completion_tokens,
        )
    )
    metrics, _ = evaluate_policy(policy, held_out)
    return metrics


@dataclass
class DemoRuns:
    """The demo's trained runs as the report reads them (`demo_report`), filled in run order.

    `results`: per row of the held-out table ("base (untrained)", "SFT only", then one `grpo_row` per
    penalty) the per-seed held-out metrics of `pulse.policy.evaluate`; `curves`: per GRPO row its seeds'
    metrics.jsonl; `checkpoints` / `run_fps`: per seed ("s0") and role ("sft", then `penalty_name`) the
    checkpoint path / the run's fingerprints (pulse/utils/fingerprint.py).
    """

    results: dict[str, list[dict[str, Any]]]
    curves: dict[str, list[Path]]
    checkpoints: dict[str, Any] = field(default_factory=dict)
    run_fps: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_penalties(cls, penalties: list[float]) -> DemoRuns:
        """No runs yet; the table's rows in order, the GRPO ones in the order of `penalties`."""
        results: dict[str, list[dict[str, Any]]] = {"base (untrained)": [], "SFT only": []}
        results.update({grpo_row(p): [] for p in penalties})
        return cls(results, {k: [] for k in results if k.startswith("GRPO")})

    def add_base(self, metrics: dict[str, Any]) -> None:
        """The untrained base's held-out metrics, once per seed (one init, the same for every seed)."""
        self.results["base (untrained)"].append(metrics)

    def add_sft(self, seed: int, run: dict[str, Any]) -> None:
        """Seed `seed`'s SFT warm start (`run`: what `pulse.train.pipeline.run_training` returned)."""
        self.results["SFT only"].append(run["eval"]["sft"])
        self.checkpoints[f"s{seed}"] = {"sft": run["checkpoints"]["sft"]}
        self.run_fps[f"s{seed}"] = {"sft": run["fingerprints"]}

    def add_grpo(self, seed: int, p: float, run: dict[str, Any], out_dir: str) -> None:
        """Seed `seed`'s GRPO run with penalty `p`, trained in `out_dir` (after that seed's `add_sft`)."""
        self.results[grpo_row(p)].append(run["eval"]["grpo"])
        self.curves[grpo_row(p)].append(Path(out_dir) / "metrics.jsonl")
        self.checkpoints[f"s{seed}"][penalty_name(p)] = run["checkpoints"]["grpo"]
        self.run_fps[f"s{seed}"][penalty_name(p)] = run["fingerprints"]


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


def demo_provenance(
    data_path: Path, base: str, checkpoints: dict[str, Any], run_fps: dict[str, Any]
) -> dict[str, Any]:
    """What the figures came from: the code commit, the dataset's generator fingerprint
    (data_gen/fingerprint.py), each training run's data / code / starting-weights fingerprints and
    the content hash of every model evaluated (pulse/utils/fingerprint.py). A fresh clone's commit
    differs by construction, so scripts/reproduce_check.py reports these and compares the figures."""
    from pulse.train.data import recorded_fingerprint
    from pulse.utils import cpu_numerics
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
        "cpu_numerics": cpu_numerics.describe(),  # pulse/utils/cpu_numerics.py: why figures reproduce
    }


def run_demo_suites(root: Path, checkpoints: dict[str, Any], train_cfg, demo_cfg) -> dict[str, Any]:
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


def demo_report(
    root: Path, runs: DemoRuns, data_path: Path, base: str, n_held_out: int, train_cfg, demo_cfg
) -> dict[str, Any]:
    """The demo's result from its trained runs: the held-out table and checks, the reward curves PNG,
    provenance, and (as `demo_cfg` asks) the suite decision points and the offline suites; written as
    demo_results.json, demo_table.md (and suite_decisions.json) to `root` and `demo_cfg.publish`."""
    from pulse.config.schema import as_dict
    from pulse.utils.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text

    results, curves, checkpoints, run_fps = runs.results, runs.curves, runs.checkpoints, runs.run_fps

    table = comparison_table(results, list(demo_cfg.seeds), n_held_out)
    plot_reward_curves(curves, root / "reward_curves.png", title=curves_title(train_cfg.model.name))
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
            checkpoints,
            list(demo_cfg.seeds),
            train_cfg,
            list(demo_cfg.suite_decision_benchmarks),
            list(demo_cfg.suite_decision_roles),
        )
        table += "\n\n" + out["suite_decisions"]["table"]
    if demo_cfg.suites:
        out["suites"] = run_demo_suites(root, checkpoints, train_cfg, demo_cfg)
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
                lines.append(suite_decision_row(name, b, cell))
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
