"""Table B3 (Persona2Web): Web EM and Pref R per ambiguity level and overall, one row per method.

Rendered by `pulse tables` (eval/tables.py calls `table_b3`) from the per-seed summaries of
persona2web runs: `components_by_category` (L1 / L2 / L3) and `components` (all 450 tasks),
mean ± stderr over seeds (cells and labels: eval/table_format.py). Rows from the scripted agent
say so: they are offline checks (oracle, request-only), not a task agent's result.
"""

from __future__ import annotations

from typing import Any

from eval.table_format import cell, methods_in, row_label, summaries_for

BENCH = "persona2web"
LEVELS = ("L1", "L2", "L3")


def table_b3(data) -> tuple[list[str], list[list[str]], str]:
    head = (
        ["Method"]
        + [f"Web EM {lv} (%)" for lv in (*LEVELS, "all")]
        + [f"Pref R {lv} (%)" for lv in (*LEVELS, "all")]
    )
    rows = []
    for m in methods_in(data, "table1"):
        by_agent: dict[str, list[dict[str, Any]]] = {}
        # one row per task agent: an oracle never shares a cell
        for s in summaries_for(data, "table1", m, BENCH):
            by_agent.setdefault(str(s.get("agent_model", "")), []).append(s)
        for agent, ss in sorted(by_agent.items()):
            label = (
                f"{m} [{agent}] [n={len(ss)}]"
                if agent.startswith("script:")
                else row_label(m, [ss]) + (f" [{agent}]" if agent else "")
            )
            row = [label]
            for comp in ("web_em", "pref_r"):
                row += [
                    cell(
                        [(s.get("components_by_category") or {}).get(lv, {}).get(comp) for s in ss], pct=True
                    )
                    for lv in LEVELS
                ]
                row.append(cell([(s.get("components") or {}).get(comp) for s in ss], pct=True))
            rows.append(row)
    caption = (
        "Table B3: Persona2Web (450 tasks). Web EM = the chosen site matches the level-3 site; Pref R = "
        "share of tasks whose every level-2 preference value is satisfied (normalised gold, "
        "eval/real/persona2web/gold.py). [script:...] rows are offline checks, not a task agent."
    )
    return head, rows, caption
