"""How robust is each ranking to the simulated agent's behaviour model? A hydra multirun per knob.

    .venv/bin/python scripts/sensitivity.py --runs outputs/sensitivity/runs --out results/sensitivity \
        [--checkpoint 'outputs/.../final'] [--seeds 0] \
        [--benchmarks pibench_sim mcp_persona_sim independent_sim]

For every behaviour knob of the simulated agent (eval/agents/behaviour.py `BEHAVIOUR_KNOBS`) the
script runs one hydra multirun, `pulse eval -m agent.behaviour.<knob>=v1,v2,v3 method=... benchmark=...
seed=...` (the joblib launcher: parallel worker processes), over three settings besides the default
(`GRID`), plus one multirun at the defaults. Methods: none, mem0, pma, openclaw, the oracle (the gold
rule as Pulse's policy) and, when `--checkpoint` is given, the learned Pulse policy. Every run is an
ordinary run dir (resumable: a finished run is skipped). Then, per knob setting and suite: each
method's score, the ranking, Spearman's rank correlation with the ranking at the defaults, and every
pair of ranked methods whose order flips. Written: `sensitivity.json`, `sensitivity.md` (the table)
and `sensitivity.png` (score per knob value, one line per method). All figures come from the
*simulated* task agent and are labelled so.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# three plausible settings per knob besides the default (eval/agents/behaviour.py says why the default)
GRID: dict[str, tuple] = {
    "p_follow_explicit": (0.85, 0.92, 1.0),
    "p_use_delivered": (0.6, 0.75, 1.0),
    "decay_per_step": (0.0, 0.05, 0.3),
    "context_budget_tokens": (250, 500, 4000),
    "load_penalty": (0.0, 0.25, 1.0),
    "p_latest_on_conflict": (0.5, 0.9, 1.0),
    "p_override_stated": (0.0, 0.1, 0.5),
    "p_apply_out_of_context": (0.0, 0.6, 1.0),
    "max_interventions_per_step": (0, 2, 3),
    "p_hold_abandon": (0.0, 0.05, 0.3),
    "p_hold_ask_user": (0.05, 0.1, 0.3),
    "p_hold_repeat": (0.0, 0.05, 0.3),
}
METHODS = ("none", "mem0", "pma", "openclaw", "pulse_rule")


def check_grid() -> None:
    """The grid sweeps exactly the behaviour knobs the agent model declares (one list of them)."""
    from eval.agents.behaviour import BEHAVIOUR_KNOBS

    if set(GRID) != set(BEHAVIOUR_KNOBS):
        raise SystemExit(
            f"sensitivity: GRID {sorted(GRID)} is not the agent's BEHAVIOUR_KNOBS {sorted(BEHAVIOUR_KNOBS)}"
        )


ORACLE = {"pulse_rule"}  # shown, never ranked (a row no method can be)


def multirun(
    runs: Path, knob: str | None, values: tuple, methods, benchmarks, seeds, checkpoint: str, jobs: int
) -> None:
    sweep = [f"agent.behaviour.{knob}={','.join(map(str, values))}"] if knob else []
    tag = (
        f"{knob}@${{agent.behaviour.{knob}}}" if knob else "default"
    )  # '=' is not allowed in an override value
    cmd = [
        sys.executable,
        "-m",
        "pulse.cli",
        "eval",
        "-m",
        *sweep,
        f"method={','.join(methods)}",
        f"benchmark={','.join(benchmarks)}",
        f"seed={','.join(map(str, seeds))}",
        f"out_dir={runs}/{tag}/${{benchmark.name}}/${{method.name}}/seed${{seed}}",
        "progress=false",
        "chains_parallel=6",  # a learned policy's decisions batched across a run's chains
        f"hydra.launcher.n_jobs={jobs}",
        f"hydra.sweep.dir={runs}/_hydra/{knob or 'default'}",
    ]
    if checkpoint:
        cmd.append(f"policy.name_or_path={checkpoint}")
    print(f"[sensitivity] {knob or 'defaults'}: {' '.join(cmd[3:])}", flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, env={**os.environ, "HYDRA_FULL_ERROR": "1"})


def ranks(scores: dict[str, float]) -> dict[str, float]:
    """Average ranks (1 = best) with ties sharing their mean rank."""
    order = sorted(scores, key=lambda m: -scores[m])
    out, i = {}, 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: dict[str, float], b: dict[str, float]) -> float | None:
    keys = sorted(set(a) & set(b))
    if len(keys) < 3:
        return None
    ra, rb = ranks({k: a[k] for k in keys}), ranks({k: b[k] for k in keys})
    ma, mb = sum(ra.values()) / len(keys), sum(rb.values()) / len(keys)
    cov = sum((ra[k] - ma) * (rb[k] - mb) for k in keys)
    va = sum((ra[k] - ma) ** 2 for k in keys) ** 0.5
    vb = sum((rb[k] - mb) ** 2 for k in keys) ** 0.5
    return cov / (va * vb) if va and vb else None


def collect(runs: Path) -> dict[tuple[str, str, str], dict[int, float]]:
    """(setting, benchmark, method) -> {seed: score} from every finished run dir's summary.json."""
    out: dict[tuple[str, str, str], dict[int, float]] = {}
    for p in sorted(runs.glob("*/*/*/seed*/summary.json")):
        setting, bench, method = p.parts[-5].replace("@", "="), p.parts[-4], p.parts[-3]
        s = json.loads(p.read_text())
        if s.get("score") is not None:
            out.setdefault((setting, bench, method), {})[int(s["seed"])] = float(s["score"])
    return out


def analyse(data, benchmarks) -> dict:
    mean = {k: sum(v.values()) / len(v) for k, v in data.items()}
    settings = ["default"] + [f"{k}={v}" for k, vs in GRID.items() for v in vs]
    result = {"settings": [], "label": "simulated task agent (eval/agents/behaviour.py); offline stand-ins"}
    for st in settings:
        for b in benchmarks:
            scores = {m: mean[(st, b, m)] for (s, bb, m) in mean if s == st and bb == b}
            if not scores:
                continue
            base = {m: mean[("default", b, m)] for (s, bb, m) in mean if s == "default" and bb == b}
            ranked = {m: v for m, v in scores.items() if m not in ORACLE}
            ranked_base = {m: v for m, v in base.items() if m not in ORACLE}
            flips = [
                f"{x} vs {y}"
                for x, y in itertools.combinations(sorted(ranked), 2)
                if x in ranked_base
                and y in ranked_base
                and (ranked[x] - ranked[y]) * (ranked_base[x] - ranked_base[y]) < 0
            ]
            result["settings"].append(
                {
                    "setting": st,
                    "benchmark": b,
                    "scores": scores,
                    "ranking": sorted(ranked, key=lambda m: -ranked[m]),
                    "spearman_vs_default": spearman(ranked, ranked_base),
                    "flips_vs_default": flips,
                    "seeds": sorted({s for (x, bb, m), v in data.items() if x == st and bb == b for s in v}),
                }
            )
    return result


def markdown(res: dict, methods) -> str:
    head = [
        "setting",
        "benchmark",
        *methods,
        "ranking (best first; oracle not ranked)",
        "ρ vs default",
        "flips",
    ]
    lines = [
        "**Sensitivity of the offline rankings to the simulated agent's behaviour knobs** "
        "(simulated task agent; offline stand-ins for memory-side LLMs; scores in %, mean over seeds "
        f"{sorted({s for r in res['settings'] for s in r['seeds']})}).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in res["settings"]:
        rho = r["spearman_vs_default"]
        cells = [r["setting"], r["benchmark"]] + [
            f"{100 * r['scores'][m]:.1f}" if m in r["scores"] else "–" for m in methods
        ]
        cells += [
            " > ".join(r["ranking"]),
            "–" if rho is None else f"{rho:.2f}",
            "; ".join(r["flips_vs_default"]) or "none",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(res: dict, methods, benchmarks, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    knobs = list(GRID)
    fig, axes = plt.subplots(
        len(benchmarks),
        len(knobs),
        figsize=(2.6 * len(knobs), 2.4 * len(benchmarks)),
        squeeze=False,
        sharey="row",
    )
    by = {(r["setting"], r["benchmark"]): r["scores"] for r in res["settings"]}
    from eval.agents.behaviour import BehaviourParams

    for i, b in enumerate(benchmarks):
        for j, k in enumerate(knobs):
            ax = axes[i][j]
            default = getattr(BehaviourParams(), k)
            xs = sorted({*GRID[k], default})
            for m in methods:
                ys = [by.get(("default" if x == default else f"{k}={x}", b), {}).get(m) for x in xs]
                pts = [(x, 100 * y) for x, y in zip(xs, ys) if y is not None]
                if pts:
                    ax.plot(*zip(*pts), marker="o", ms=3, label=m, ls="--" if m in ORACLE else "-")
            ax.axvline(default, color="grey", lw=0.6)
            ax.set_title(k, fontsize=7)
            ax.tick_params(labelsize=6)
            if j == 0:
                ax.set_ylabel(f"{b} (%)", fontsize=7)
    axes[0][0].legend(fontsize=6)
    fig.suptitle("Score per behaviour-knob setting (simulated task agent; grey line = default)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="outputs/sensitivity/runs")
    ap.add_argument("--out", default="results/sensitivity")
    ap.add_argument("--benchmarks", nargs="+", default=["pibench_sim", "mcp_persona_sim", "independent_sim"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--checkpoint", default="", help="learned Pulse policy (adds method=pulse)")
    ap.add_argument("--knobs", nargs="*", default=list(GRID))
    ap.add_argument("--jobs", type=int, default=2, help="parallel multirun workers")
    ap.add_argument("--analyse-only", action="store_true")
    a = ap.parse_args(argv)
    check_grid()
    unknown = sorted(set(a.knobs) - set(GRID))
    if unknown:
        print(f"sensitivity: --knobs {unknown} not among {sorted(GRID)}", file=sys.stderr)
        return 2
    methods = [*METHODS, *(["pulse"] if a.checkpoint else [])]
    runs = Path(a.runs).resolve()
    if not a.analyse_only:
        multirun(runs, None, (), methods, a.benchmarks, a.seeds, a.checkpoint, a.jobs)
        for k in a.knobs:
            multirun(runs, k, GRID[k], methods, a.benchmarks, a.seeds, a.checkpoint, a.jobs)
    res = analyse(collect(runs), a.benchmarks)
    res.update(
        methods=methods,
        grid={k: list(v) for k, v in GRID.items()},
        checkpoint=a.checkpoint or None,
        command=" ".join(["python scripts/sensitivity.py", *(argv if argv is not None else sys.argv[1:])]),
    )
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    from pulse.utils.atomic import atomic_write_text

    atomic_write_text(out / "sensitivity.json", json.dumps(res, indent=1, sort_keys=True) + "\n")
    atomic_write_text(out / "sensitivity.md", markdown(res, methods))
    plot(
        res,
        methods,
        [b for b in a.benchmarks if any(r["benchmark"] == b for r in res["settings"])],
        out / "sensitivity.png",
    )
    print(f"[sensitivity] wrote {out}/sensitivity.{{json,md,png}}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
