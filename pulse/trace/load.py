"""Eval run directories -> the trace page's data: runs, and per episode a timeline.

A run directory is what `pulse eval` writes (eval/harness.py): `episodes.jsonl` (required),
`manifest.json` and `summary.json` (read when present). A path that holds no `episodes.jsonl`
itself is searched below for run directories (e.g. `outputs/eval/pibench_sim` with one folder per
method). A missing or malformed file is a `TraceError` naming the file and line.

Per episode, the row's own fields (score, counters, failed checkpoints) are always shown; the
timeline needs the row's `trace` (recorded with `PULSE_TRACE=1`, see record.py). Each timeline
entry is one event the task agent showed the memory session, with, where there was one: the memory
agent's decision (trigger, action, evidence, whether the policy ran), the retrieval it made (every
returned item with its score and reason), the gate's answer and message, what was delivered, and
what the task agent did next (the next candidate call, and whether it took the evidence up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulse.core.errors import PulseUserError
from pulse.utils.json_input import read_json_file, read_jsonl_file

ROWS = "episodes.jsonl"
COUNTERS = (
    "interventions",
    "interventions_correct",
    "interventions_fixed",
    "interventions_misled",
    "supplements",
    "retrievals",
    "policy_calls",
    "parse_failures",
    "tool_errors",
    "abandoned_steps",
    "retrieve_tokens",
    "seconds",
)


class TraceError(PulseUserError, ValueError):
    """A run directory `pulse trace` cannot read (the message names the file and line)."""


def find_runs(paths: list[str]) -> list[Path]:
    runs: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise TraceError(f"{p}: no such directory")
        if (p / ROWS).is_file():
            found = [p]
        else:
            found = sorted(f.parent for f in p.rglob(ROWS))
            if not found:
                raise TraceError(
                    f"{p}: no {ROWS} here or below (not an eval run directory; `pulse eval` writes one)"
                )
        runs += [r for r in found if r not in runs]
    return runs


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = read_json_file(path, TraceError)
    if not isinstance(data, dict):
        raise TraceError(f"{path}: expected a JSON object")
    return data


def read_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for i, row in read_jsonl_file(path, TraceError, "run log"):
        if not isinstance(row, dict) or "task_id" not in row:
            raise TraceError(f"{path}: line {i}: an episode row needs a 'task_id'")
        rows.append(row)
    return rows


def load(paths: list[str], max_episodes: int = 0) -> dict[str, Any]:
    runs, episodes = [], []
    for i, run_dir in enumerate(find_runs(paths)):
        manifest, summary = _json(run_dir / "manifest.json"), _json(run_dir / "summary.json")
        rows = read_rows(run_dir / ROWS)
        first = rows[0] if rows else {}
        method = str(first.get("method") or manifest.get("method") or run_dir.name)
        bench = str(first.get("benchmark") or (manifest.get("suite") or {}).get("name") or "?")
        agent = manifest.get("agent") or {}
        runs.append(
            {
                "index": i,
                "dir": str(run_dir),
                "method": method,
                "benchmark": bench,
                "seed": first.get("seed", manifest.get("seed")),
                "episodes": len(rows),
                "score": summary.get("score"),
                "metric": summary.get("metric") or first.get("metric", ""),
                "agent": agent.get("name", first.get("agent", "")),
                "simulated": bool(agent.get("simulated")),
                "memory": manifest.get("memory", ""),
                "git": manifest.get("git_commit", ""),
                "traced": sum("trace" in r for r in rows),
            }
        )
        for r in rows[: max_episodes or None]:
            episodes.append(episode(r, i, method, bench))
    return {"runs": runs, "episodes": episodes}


def episode(row: dict[str, Any], run: int, method: str, bench: str) -> dict[str, Any]:
    tr = row.get("trace")
    failed = set(row.get("failed_checkpoints") or [])
    out: dict[str, Any] = {
        "key": f"{run}:{row['task_id']}",
        "run": run,
        "method": method,
        "benchmark": bench,
        "seed": row.get("seed"),
        "task_id": row["task_id"],
        "persona": row.get("user_id", ""),
        "category": row.get("category", ""),
        "level": row.get("level", ""),
        "status": row.get("status", ""),
        "score": row.get("score"),
        "error": row.get("error", ""),
        "counters": {k: row[k] for k in COUNTERS if k in row},
        "components": row.get("components") or {},
        "checkpoints_passed": row.get("checkpoints_passed"),
        "checkpoints_total": row.get("checkpoints_total"),
        "traced": tr is not None,
    }
    if tr is None:
        out["checkpoints"] = [{"id": c, "passed": False} for c in sorted(failed)]
        return out
    out["request"] = tr.get("request", "")
    out["checkpoints"] = [{**c, "passed": c["id"] not in failed} for c in tr.get("checkpoints", [])] or [
        {"id": c, "passed": False} for c in sorted(failed)
    ]
    out["timeline"] = timeline(tr)
    out["initial"] = next((d for d in tr.get("deliveries", []) if d["source"] == "initial"), None)
    return out


def timeline(tr: dict[str, Any]) -> list[dict[str, Any]]:
    events = tr.get("events", [])
    decisions = {d["step"]: d for d in tr.get("decisions", [])}
    gates = {g["step"]: g for g in tr.get("gates", [])}
    retrievals: dict[Any, dict[str, Any]] = {}
    for r in tr.get("retrievals", []):
        retrievals.setdefault(r["step"], r)
    delivered = {}
    for d in tr.get("deliveries", []):
        if d["source"] != "initial":
            delivered.setdefault(d["step"], d)
    items = {m["id"]: m for r in tr.get("retrievals", []) for m in r["items"]}
    items.update({m["id"]: m for d in tr.get("deliveries", []) for m in d["items"]})
    out = []
    for n, ev in enumerate(events):
        entry: dict[str, Any] = {**ev}
        d = decisions.get(ev["step"])
        if d is not None and (d["trigger"] or d["action"] != "silent"):
            entry["decision"] = d
        g = gates.get(ev["step"]) if ev["kind"] == "candidate_call" else None
        if g is not None:
            entry["gate"] = g
        r = retrievals.get(ev["step"])
        if r is not None:
            entry["retrieval"] = r
        if ev["step"] in delivered:
            entry["delivered"] = delivered[ev["step"]]
        action = (g or d or {}).get("action", "silent")
        evidence = [items[i] for i in (g or d or {}).get("evidence", []) if i in items]
        if action in ("supplement", "intervene"):
            entry["evidence_items"] = evidence
            entry["next"] = what_next(events, n, action, evidence)
        out.append(entry)
    return out


def what_next(events: list[dict[str, Any]], n: int, action: str, evidence: list[dict[str, Any]]) -> str:
    """What the task agent did after a supplement or an intervention at events[n]: its next call,
    and for each evidence slot the call sets, whether it took the memory's value up."""
    held = events[n] if action == "intervene" else None
    nxt = next((e for e in events[n + 1 :] if e["kind"] == "candidate_call"), None)
    if nxt is None:
        return "no further tool call in this episode" + (" (the held call was abandoned)" if held else "")
    args = nxt.get("args", {})
    head = (
        f"re-called {nxt['tool']} at step {nxt['step']}"
        if held and nxt["tool"] == held.get("tool")
        else f"next call: {nxt['tool']} at step {nxt['step']}"
    )
    notes = []
    for m in evidence:
        slot = m.get("slot")
        if slot and slot in args:
            before = (held or {}).get("args", {}).get(slot)
            change = (
                f"{before} -> {args[slot]}"
                if held and before is not None and before != args[slot]
                else args[slot]
            )
            notes.append(
                f"{slot}={change} ({'follows' if args[slot] == m.get('value') else 'ignores'} "
                f"memory {m.get('value')})"
            )
    return head + (": " + "; ".join(notes) if notes else "")
