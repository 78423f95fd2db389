"""Table B3 from run directories (any Persona2Web variant, e.g. the synthetic-history runs that `pulse
tables` does not group under `persona2web`): Web EM and Pref R per level and overall, interventions
and interruption success, one row per run directory, read from its `summary.json`.

    python -m eval.real.persona2web.report results/real_tools/runs/b3_memory_following/* \
        --out results/real_tools/table_b3.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.table_format import percent

LEVELS = ("L1", "L2", "L3")


def rows(run_dirs) -> list[list[str]]:
    out = []
    for d in map(Path, run_dirs):
        f = d / "summary.json"
        if not f.exists():
            continue
        s = json.loads(f.read_text())
        by = s.get("components_by_category") or {}
        comps = s.get("components") or {}
        n_int, n_ok = s.get("interventions") or 0, s.get("interventions_correct") or 0
        row = [s.get("method", d.name), str(s.get("agent", ""))]
        for c in ("web_em", "pref_r"):
            row += [percent((by.get(lv) or {}).get(c)) for lv in LEVELS] + [percent(comps.get(c))]
        row += [f"{n_ok}/{n_int}", percent(n_ok / n_int) if n_int else "–", str(s.get("benchmark", ""))]
        out.append(row)
    return out


HEAD = (
    ["method", "agent"]
    + [f"Web EM {lv}" for lv in (*LEVELS, "all")]
    + [f"Pref R {lv}" for lv in (*LEVELS, "all")]
    + ["interventions correct/all", "interruption success %", "benchmark"]
)


def markdown(run_dirs) -> str:
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows(run_dirs)]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    text = markdown(a.runs)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
