"""Render paper-style tables (Markdown + LaTeX) and the stage-accuracy plot from run directories.

Only the per-episode JSONL rows are read; per-seed metrics are computed from them (eval/metrics.py)
and reported as mean ± stderr over seeds (n = number of seeds shown; an undefined per-seed value,
e.g. interruption success with no interventions, is skipped; "–" when none is defined). Rows from
the simulated task agent are marked "(sim)" and every table caption says so. A row that includes
failed episodes (scored 0) is marked † and the footnote names them. Layout (in the spirit of the paper):
  Table 1  main results: COMP on pibench_sim (pi-Bench's aggregation), Acc on mcp_persona_sim, and the
           price of each score per benchmark: holds (interventions) per task, interruption success,
           seconds per task, Store / Retrieve tokens.
  Table 2  ablations, one row per method and benchmark: score, seconds per task, interventions,
           correct, fixed, misled, interruption success (= correct / interventions), failed
           episodes, tool errors, abandoned steps (counts are totals per seed).
Reference rows (the gold rule over Pulse's memory, the situation-blind policies, the upper bound
`gold_facts`) appear wherever their runs exist and are never ranked (`table_format.is_reference`).
  Table 3  accuracy by execution stage (early / middle / late) and per-category MCP accuracy.
Runs whose `experiment` is "tableK/..." go to table K; other runs go to every table; tables 2 and 3
fall back to a method's runs from any table. Rows produced by different policy checkpoints (content
hash, eval/provenance.py) are never merged into one cell: that is an error. The one exception is
asked for explicitly (`per_seed_checkpoints=True`, `pulse tables --per-seed-checkpoints`): each seed
of a cell may come from its own checkpoint (training seed s evaluated at seed s, so the spread
includes training variance), but still never two checkpoints for one seed.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.benchmark import TEMPLATE_BENCHMARKS
from eval.metrics import STAGES, dumps_strict, mean_stderr, read_rows, summarize
from eval.table_format import (
    FAILED_MARK,
    cell,
    is_reference,
    methods_in,
    row_label,
    summaries_for,
)
from pulse.core.errors import PulseUserError

BENCH_ORDER = ("pibench_sim", "mcp_persona_sim", "independent_sim")
BENCH_METRIC = {
    "pibench_sim": "COMP",
    "mcp_persona_sim": "Acc",
    "independent_sim": "COMP",
}
NOT_RECORDED = "<not recorded>"


class TableError(PulseUserError, ValueError):
    """Run directories that cannot be tabulated honestly (e.g. mixed checkpoints in one cell)."""


def find_runs(paths: Sequence[str | Path]) -> list[Path]:
    runs = []
    for p in map(Path, paths):
        if not p.exists():
            raise FileNotFoundError(f"run dir {p} does not exist")
        if (p / "episodes.jsonl").exists():
            runs.append(p)
        else:
            runs.extend(sorted(q.parent for q in p.rglob("episodes.jsonl")))
    if not runs:
        raise FileNotFoundError(
            f"no run directories (with episodes.jsonl) under {', '.join(map(str, paths))}"
        )
    return runs


def _hash_of(row: dict[str, Any]) -> str:
    h = row.get("checkpoint_hash", NOT_RECORDED)
    return NOT_RECORDED if h is None else str(h)


def collect(
    runs: Sequence[Path], per_seed_checkpoints: bool = False
) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """(table, method, benchmark) -> per-seed summaries. Raises TableError when one such cell would
    hold rows from different policy checkpoints (content hashes) -- with `per_seed_checkpoints`,
    when one *seed* of a cell would."""
    out: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    idents: dict[tuple[str, int], dict[str, str]] = {}  # (run, seed) -> its suite's identity
    for run in runs:
        rows = read_rows(run / "episodes.jsonl")
        if not rows or rows[0].get("benchmark") in TEMPLATE_BENCHMARKS:  # a template is never a result
            continue
        by_seed: dict[int, list[dict]] = defaultdict(list)
        for r in rows:
            by_seed[int(r.get("seed", 0))].append(r)
        for seed, rs in by_seed.items():
            hashes = sorted({_hash_of(r) for r in rs})
            if len(hashes) > 1:
                raise TableError(
                    f"{run}: seed {seed} rows come from different policy checkpoints "
                    f"{', '.join(map(repr, hashes))}; rerun with a fresh out_dir"
                )
            s = summarize(rs)
            s.update(
                seed=seed,
                simulated=bool(rs[0].get("simulated")),
                run=str(run),
                agent_model=rs[0].get("agent_model", ""),
                checkpoint_hash=hashes[0],
                memory_llm=rs[0].get("memory_llm", ""),
                policy_checkpoints=list(rs[0].get("policy_checkpoints") or []),
            )
            idents[str(run), seed] = _suite_identity(run, rs)
            exp = rs[0].get("experiment", "") or ""
            table = exp.split("/")[0] if exp.startswith("table") else "*"
            out[(table, rs[0]["method"], rs[0]["benchmark"])].append(s)
    for (table, method, bench), ss in out.items():
        groups = (
            [[s for s in ss if s["seed"] == seed] for seed in sorted({s["seed"] for s in ss})]
            if per_seed_checkpoints
            else [ss]
        )
        for group in groups:
            _one_checkpoint(group, table, method, bench)
        _one_suite(ss, idents, table, method, bench)
    return out


# what makes two runs of one benchmark name the same suite: the rows' suite fields and the manifest's
# suite record (a field a run does not record is not compared)
SUITE_ROW_FIELDS = ("suite_version", "suite_seed", "suite_fingerprint", "metric")
SUITE_MANIFEST_FIELDS = ("version", "seed", "tasks", "metric", "fingerprint")


def _suite_identity(run: Path, rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    ident = {k: str(rows[0][k]) for k in SUITE_ROW_FIELDS if rows[0].get(k) is not None}
    try:
        suite = json.loads((run / "manifest.json").read_text()).get("suite") or {}
    except (OSError, ValueError, AttributeError):
        suite = {}
    if isinstance(suite, dict):
        ident.update({f"manifest suite.{k}": str(suite[k]) for k in SUITE_MANIFEST_FIELDS if k in suite})
    return ident


def _one_suite(
    ss: Sequence[dict[str, Any]],
    idents: dict[tuple[str, int], dict[str, str]],
    table: str,
    method: str,
    bench: str,
) -> None:
    """One cell is one suite: runs of one benchmark name with a different suite version, seed,
    fingerprint or task count are two suites, never two seeds of one."""
    first = ss[0]
    for s in ss[1:]:
        a, b = idents[first["run"], first["seed"]], idents[s["run"], s["seed"]]
        for k in [k for k in a if k in b]:  # the rows' fields first, then the manifest's
            if a[k] != b[k]:
                raise TableError(
                    f"method {method!r} on {bench} ({'every table' if table == '*' else table}): runs "
                    f"{first['run']} and {s['run']} differ in {k} ({a[k]!r} vs {b[k]!r}): different "
                    f"suites, not seeds of one; tabulate them separately"
                )


def _one_checkpoint(ss: Sequence[dict[str, Any]], table: str, method: str, bench: str) -> None:
    hashes = sorted({s["checkpoint_hash"] for s in ss})
    if len(hashes) > 1:
        where = "; ".join(
            f"{s['run']} (seed {s['seed']}): {s['checkpoint_hash']!r} "
            f"[{'/'.join(s['policy_checkpoints']) or '-'}]"
            for s in ss
        )
        raise TableError(
            f"method {method!r} on {bench} ({'every table' if table == '*' else table}): runs "
            f"come from different policy checkpoints {', '.join(map(repr, hashes))}: {where}. "
            f"Give them different experiment labels or method names, tabulate them separately, "
            f"or, for one checkpoint per training seed, pass --per-seed-checkpoints."
        )


class _Failures:
    """Collects the failed episodes behind the rows of one table, for the † footnote."""

    def __init__(self):
        self.lines: list[str] = []

    def mark(self, method: str, bench: str, ss: Sequence[dict]) -> bool:
        bad = [s for s in ss if s.get("failed")]
        if not bad:
            return False
        n = sum(s["failed"] for s in bad)
        total = sum(s.get("episodes", 0) for s in ss)
        first = next((f for s in bad for f in s.get("failures", [])), {})
        seeds = ", ".join(
            f"seed {s['seed']}: {', '.join(s.get('failed_task_ids', [])[:3])}"
            f"{' …' if len(s.get('failed_task_ids', [])) > 3 else ''}"
            for s in bad
        )
        line = (
            f"{FAILED_MARK} {method} on {bench}: {n} of {total} episodes failed (scored 0) [{seeds}]; "
            f"first error: {first.get('error', '?')[:160]}"
        )
        if line not in self.lines:
            self.lines.append(line)
        return True

    def footnote(self) -> str:
        return "".join("\n" + line for line in self.lines)


def _backing(summaries_by_bench: list[list[dict]]) -> str:
    """What backed the row's memory-side calls: the LLM or stand-in label its rows carry."""
    labels = sorted({s.get("memory_llm") or "" for ss in summaries_by_bench for s in ss} - {""})
    if not labels:
        return "–"  # no memory-side LLM (none, Pulse: its policy is the row's checkpoint)
    return "; ".join("stand-in (rules)" if lab.startswith("stand-in") else lab for lab in labels)


def _mean(text: str) -> float | None:
    try:
        return float(text.replace("**", "").replace("_", "").split(" ")[0])
    except ValueError:
        return None


def _per_task(summary: dict[str, Any], key: str) -> float | None:
    """A run total per completed episode."""
    n = summary.get("ok") or summary.get("episodes")
    return summary.get(key, 0) / n if n else None


def mark_best(rows: list[list[str]], cols: dict[int, bool]) -> None:
    """Best mean per column in bold, second best underlined (`_x_`); cols: index -> higher is better.
    Reference rows (`table_format.is_reference`) are never marked and never compete."""
    ranked = [r for r in rows if not is_reference(r[0])]
    for c, higher in cols.items():
        vals = sorted({v for r in ranked if (v := _mean(r[c])) is not None}, reverse=higher)
        for r in ranked:
            v = _mean(r[c])
            if v is not None and vals and v == vals[0]:
                r[c] = f"**{r[c]}**"
            elif v is not None and len(vals) > 1 and v == vals[1]:
                r[c] = f"_{r[c]}_"


def build_tables(data) -> dict[str, tuple[list[str], list[list[str]], str]]:
    """table name -> (header, rows, caption); the caption's lines after the first are footnotes."""
    tables: dict[str, tuple[list[str], list[list[str]], str]] = {}
    benches = [b for b in BENCH_ORDER if any(k[2] == b for k in data)] + sorted(
        {k[2] for k in data} - set(BENCH_ORDER)
    )
    sim_any = any(s["simulated"] for ss in data.values() for s in ss)
    note = (
        " Simulated task agent (eval/agents/simulated.py); mean ± stderr over seeds."
        if sim_any
        else " Mean ± stderr over seeds."
    )
    comp_note = (
        " COMP as pi-Bench aggregates it: per task sum(w·passed)/sum(w), per persona weighted by "
        "dependency-group size, then the mean over personas."
        if "pibench_sim" in benches
        else ""
    )
    # Table 1, and Table B4 (the same columns for the shared-backend rows) when its runs exist
    for table in ("table1", "tableB4"):
        if table == "table1" or any(k[0] == "tableB4" for k in data):
            tables[table] = _main_table(data, table, benches, comp_note + note)
    tables["table2"] = _ablation_table(data, benches, note)
    tables["table3"] = _stage_table(data, benches, note)
    # Persona2Web's Table B3 lives with its benchmark
    from eval.real.persona2web.table import table_b3

    tables["tableB3"] = table_b3(data)
    return tables


def _main_table(data, table: str, benches: list[str], notes: str) -> tuple[list[str], list[list[str]], str]:
    """Table 1 (or Table B4, its columns for the shared-backend rows): per benchmark the score, and
    its price: holds per task, interruption success, time per task, tokens."""
    fails = _Failures()
    head = ["Method", "memory LLM"] + [f"{b} {BENCH_METRIC.get(b, 'score')} (%)" for b in benches]
    # the price of each row's score, per benchmark: holds per task, how many of them were right,
    # time per task, tokens
    for b in benches:
        head += [
            f"{b} holds/task",
            f"{b} IS (%)",
            f"{b} s/task",
            f"{b} Store tok",
            f"{b} Retrieve tok",
        ]
    rows = []
    for m in methods_in(data, table):
        per = [summaries_for(data, table, m, b) for b in benches]
        failed = any([fails.mark(m, b, ss) for b, ss in zip(benches, per)])
        row = [row_label(m, per, failed), _backing(per)] + [
            cell([s["score"] for s in ss], pct=True) for ss in per
        ]
        for ss in per:
            row += [
                cell([_per_task(s, "interventions") for s in ss], digits=2),
                cell([s.get("interruption_success") for s in ss], pct=True),
                cell([s["seconds_per_task"] for s in ss], digits=2),
                cell([s["store_tokens"] for s in ss]),
                cell([s["retrieve_tokens"] for s in ss]),
            ]
        rows.append(row)
    nb = len(benches)
    cols = {2 + i: True for i in range(nb)}
    for i in range(nb):  # IS higher is better; time and tokens lower; holds/task is not ranked
        base = 2 + nb + 5 * i
        cols.update({base + 1: True, base + 2: False, base + 3: False, base + 4: False})
    mark_best(rows, cols)
    title = (
        "Table 1: main results."
        if table == "table1"
        else "Table B4: Pulse, Mem0 and dsh on one backend (the same embedder and memory-side LLM)."
    )
    return (
        head,
        rows,
        title + " Best per column in bold, second best underlined, among methods: "
        "the reference rows (the gold rule over Pulse's memory, the situation-blind policies, the "
        "upper bound) are not ranked (scores and IS: higher; tokens and s/task: lower). holds/task: "
        "interventions per task; IS: interruption success (correct holds / holds). memory LLM: "
        "what backed the memory-side calls "
        "(stand-in (rules): eval/methods/standins.py, latency modelled)." + notes + fails.footnote(),
    )


def _ablation_table(data, benches: list[str], note: str) -> tuple[list[str], list[list[str]], str]:
    """Table 2: one row per method and benchmark, with the intervention counts and their outcomes."""
    fails = _Failures()
    head = [
        "Method",
        "memory LLM",
        "Benchmark",
        "score (%)",
        "s/task",
        "interventions",
        "correct",
        "fixed",
        "misled",
        "interruption success (%)",
        "failed episodes",
        "tool errors",
        "abandoned steps",
        "policy calls / task",
        "reader recall (%)",
    ]
    rows = []
    for m in methods_in(data, "table2"):
        for b in benches:
            ss = summaries_for(data, "table2", m, b)
            if not ss:
                continue
            failed = fails.mark(m, b, ss)
            rows.append(
                [
                    row_label(m, [ss], failed),
                    _backing([ss]),
                    f"{b} ({BENCH_METRIC.get(b, 'score')})",
                    cell([s["score"] for s in ss], pct=True),
                    cell([s["seconds_per_task"] for s in ss], digits=2),
                ]
                + [
                    cell([s.get(k, 0) for s in ss])
                    for k in (
                        "interventions",
                        "interventions_correct",
                        "interventions_fixed",
                        "interventions_misled",
                    )
                ]
                + [cell([s.get("interruption_success") for s in ss], pct=True)]
                + [cell([s.get(k, 0) for s in ss]) for k in ("failed", "tool_errors", "abandoned_steps")]
                + [
                    cell([s.get("policy_calls_per_task") for s in ss]),
                    cell([s.get("reader_recall") for s in ss], pct=True),
                ]
            )
    for b in benches:  # best / second best per benchmark (score, interruption success)
        sub = [r for r in rows if r[2].startswith(f"{b} (")]
        mark_best(sub, {3: True, 4: False, 9: True})
    return (
        head,
        rows,
        "Table 2: ablations. Best per benchmark in bold, second best underlined "
        "(reference rows not ranked). "
        "Counts are totals per seed; s/task: time per task; interruption success = "
        "correct interventions / interventions (– when there were none); reader recall = value "
        "mentions in the method's delivered text that the suite's reader attributed to one slot "
        "(eval/suites/reader.py)." + note + fails.footnote(),
    )


def _stage_table(data, benches: list[str], note: str) -> tuple[list[str], list[list[str]], str]:
    """Table 3: accuracy per execution stage of each benchmark, and per MCP category."""
    fails = _Failures()
    cats = sorted(
        {c for ss in data.values() for s in ss for c in s.get("per_category", {})} - {"professional"}
    )
    head = (
        ["Method", "memory LLM"]
        + [f"{b} {st} (%)" for b in benches for st in STAGES]
        + [f"MCP {c} (%)" for c in cats]
    )
    rows = []
    for m in methods_in(data, "table3"):
        per = {b: summaries_for(data, "table3", m, b) for b in benches}
        failed = any([fails.mark(m, b, ss) for b, ss in per.items()])
        row = [row_label(m, list(per.values()), failed), _backing(list(per.values()))]
        for b in benches:
            row += [cell([s["stage_accuracy"].get(st) for s in per[b]], pct=True) for st in STAGES]
        mcp = per.get("mcp_persona_sim", [])
        row += [cell([s["per_category"].get(c) for s in mcp], pct=True) for c in cats]
        rows.append(row)
    return (
        head,
        rows,
        "Table 3: accuracy by execution stage and MCP category." + note + fails.footnote(),
    )


def to_markdown(head, rows, caption) -> str:
    title, *notes = caption.split("\n")
    lines = [
        f"**{title}**",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if notes:
        lines += [""] + [f"{n}  " for n in notes]
    return "\n".join(lines) + "\n"


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
    FAILED_MARK: r"$^\dagger$",
}


def to_latex(head, rows, caption) -> str:
    esc = lambda s: "".join(_LATEX.get(ch, ch) for ch in s)  # noqa: E731
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{l" + "c" * (len(head) - 1) + "}",
        r"\toprule",
        " & ".join(esc(h) for h in head) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(esc(c) for c in r) + r" \\" for r in rows]
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{esc(' '.join(caption.split(chr(10))))}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def plot_stage_accuracy(data, out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for b in sorted({k[2] for k in data}):
        methods = [m for m in methods_in(data, "table3") if summaries_for(data, "table3", m, b)]
        if not methods:
            continue
        fig, ax = plt.subplots(figsize=(6, 3.2))
        width = 0.8 / len(methods)
        for i, m in enumerate(methods):
            ss = summaries_for(data, "table3", m, b)
            ms = [mean_stderr([s["stage_accuracy"].get(st) for s in ss]) for st in STAGES]
            ax.bar(
                [x + i * width for x in range(3)],
                [math.nan if v[0] is None else 100 * v[0] for v in ms],
                width,
                yerr=[0 if v[1] is None else 100 * v[1] for v in ms],
                label=m,
            )
        ax.set_xticks([x + 0.4 - width / 2 for x in range(3)], STAGES)
        ax.set_ylabel("checkpoint accuracy (%)")
        sim = any(s["simulated"] for k, ss in data.items() if k[2] == b for s in ss)
        ax.set_title(f"{b}: accuracy by stage{' (simulated agent)' if sim else ''}", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        p = out_dir / f"stage_accuracy_{b}.png"
        fig.savefig(p, dpi=120)
        plt.close(fig)
        paths.append(p)
    return paths


def render(
    run_dirs: Sequence[str | Path],
    out_dir: str | Path | None = None,
    plots: bool = True,
    per_seed_checkpoints: bool = False,
) -> str:
    """Render all tables; write tables.md / tables.tex (+ PNGs) to out_dir when given; return Markdown."""
    from pulse.utils.atomic import atomic_write_text

    data = collect(find_runs(run_dirs), per_seed_checkpoints)
    tables = build_tables(data)
    md = "\n".join(to_markdown(*t) for t in tables.values() if t[1])
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out / "tables.md", md)
        atomic_write_text(out / "tables.tex", "\n".join(to_latex(*t) for t in tables.values() if t[1]))
        atomic_write_text(
            out / "table_data.json",
            dumps_strict({"|".join(k): v for k, v in data.items()}, indent=1),
        )
        if plots:
            plot_stage_accuracy(data, out)
    return md
