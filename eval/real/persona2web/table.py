"""Table B3 (Persona2Web): Web EM and Pref R per ambiguity level and overall, one row per method.

Rendered by `pulse tables` (eval/tables.py calls `table_b3`) from the per-seed summaries of
persona2web runs: `components_by_category` (L1 / L2 / L3) and `components` (all 450 tasks),
mean ± stderr over seeds. Rows from the scripted agent say so: they are offline checks (oracle,
request-only), not a task agent's result.
"""

from __future__ import annotations

from typing import Any

BENCH = "persona2web"
LEVELS = ("L1", "L2", "L3")


def table_b3(data) -> tuple[list[str], list[list[str]], str]:
    from eval.tables import _cell, _get, _label, _methods

    head = (
        ["Method"]
        + [f"Web EM {lv} (%)" for lv in (*LEVELS, "all")]
        + [f"Pref R {lv} (%)" for lv in (*LEVELS, "all")]
    )
    rows = []
    for m in _methods(data, "table1"):
        by_agent: dict[str, list[dict[str, Any]]] = {}
        for s in _get(data, "table1", m, BENCH):  # one row per task agent: an oracle never shares a cell
            by_agent.setdefault(str(s.get("agent_model", "")), []).append(s)
        for agent, ss in sorted(by_agent.items()):
            label = (
                f"{m} [{agent}] [n={len(ss)}]"
                if agent.startswith("script:")
                else _label(m, [ss]) + (f" [{agent}]" if agent else "")
            )
            row = [label]
            for comp in ("web_em", "pref_r"):
                row += [
                    _cell(
                        [(s.get("components_by_category") or {}).get(lv, {}).get(comp) for s in ss], pct=True
                    )
                    for lv in LEVELS
                ]
                row.append(_cell([(s.get("components") or {}).get(comp) for s in ss], pct=True))
            rows.append(row)
    caption = (
        "Table B3: Persona2Web (450 tasks). Web EM = the chosen site matches the level-3 site; Pref R = "
        "share of tasks whose every level-2 preference value is satisfied (normalised gold, "
        "eval/real/persona2web/gold.py). [script:...] rows are offline checks, not a task agent."
    )
    return head, rows, caption
