"""The real-model subset: a small local model on CPU as the task agent (`agent=openai`), for none, mem0 and
Pulse, on a fixed subset of Persona2Web and τ²-bench retail. Labelled "small local model, not comparable
to the paper" wherever it prints (the agent's model name carries the label into every row and summary).

Subset (fixed, documented):
- Persona2Web with the synthetic seed history: the first 10 users in name order, task group A, levels 1,
  2 and 3 (30 tasks: `P2W_TASKS`);
- τ²-bench retail, the first 5 tasks of the `test` split (`TAU2_TASKS`), with the same model as the
  user simulator, `agent.max_turns=TAU2_TURNS`, in the named non-standard variant `tau2_retail_db`:
  each customer's seed history from the retail database (`benchmark.seed_history=retail_db`; without it
  no memory method has anything to give, so `none` here is the memoryless reference) and the customer's
  opening message scripted from the scenario (`benchmark.user_opening=scenario`: asked to open the
  conversation, the 0.5B answers "###STOP###" and the 1.5B echoes the agent's greeting; the simulator
  writes every later message).
Methods: `none`, `mem0` (memory-side calls on the same model: `llm=openai`) and `pulse_rule` (Pulse with
the gold rule as its policy: no trained checkpoint is on this machine; the learned policy row needs
`method=pulse policy.name_or_path=CKPT`).

    python -m eval.serving.gguf_server MODEL.gguf --port 8012 --threads 2 &      # the endpoint
    flock /tmp/pulse-cpu.lock python -m eval.real.real_model_subset --base-url http://127.0.0.1:8012/v1 \
        --out results/real_model                                                 # runs + rows.md

Each run is one `pulse eval` (printed before it starts), recorded with `PULSE_TRACE=1` so every row
carries its trace (`pulse trace results/real_model/runs/<bench>/<method>` renders what the model said
and called, and what memory did); `rows.md` / `rows.json` are made from the run directories' summaries
and rows: score and components, interventions, and measured wall time per task (the agent's real
seconds, `seconds` of each row) and per run (`run_wall_s.json`: the whole `pulse eval`, seed builds
included). A run that is interrupted keeps its finished rows (`pulse eval` resumes by chain) and the
table says how many tasks each row has.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pulse.utils.atomic import atomic_write_text

LABEL = "small local model, not comparable to the paper"
P2W_USERS = (
    "Alex_Garcia",
    "Alex_Lee",
    "Alex_Smith",
    "Avery_Davis",
    "Avery_Lee",
    "Avery_Moore",
    "Blake_Moore",
    "Blake_Rodriguez",
    "Blake_Thomas",
    "Cameron_Davis",
)
P2W_TASKS = tuple(f"{u}_A{lvl}" for u in P2W_USERS for lvl in (1, 2, 3))
TAU2_TASKS = tuple(f"tau2_retail_{i}" for i in ("5", "9", "12", "17", "18"))  # first 5 of split 'test'
TAU2_TURNS = 8
METHODS = ("none", "mem0", "pulse_rule")
# run name -> (benchmark config, extra overrides)
BENCHES = {
    "persona2web": ("persona2web", ["benchmark.seed_history=synthetic"]),
    "tau2_retail_db": (
        "tau2_retail",
        ["benchmark.seed_history=retail_db", "benchmark.user_opening=scenario"],
    ),
}


def commands(
    base_url: str,
    model: str,
    out: Path,
    benchmarks=tuple(BENCHES),
    tau2_base_url: str = "",
    tau2_model: str = "",
) -> list[tuple[str, list[str]]]:
    """One `pulse eval` per (benchmark, method). The τ² runs may use another served model
    (`tau2_model` at `tau2_base_url`, e.g. the 1.5B: the 0.5B fails as a τ² user simulator) for the
    task agent, the user simulator and mem0's memory-side calls alike."""

    def agent(url: str, mdl: str) -> list[str]:
        return [
            "agent=openai",
            f"agent.model='{mdl} ({LABEL})'",
            f"agent.base_url={url}",
            "agent.timeout_s=900",
            "agent.retries=1",
            "agent.max_tokens=200",
            "allow_failures=true",
            "progress=false",
        ]

    def llm(url: str, mdl: str) -> list[str]:
        return [
            "llm=openai",
            f"llm.model={mdl}",
            f"llm.base_url={url}",
            "llm.timeout_s=900",
            "llm.max_tokens=200",
        ]

    runs = []
    for bench in benchmarks:
        config, extra = BENCHES[bench]
        url, mdl = (
            (tau2_base_url or base_url, tau2_model or model) if config == "tau2_retail" else (base_url, model)
        )
        for m in METHODS:
            args = [
                f"benchmark={config}",
                f"method={m}",
                *agent(url, mdl),
                *(llm(url, mdl) if m == "mem0" else []),
            ]
            args += extra
            if config == "persona2web":
                args += ["agent.max_turns=4", "benchmark.task_ids=[" + ",".join(P2W_TASKS) + "]"]
            else:
                args += [
                    f"agent.max_turns={TAU2_TURNS}",
                    "benchmark.split=test",
                    "benchmark.task_ids=[" + ",".join(TAU2_TASKS) + "]",
                    f"benchmark.user.model={mdl}",
                    f"benchmark.user.base_url={url}",
                    "benchmark.user.timeout_s=900",
                    "benchmark.user.max_tokens=120",
                ]
            runs.append((f"{bench}/{m}", [*args, f"out_dir={out / 'runs' / bench / m}"]))
    return runs


def summarise(out: Path) -> list[dict]:
    rows = []
    walls = json.loads((out / "run_wall_s.json").read_text()) if (out / "run_wall_s.json").exists() else {}
    for bench in BENCHES:
        for m in METHODS:
            d = out / "runs" / bench / m
            if not (d / "episodes.jsonl").exists():
                continue
            eps = [json.loads(x) for x in (d / "episodes.jsonl").read_text().splitlines() if x.strip()]
            ok = [e for e in eps if e.get("status") == "ok"]
            comps: dict[str, list[float]] = {}
            for e in ok:
                for k, v in (e.get("components") or {}).items():
                    comps.setdefault(k, []).append(v)
            secs = [e.get("seconds", 0.0) for e in ok]
            rows.append(
                {
                    "benchmark": bench,
                    "method": m,
                    "label": LABEL,
                    "tasks": len(eps),
                    "failed": len(eps) - len(ok),
                    "score": round(sum(e.get("score", 0.0) for e in eps) / max(1, len(eps)), 3),
                    "components": {k: round(sum(v) / len(v), 3) for k, v in sorted(comps.items())},
                    "interventions": sum(e.get("interventions", 0) for e in ok),
                    "interventions_correct": sum(e.get("interventions_correct", 0) for e in ok),
                    "supplements": sum(e.get("supplements", 0) for e in ok),
                    "s_per_task_mean": round(sum(secs) / max(1, len(secs)), 1),
                    "s_per_task_max": round(max(secs or [0.0]), 1),
                    "run_wall_s": walls.get(f"{bench}/{m}"),
                    "agent_model": (eps[0].get("agent_model") if eps else ""),
                }
            )
    return rows


def write_table(out: Path, rows: list[dict], cmds: list[str]) -> None:
    lines = [
        f"# Real-model subset ({LABEL})",
        "",
        "| benchmark | model | method | tasks (failed) | score | components "
        "| interventions (correct) | supplements | s/task mean (max) | run wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        comps = ", ".join(f"{k} {v:.3f}" for k, v in row["components"].items())
        lines.append(
            f"| {row['benchmark']} | {(row['agent_model'] or '').split(' (')[0]} | {row['method']} | "
            f"{row['tasks']} ({row['failed']}) | "
            f"{row['score']:.3f} | {comps} | "
            f"{row['interventions']} ({row['interventions_correct']}) | {row['supplements']} | "
            f"{row['s_per_task_mean']} ({row['s_per_task_max']}) | {row['run_wall_s'] or '–'} |"
        )
    lines += ["", "Commands (each run also records its resolved config and manifest in its run dir):", ""]
    lines += [f"    {c}" for c in cmds]
    atomic_write_text(out / "rows.md", "\n".join(lines) + "\n")
    atomic_write_text(out / "rows.json", json.dumps(rows, indent=2) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base-url", default="http://127.0.0.1:8012/v1")
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--tau2-base-url", default="", help="endpoint of the τ² runs (default: --base-url)")
    ap.add_argument("--tau2-model", default="", help="model of the τ² runs (default: --model)")
    ap.add_argument("--out", default="results/real_model")
    ap.add_argument("--only", nargs="*", default=[], help="run names to run (e.g. persona2web/none)")
    ap.add_argument("--summarise-only", action="store_true")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = commands(a.base_url, a.model, out, tau2_base_url=a.tau2_base_url, tau2_model=a.tau2_model)
    printed = []
    for name, args in runs:
        cmd = [sys.executable, "-m", "pulse.cli", "eval", *args]
        printed.append("pulse eval " + " ".join(f'"{x}"' if " " in x or "[" in x else x for x in args))
        if a.summarise_only or (a.only and name not in a.only):
            continue
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {printed[-1]}", flush=True)
        t0 = time.time()
        rc = subprocess.call(cmd, env={**os.environ, "PULSE_TRACE": "1"})
        wall = round(time.time() - t0)
        print(f"[{time.strftime('%H:%M:%S')}] {name}: rc={rc} wall_s={wall}", flush=True)
        walls_path = out / "run_wall_s.json"
        walls = json.loads(walls_path.read_text()) if walls_path.exists() else {}
        walls[name] = wall
        atomic_write_text(walls_path, json.dumps(walls, indent=2, sort_keys=True) + "\n")
        write_table(out, summarise(out), printed)
    write_table(out, summarise(out), printed)
    print((out / "rows.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
