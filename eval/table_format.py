"""What every results table shares: cells (mean ± stderr over seeds), row labels (simulated, proxy
judge, failed episodes, reference rows), the order of method rows and the lookup of a cell's per-seed
summaries. Used by the paper tables (eval/tables.py) and every per-benchmark table
(eval/real/persona2web/table.py, report.py); it imports none of them.

`data` is what `eval.tables.collect` returns: (table, method, benchmark) -> per-seed summaries, where
table "*" holds the runs that belong to no paper table (they go to every table).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pulse.utils.stats import mean_stderr

FAILED_MARK = "†"

# Reference rows: never a method, never marked best / second best. The gold rule (the labeller
# itself) over Pulse's own memory and retrieval is not an upper bound: what that memory misses it
# misses too; the upper bound is `gold_facts` (the suite's gold values delivered perfectly, wrong
# calls held). "-rule" rows ran the gold rule where a trained checkpoint was missing.
REFERENCE_ROWS = {
    "pulse_rule": "gold rule over Pulse's memory",
    "pulse_supplement_only-oracle": "gold rule over Pulse's memory, supplements only",
    "pulse_supplement_all": "blind: supplement every line",
    "pulse_intervene_all": "blind: intervene on every call",
    "gold_facts": "upper bound: the suite's gold facts, delivered perfectly",
}
RULE_IN_PLACE = "(gold rule in place of the checkpoint)"


def is_reference(label: str) -> bool:
    """A row label (`row_label`) of a reference row: never ranked."""
    return label.startswith(tuple(REFERENCE_ROWS.values())) or RULE_IN_PLACE in label


# the order of method rows in every table (a method not listed comes after, by name)
METHOD_ORDER = (
    "none",
    "mem0",
    "lightmem",
    "a_mem",
    "openclaw",
    "dsh",
    "zcode",
    "pma_injection_only",
    "pma_mem0_top10",
    "pma_always_inject",
    "pma_full_bank",
    "pma",
    "pulse_start_only",
    "pulse_supplement_only",
    "pulse_flat",
    "pulse_flat_user",
    "pulse_flat_project",
    "pulse_flat_no_rl",
    "pulse_no_rl",
    "pulse_penalty0",
    "pulse",
    "pulse_supplement_all",
    "pulse_intervene_all",
    "pulse_supplement_only-oracle",
    "pulse_rule",
    "gold_facts",
)

Data = Mapping[tuple[str, str, str], Sequence[dict[str, Any]]]


def cell(vals: Sequence[float | None], pct: bool = False, digits: int = 1) -> str:
    """mean ± stderr of the defined values ("–" when none is), in percent with `pct`."""
    m, se = mean_stderr(vals)
    if m is None:
        return "–"
    k = 100 if pct else 1
    return f"{m * k:.{digits}f} ± {se * k:.{digits}f}" if se is not None else f"{m * k:.{digits}f}"


def percent(x: float | None) -> str:
    """One value in percent, one decimal ("–" when undefined)."""
    return "–" if x is None else f"{100 * x:.1f}"


def methods_in(data: Data, table: str) -> list[str]:
    """The methods with a row in `table`, in `METHOD_ORDER`."""
    seen = []
    for t, m, _b in data:
        # tables 2 and 3 are computed from whichever runs exist, so their rows need no separate runs
        if (t == table or t == "*" or table in ("table2", "table3")) and m not in seen:
            seen.append(m)

    def base(m: str) -> str:  # "pulse_flat-rule" sorts with pulse_flat
        return m.removesuffix("-rule")

    return sorted(
        seen, key=lambda m: (METHOD_ORDER.index(base(m)) if base(m) in METHOD_ORDER else len(METHOD_ORDER), m)
    )


def summaries_for(data: Data, table: str, method: str, bench: str) -> Sequence[dict[str, Any]]:
    """The per-seed summaries of one cell: the table's own runs, else the runs of no table; tables 2
    and 3 also take the method's runs on that benchmark from any table."""
    hit = data.get((table, method, bench)) or data.get(("*", method, bench))
    if hit:
        return hit
    if table in ("table2", "table3"):  # same method and benchmark from any table's runs
        return next((v for (t, m, b), v in sorted(data.items()) if m == method and b == bench), [])
    return []


def row_label(method: str, summaries_by_bench: Sequence[Sequence[dict]], failed: bool = False) -> str:
    """A row's first cell: the method (reference rows named as such), "(sim)" for a simulated task
    agent, the proxy-judge note, the failed-episodes mark and the number of seeds per benchmark."""
    flat = [s for ss in summaries_by_bench for s in ss]
    if method in REFERENCE_ROWS:
        method = f"{REFERENCE_ROWS[method]} [{method}]"
    elif method.endswith("-rule"):
        method = f"{method} {RULE_IN_PLACE}"
    sim = any(s["simulated"] for s in flat)
    n = sorted({len(ss) for ss in summaries_by_bench if ss})
    proxy = " (proxy judge, not comparable to π-Bench)" if any(s.get("proxy_judge") for s in flat) else ""
    seeds = "/".join(map(str, n)) or 0
    return f"{method}{' (sim)' if sim else ''}{proxy}{FAILED_MARK if failed else ''} [n={seeds}]"
