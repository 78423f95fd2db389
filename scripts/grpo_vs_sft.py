"""What GRPO changed relative to its SFT start, per training seed, on the held-out split and at the
suites' decision points (issue 33: "a GRPO step that earns its keep").

    python scripts/grpo_vs_sft.py results/policy/qwen_coder_seeds/s0 results/policy/qwen_coder_seeds/s1 \
        --out results/policy/qwen_coder/grpo_vs_sft.md [--runs 'outputs/cpu_qwen_coder_lora/s{seed}']

Reads each seed folder's `demo_results.json` (held-out metrics) and `suite_decisions.json` (decision
points). Per benchmark: decision accuracy and interruption success of SFT and GRPO(-1) per seed, the
paired difference (GRPO - SFT, same seed) as mean ± stderr, and whether it is "more than the spread":
every seed's difference has the same sign and the mean is at least twice its standard error. The
confusion matrices (gold -> chosen, summed over seeds) show where the decisions moved. With `--runs`,
the GRPO training logs (trainer_state.json) add the share of prompt groups whose completions all got
the same reward: such a group has zero advantage and teaches GRPO nothing.

`--grpo-runs 'DIR/s{seed}'` compares another GRPO(-1) run with the same SFT starts instead of the demo's
(a variant of the recipe trained by `pulse train ... init_from=<the seed's SFT checkpoint>`): per seed it
reads DIR/s{seed}/eval_grpo.json (held-out, written by `pulse train`) and
DIR/s{seed}/suite/suite_decisions.json (`pulse eval-policy source=suite seed={seed}`), and the training
signal from DIR/s{seed}/grpo.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pulse.utils.atomic import atomic_write_text
from pulse.utils.stats import mean_stderr

SFT, GRPO = "SFT only", "GRPO (penalty -1)"
ACTIONS = ("silent", "supplement", "intervene")
KEYS = (("decision_accuracy", "decision acc"), ("interruption_success", "interruption success"))


def _load(folder: Path, name: str) -> dict:
    path = folder / name
    if not path.is_file():
        sys.exit(f"grpo_vs_sft: {path}: missing (a `pulse demo ... demo.publish={folder}` writes it)")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        sys.exit(f"grpo_vs_sft: {path}: not JSON ({e})")


def _paired(sft: list[float | None], grpo: list[float | None]) -> tuple[str, bool]:
    diffs = [100 * (g - s) for s, g in zip(sft, grpo, strict=True) if s is not None and g is not None]
    if not diffs:
        return "–", False
    m, se = mean_stderr(diffs)
    same_sign = all(d > 0 for d in diffs) or all(d < 0 for d in diffs)
    beyond = len(diffs) >= 2 and se is not None and same_sign and abs(m) >= 2 * se
    per = ", ".join(f"{d:+.1f}" for d in diffs)
    return (f"{m:+.1f} ± {se:.1f} ({per})" if se is not None else f"{m:+.1f} ({per})"), beyond


def _confusion(cells: list[dict[str, int] | None]) -> str:
    total: dict[str, int] = {}
    for c in cells:
        for k, v in (c or {}).items():
            total[k] = total.get(k, 0) + v
    rows = ["| gold \\ chosen | " + " | ".join(ACTIONS) + " |", "|---|---|---|---|"]
    for g in ACTIONS:
        rows.append(f"| {g} | " + " | ".join(str(total.get(f"{g}->{c}", 0)) for c in ACTIONS) + " |")
    return "\n".join(rows)


def _zero_spread(grpo_dir: Path) -> str:
    states = sorted(grpo_dir.glob("**/trainer_state.json"), key=lambda p: p.stat().st_mtime)
    if not states:
        return "no GRPO trainer_state.json under " + str(grpo_dir)
    logs = [
        h for h in json.loads(states[-1].read_text()).get("log_history", []) if "frac_reward_zero_std" in h
    ]
    if not logs:
        return "the log has no frac_reward_zero_std"
    fr = [h["frac_reward_zero_std"] for h in logs]
    rw = [h.get("reward") for h in logs if h.get("reward") is not None]
    return (
        f"{len(fr)} logged steps: groups with zero reward spread {100 * min(fr):.0f}–{100 * max(fr):.0f} % "
        f"(mean {100 * sum(fr) / len(fr):.0f} %); mean reward per step " + ", ".join(f"{r:+.2f}" for r in rw)
    )


def _variant(pattern: str, seed: int) -> tuple[dict, dict]:
    """A `--grpo-runs` run of one seed: its held-out metrics and its suites' cells in the demo's shape."""
    run = Path(pattern.format(seed=seed))
    held_out = _load(run, "eval_grpo.json")
    suite = _load(run / "suite", "suite_decisions.json")
    cells = {
        b: {**m, "confusion_per_seed": [m.get("confusion")]}
        for b, m in (suite.get("benchmarks") or {}).items()
    }
    return held_out, cells


def report(folders: list[Path], runs: str = "", grpo_runs: str = "") -> str:
    demos = [_load(f, "demo_results.json") for f in folders]
    suites = [_load(f, "suite_decisions.json") for f in folders]
    seeds = [d["seeds"][0] for d in demos]
    if grpo_runs:  # another GRPO(-1) run from the same SFT start replaces the demo's
        for d, s, seed in zip(demos, suites, seeds):
            held_out, cells = _variant(grpo_runs, seed)
            d["results"][GRPO] = [held_out]
            s["benchmarks"][GRPO] = cells
    what = f"GRPO(−1) of {grpo_runs}" if grpo_runs else "GRPO(−1)"
    out = [
        f"# {what} vs its SFT start, paired by training seed",
        "",
        f"Seeds {seeds}; folders: {', '.join(str(f) for f in folders)}. Difference = GRPO − SFT of the same "
        "seed, in points, mean ± stderr (per seed). **beyond spread**: every seed moves the same way and the "
        "mean is at least twice its stderr. Decision points: every policy call of a run of each offline "
        "suite, gold-rule labels, simulated task agent (each policy runs its own episodes, so the points "
        "differ slightly between rows).",
        "",
        "| where | metric | SFT per seed | GRPO(−1) per seed | GRPO − SFT | beyond spread |",
        "|---|---|---|---|---|---|",
    ]
    confusions = []

    def row(where: str, sft_cells: list[dict], grpo_cells: list[dict]) -> None:
        for key, label in KEYS:
            s = [c.get(key) for c in sft_cells]
            g = [c.get(key) for c in grpo_cells]
            diff, beyond = _paired(s, g)
            fmt = ", ".join("–" if x is None else f"{100 * x:.1f}" for x in s)
            fmt_g = ", ".join("–" if x is None else f"{100 * x:.1f}" for x in g)
            out.append(f"| {where} | {label} | {fmt} | {fmt_g} | {diff} | {'yes' if beyond else 'no'} |")

    def one(cell: dict) -> dict:  # a single-seed suite cell: {"decision_accuracy": {"mean": x}, ...}
        flat = {k: (v.get("mean") if isinstance(v, dict) else v) for k, v in cell.items()}
        flat["confusion"] = (cell.get("confusion_per_seed") or [None])[0]
        return flat

    row("held-out", [d["results"][SFT][0] for d in demos], [d["results"][GRPO][0] for d in demos])
    confusions.append(
        (
            "held-out",
            [d["results"][SFT][0].get("confusion") for d in demos],
            [d["results"][GRPO][0].get("confusion") for d in demos],
        )
    )
    for bench in suites[0]["benchmarks"][SFT]:
        sft_c = [one(s["benchmarks"][SFT][bench]) for s in suites]
        grpo_c = [one(s["benchmarks"][GRPO][bench]) for s in suites]
        row(bench, sft_c, grpo_c)
        confusions.append((bench, [c["confusion"] for c in sft_c], [c["confusion"] for c in grpo_c]))
    out += ["", "## Where the decisions moved (gold → chosen, summed over seeds)", ""]
    for where, s, g in confusions:
        out += [f"**{where}**, SFT:", "", _confusion(s), "", f"**{where}**, GRPO(−1):", "", _confusion(g), ""]
    if runs or grpo_runs:
        out += ["## GRPO training signal", ""]
        for seed in seeds:
            grpo_dir = (
                Path(grpo_runs.format(seed=seed)) / "grpo"
                if grpo_runs
                else Path(runs.format(seed=seed)) / "grpo_pulse"
            )
            out.append(f"- seed {seed}: {_zero_spread(grpo_dir)}")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="per-seed `demo.publish` folders")
    ap.add_argument("--out", default="", help="write the Markdown report here (else print it)")
    ap.add_argument("--runs", default="", help="per-seed run folder with '{seed}', for the GRPO logs")
    ap.add_argument("--grpo-runs", default="", help="per-seed folder of another GRPO(-1) run with '{seed}'")
    a = ap.parse_args()
    text = report(a.folders, a.runs, a.grpo_runs)
    if a.out:
        atomic_write_text(a.out, text)
    print(text)


if __name__ == "__main__":
    main()
