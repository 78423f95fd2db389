"""What GRPO's knobs change from one SFT start: a `pulse train -m` sweep of GRPO runs, each judged on
the held-out split against the SFT checkpoint they all started from (issue 33: "tune the recipe ... or
show, with the curves, why it cannot at this scale").

    python scripts/grpo_sweep.py --sft outputs/grpo_sweep/sft_s0 outputs/grpo_sweep/sweep-* \
        --out results/policy/grpo_sweep_tiny/sweep.md --curves results/policy/grpo_sweep_tiny/curves.png

Each run folder holds what `pulse train` writes: config.yaml (the knobs), eval_grpo.json (held-out
metrics) and metrics.jsonl (one row per GRPO step). Runs with the same knobs and different `seed`
(sampling and data order; the start is the same SFT checkpoint) are one configuration: its difference
from SFT is the mean ± stderr over those seeds, "beyond spread" when every seed moves the same way and
the mean is at least twice its stderr (`_paired` of scripts/grpo_vs_sft.py: one rule). Per step: the
mean reward (first and last three steps) and the share of prompt groups whose completions all got the
same reward (`frac_reward_zero_std`): such a group has zero advantage and teaches GRPO nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from pulse.utils.atomic import atomic_write_text
from pulse.utils.json_input import read_json_file, read_jsonl_file
from pulse.utils.stats import mean_stderr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grpo_vs_sft import _paired  # noqa: E402  (one rule for "beyond the spread")

KNOBS = ("temperature", "generations_per_prompt", "prompts_per_step", "steps", "learning_rate", "beta")
METRICS = (
    ("decision_accuracy", "decision acc %", 100.0),
    ("interruption_success", "interruption success %", 100.0),
    ("intervene_recall", "intervene recall %", 100.0),
    ("interventions", "interventions", 1.0),
)


def _evaluation(path: Path) -> dict:
    """A held-out evaluation's metrics, with intervene recall (share of gold interventions chosen) added."""
    e = _json(path)
    return {**e, "intervene_recall": e.get("per_action", {}).get("intervene", {}).get("recall")}


class SweepError(ValueError):
    """A run folder that cannot be reported (the message names the file)."""


def _json(path: Path) -> dict:
    return read_json_file(path, SweepError, what="run file (a finished `pulse train` run writes it)")


def _steps(run: Path) -> list[dict]:
    rows = read_jsonl_file(run / "metrics.jsonl", SweepError, what="step log")
    return [row for _, row in rows if row.get("stage") == "grpo" and "reward" in row]


def load_run(run: Path) -> dict:
    cfg_path = run / "config.yaml"
    if not cfg_path.is_file():
        raise SweepError(f"{cfg_path}: missing (not a `pulse train` run folder?)")
    cfg = yaml.safe_load(cfg_path.read_text())
    grpo = cfg.get("grpo", {})
    steps = _steps(run)
    if not steps:
        raise SweepError(f"{run}/metrics.jsonl: no GRPO step logged")
    rewards = [r["reward"] for r in steps]
    zero = [r["frac_reward_zero_std"] for r in steps if "frac_reward_zero_std" in r]
    return {
        "run": run.name,
        "knobs": tuple(grpo.get(k) for k in KNOBS),
        "penalty": cfg.get("reward", {}).get("weights", {}).get("wrong_intervention"),
        "seed": cfg.get("seed"),
        "eval": _evaluation(run / "eval_grpo.json"),
        "reward_first": sum(rewards[:3]) / len(rewards[:3]),
        "reward_last": sum(rewards[-3:]) / len(rewards[-3:]),
        "zero_spread": sum(zero) / len(zero) if zero else None,
    }


CURVES = (
    ("reward", "mean sampled reward"),
    ("frac_reward_zero_std", "share of groups with no reward spread"),
    ("rewards/correct_decision/mean", "correct decision (with evidence) rate"),
    ("rewards/wrong_intervention/mean", "wrong intervention rate"),
)


def plot_curves(runs: list[Path], out_png: Path) -> None:
    """Per GRPO step, each configuration's curves (mean over its seeds): what the sampled groups held."""
    from eval.demo_report import plot_reward_curves

    by_config: dict[str, list[Path]] = {}
    for run in runs:
        r = load_run(run)  # the same checks as the table: a folder that is no finished run is named
        knobs = dict(zip(KNOBS, r["knobs"]))
        name = f"T {knobs['temperature']}, G {knobs['generations_per_prompt']}"
        by_config.setdefault(name, []).append(run / "metrics.jsonl")
    title = "GRPO(-1) from one SFT start, tiny recipe (T temperature, G group size; mean over seeds)"
    plot_reward_curves(dict(sorted(by_config.items())), out_png, CURVES, title)


def _fmt(m: float | None, se: float | None) -> str:
    if m is None:
        return "n/a"
    return f"{m:+.1f} ± {se:.1f}" if se is not None else f"{m:+.1f}"


def report(sft_run: Path, runs: list[Path]) -> str:
    sft = _evaluation(sft_run / "eval_sft.json")
    rows = sorted((load_run(r) for r in runs), key=lambda r: (r["knobs"], r["seed"]))
    sft_line = (
        f"SFT start: `{sft_run}` (held-out n = {sft.get('n')}): decision accuracy "
        f"{100 * sft['decision_accuracy']:.1f} %, interruption success "
        f"{100 * sft['interruption_success']:.1f} %, {sft['interventions']} interventions."
    )
    header = [*KNOBS, "penalty", "seeds", *(f"Δ {label}" for _, label, _ in METRICS)]
    header += ["beyond spread (decision acc)", "reward first → last 3 steps", "zero-spread groups"]
    out = [
        "# GRPO knobs from one SFT start (held-out split)",
        "",
        sft_line,
        "Every run: GRPO with the wrong-intervention penalty named, from that checkpoint; seeds differ in "
        "sampling and prompt order only. Difference = GRPO − SFT in points (interventions: count), mean ± "
        "stderr over the seeds; **beyond spread**: every seed moves the same way and the mean is at least "
        "twice its stderr. Zero-spread groups: share of prompt groups whose completions all got the same "
        "reward (no advantage, no gradient), mean over steps.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    by_knobs: dict[tuple, list[dict]] = {}
    for r in rows:
        by_knobs.setdefault((r["knobs"], r["penalty"]), []).append(r)
    for (knobs, penalty), group in by_knobs.items():
        cells = []
        beyond = False
        for key, _, scale in METRICS:
            vals = [g["eval"].get(key) for g in group]
            if scale == 100.0:  # a rate: the paired rule of scripts/grpo_vs_sft.py
                cell, moved = _paired([sft.get(key)] * len(vals), vals)
                beyond = moved if key == "decision_accuracy" else beyond
            else:  # a count
                m, se = mean_stderr([v - sft[key] for v in vals if v is not None])
                cell = _fmt(m, se)
            cells.append(cell)
        rf = mean_stderr([g["reward_first"] for g in group])[0]
        rl = mean_stderr([g["reward_last"] for g in group])[0]
        zs = mean_stderr([g["zero_spread"] for g in group])[0]
        seeds = ", ".join(str(g["seed"]) for g in group)
        zero = f"{100 * zs:.0f} %" if zs is not None else "n/a"
        moved = "yes" if beyond else "no"
        row = [*(str(k) for k in knobs), str(penalty), seeds, *cells, moved, f"{rf:+.2f} → {rl:+.2f}", zero]
        out.append("| " + " | ".join(row) + " |")
    out += [
        "",
        "## Per run",
        "",
        "| run | decision acc % | interruption success % | interventions |",
        "|---|---|---|---|",
    ]
    for r in rows:
        e = r["eval"]
        out.append(
            f"| {r['run']} | {100 * e['decision_accuracy']:.1f} | {100 * e['interruption_success']:.1f} "
            f"| {e['interventions']} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="GRPO run folders of the sweep")
    ap.add_argument("--sft", type=Path, required=True, help="the SFT run they started from")
    ap.add_argument("--out", type=Path, default=None, help="write the Markdown here (else print it)")
    ap.add_argument("--curves", type=Path, default=None, help="also draw the per-step curves into this PNG")
    a = ap.parse_args(argv)
    runs = [r for r in a.runs if r.is_dir()]
    try:
        text = report(a.sft, runs)
        if a.curves:
            plot_curves(runs, a.curves)
            print(f"grpo_sweep: wrote {a.curves}")
    except SweepError as e:
        print(f"grpo_sweep: {e}", file=sys.stderr)
        return 2
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(a.out, text)
        print(f"grpo_sweep: wrote {a.out}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
