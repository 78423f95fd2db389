"""Compare the offline tables under two agent behaviours: which rankings move, and whether blind
holding and blind supplementing pay.

    python scripts/compare_behaviours.py results/tables results/tables_calibrated \
        --names default calibrated_qwen_coder_1_5b --out results/tables_calibrated/compare.md

Reads each directory's `table_data.json` (written by `pulse tables` / scripts/reproduce_tables.py:
"table|row|suite" -> one summary per seed) and writes a Markdown report: per suite, the methods'
mean scores under each behaviour with their rank (reference rows shown, never ranked), the
Spearman correlation of the two rankings and the pairs that swap; then, per behaviour and suite,
the blind rows against the gold rule over Pulse's memory and against the best method, with the
gold rule's interruption success (the sanity check of issue 30: where that success is >= 90 %, the
gold rule should score at least the blind intervene-every-call policy).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval.table_format import REFERENCE_ROWS  # noqa: E402

TABLE = "table1"
SUITES = ("pibench_sim", "mcp_persona_sim", "independent_sim")
BLIND = ("pulse_intervene_all", "pulse_supplement_all")


def load(path: Path) -> dict[str, dict[str, list[dict]]]:
    """suite -> row method -> per-seed summaries of Table 1 (the method is the row's `method`)."""
    f = path / "table_data.json"
    if not f.is_file():
        raise SystemExit(f"compare_behaviours: {f} does not exist (run scripts/reproduce_tables.py first)")
    data = json.loads(f.read_text())
    out: dict[str, dict[str, list[dict]]] = {}
    for key, per_seed in data.items():
        table, row, suite = key.split("|")
        if table != TABLE or not per_seed:
            continue
        method = row  # table1 rows are named by their method config
        out.setdefault(suite, {})[method] = per_seed
    return out


def mean(vals: list[float | None]) -> float | None:
    vs = [v for v in vals if v is not None]
    return sum(vs) / len(vs) if vs else None


def score(ss: list[dict]) -> float | None:
    m = mean([s.get("score") for s in ss])
    return None if m is None else 100 * m


def success(ss: list[dict]) -> float | None:
    right = sum(s.get("interventions_correct", 0) for s in ss)
    held = sum(s.get("interventions", 0) for s in ss)
    return 100 * right / held if held else None


def ranks(scores: dict[str, float]) -> dict[str, int]:
    order = sorted(scores, key=lambda m: -scores[m])
    return {m: order.index(m) + 1 for m in order}


def spearman(a: dict[str, int], b: dict[str, int]) -> float | None:
    common = sorted(set(a) & set(b))
    n = len(common)
    if n < 3:
        return None
    d2 = sum((a[m] - b[m]) ** 2 for m in common)
    return 1 - 6 * d2 / (n * (n * n - 1))


def fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def report(tabs: list[dict], names: list[str]) -> str:
    lines = [
        f"# Table 1 under two agent behaviours: {names[0]} vs {names[1]}",
        "",
        "Mean score over seeds (%), rank among methods (reference rows are not ranked). Written by "
        "`scripts/compare_behaviours.py`.",
        "",
    ]
    for suite in SUITES:
        rows = [t.get(suite, {}) for t in tabs]
        methods = sorted(set(rows[0]) | set(rows[1]))
        if not methods:
            continue
        sc = [{m: score(r[m]) for m in methods if m in r and score(r[m]) is not None} for r in rows]
        rk = [ranks({m: v for m, v in s.items() if m not in REFERENCE_ROWS}) for s in sc]
        lines += [
            f"## {suite}",
            "",
            f"| row | {names[0]} | rank | {names[1]} | rank |",
            "|---|---|---|---|---|",
        ]
        for m in sorted(methods, key=lambda m: -(sc[0].get(m) or 0)):
            label = REFERENCE_ROWS.get(m, m)
            lines.append(
                f"| {label} | {fmt(sc[0].get(m))} | {rk[0].get(m, '–')} | {fmt(sc[1].get(m))} | "
                f"{rk[1].get(m, '–')} |"
            )
        rho = spearman(rk[0], rk[1])
        swaps = [
            f"{a} / {b}"
            for a in rk[0]
            for b in rk[0]
            if a < b and b in rk[1] and a in rk[1] and (rk[0][a] - rk[0][b]) * (rk[1][a] - rk[1][b]) < 0
        ]
        lines += [
            "",
            f"Spearman of the two method rankings: {fmt(rho) if rho is None else f'{rho:.2f}'}; "
            f"pairs that swap: {', '.join(swaps) or 'none'}.",
            "",
        ]
    lines += ["## Do blind holding and blind supplementing pay?", ""]
    lines += [
        "| behaviour | suite | gold rule (IS %) | blind: intervene on every call (IS %) | "
        "blind: supplement every line | best method | no memory | sanity: gold rule >= blind "
        "intervene-all where its IS >= 90 % |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, t in zip(names, tabs):
        for suite in SUITES:
            r = t.get(suite, {})
            if not r:
                continue
            gold = r.get("pulse_rule", [])
            ia, sa = r.get("pulse_intervene_all", []), r.get("pulse_supplement_all", [])
            methods = {m: score(ss) for m, ss in r.items() if m not in REFERENCE_ROWS}
            best = max(methods, key=lambda m: methods[m] or -1) if methods else ""
            g_is = success(gold)
            check = "–"
            if g_is is not None and g_is >= 90 and score(gold) is not None and score(ia) is not None:
                check = "holds" if score(gold) >= score(ia) else "FAILS"
            lines.append(
                f"| {name} | {suite} | {fmt(score(gold))} ({fmt(g_is)}) | {fmt(score(ia))} "
                f"({fmt(success(ia))}) | {fmt(score(sa))} | {best} {fmt(methods.get(best))} | "
                f"{fmt(score(r.get('none', [])))} | {check} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--names", nargs=2, default=["a", "b"])
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    text = report([load(a.a), load(a.b)], a.names)
    if a.out:
        from pulse.utils.atomic import atomic_write_text

        atomic_write_text(a.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
