"""Eval run directories -> the trace page's data: runs, and per episode a summary and a timeline.

A run directory is what `pulse eval` writes (eval/harness.py): `episodes.jsonl` (required),
`manifest.json` and `summary.json` (read when present). A path that holds no `episodes.jsonl`
itself is searched below for run directories (e.g. `outputs/eval/pibench_sim` with one folder per
method). A missing or malformed file is a `TraceError` naming the file and line. Run directories are
named relative to the page's folder (`base`): no absolute path reaches the page.

Per episode, the row's own fields (score, counters, failed checkpoints, the counts of wrong and
misled interventions) are always shown; the timeline needs the row's `trace` (recorded with
`PULSE_TRACE=1`, see record.py; versions 1 and 2 are read). Each timeline entry is one event the task
agent showed the memory session, with, where there was one: the memory agent's decision (trigger,
action, evidence, whether the policy ran), the policy's prompt and raw output, the retrieval it made
(every returned item with its score and reason), the gate's answer and message and, for a held call,
its verdict (correct / wrong / misled, fixed), every method's deliveries the task agent took after
this event (supplements, reminders, injected banks; `transient` ones are context of the next call
only), the checkpoints that failed at this step (a failed checkpoint is linked to the last candidate
call on its artifact) and what the task agent did next.
"""

from __future__ import annotations

import os
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
# what the episode list needs (the page's index); the rest of an episode is its detail
SUMMARY = (
    "key",
    "run",
    "task_id",
    "persona",
    "score",
    "status",
    "n_int",
    "n_sup",
    "wrong",
    "misled",
    "failed",
    "traced",
)


class TraceError(PulseUserError, ValueError):
    """A run directory `pulse trace` cannot read (the message names the file and line)."""


def find_runs(paths: list[str]) -> list[Path]:
    """The run directories under `paths`.

    Args:
        paths: run directories (each with episodes.jsonl) or folders holding them at any depth.

    Returns:
        The run directories in the order given (a folder's, sorted), each once.

    Raises:
        TraceError: a path that does not exist, or has no episodes.jsonl at or below it.
    """
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


def run_name(run_dir: Path, base: Path | None) -> str:
    """`run_dir` relative to the page's folder (posix separators); its own name when it is that folder."""
    if base is None:
        return run_dir.name or "."
    rel = os.path.relpath(run_dir.resolve(), base.resolve()).replace(os.sep, "/")
    return run_dir.resolve().name if rel == "." else rel


def load_run(
    run_dir: Path, index: int, max_episodes: int = 0, base: Path | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One run directory -> (its header row, its episodes)."""
    manifest, summary = _json(run_dir / "manifest.json"), _json(run_dir / "summary.json")
    rows = read_rows(run_dir / ROWS)
    first = rows[0] if rows else {}
    method = str(first.get("method") or manifest.get("method") or run_dir.name)
    bench = str(first.get("benchmark") or (manifest.get("suite") or {}).get("name") or "?")
    agent = manifest.get("agent") or {}
    run = {
        "index": index,
        "dir": run_name(run_dir, base),
        "method": method,
        "benchmark": bench,
        "seed": first.get("seed", manifest.get("seed")),
        "episodes": len(rows),
        "score": summary.get("score"),
        "metric": summary.get("metric") or first.get("metric", ""),
        "agent": str(agent.get("name", first.get("agent", ""))),
        "simulated": bool(agent.get("simulated")),
        "memory": str(manifest.get("memory", "")),
        "git": manifest.get("git_commit", ""),
        "traced": sum("trace" in r for r in rows),
    }
    return run, [episode(r, index, method, bench) for r in rows[: max_episodes or None]]


def load(paths: list[str], max_episodes: int = 0, base: Path | None = None) -> dict[str, Any]:
    """The data of a `pulse trace` page: every run's header and its episodes.

    Args:
        paths: run directories or folders holding them (`find_runs`).
        max_episodes: episodes read per run (0 = all).
        base: the folder the page is written to; run names are relative to it (None: their own names).

    Returns:
        {"runs": one header per run (method, benchmark, seed, score, agent, ...), "episodes": every
        episode's view, with its timeline when the row has a trace}.

    Raises:
        TraceError: a path that is not a run directory, a malformed JSON file or an episode row
            without a task_id (names the file and line).
    """
    runs, episodes = [], []
    for i, run_dir in enumerate(find_runs(paths)):
        run, eps = load_run(run_dir, i, max_episodes, base)
        runs.append(run)
        episodes += eps
    return {"runs": runs, "episodes": episodes}


def _num(row: dict[str, Any], key: str) -> int:
    v = row.get(key)
    return int(v) if isinstance(v, (int, float)) else 0


def episode(row: dict[str, Any], run: int, method: str, bench: str) -> dict[str, Any]:
    tr = row.get("trace")
    failed = [str(c) for c in (row.get("failed_checkpoints") or [])]
    out: dict[str, Any] = {
        "key": f"{run}:{row['task_id']}",
        "run": run,
        "method": method,
        "benchmark": bench,
        "seed": row.get("seed"),
        "task_id": str(row["task_id"]),
        "persona": str(row.get("user_id", "")),
        "category": row.get("category", ""),
        "level": row.get("level", ""),
        "status": row.get("status", ""),
        "score": row.get("score"),
        "error": row.get("error", ""),
        "counters": {k: row[k] for k in COUNTERS if k in row},
        "components": row.get("components") or {},
        "checkpoints_passed": row.get("checkpoints_passed"),
        "checkpoints_total": row.get("checkpoints_total"),
        "n_int": _num(row, "interventions"),
        "n_sup": _num(row, "supplements"),
        # an intervention whose held call did not conflict with a true binding memory item
        "wrong": max(0, _num(row, "interventions") - _num(row, "interventions_correct")),
        "misled": _num(row, "interventions_misled"),
        "failed": len(failed),
        "traced": tr is not None,
    }
    if tr is None:
        out["checkpoints"] = [{"id": c, "passed": False} for c in sorted(failed)]
        return out
    tr = normalise(tr)
    out["request"] = tr.get("request", "")
    checkpoints = [{**c, "passed": c["id"] not in failed} for c in tr.get("checkpoints", [])] or [
        {"id": c, "passed": False} for c in sorted(failed)
    ]
    link_checkpoints(checkpoints, tr.get("events", []))
    out["checkpoints"] = checkpoints
    out["items"] = tr["items"]
    out["timeline"] = timeline(tr, checkpoints)
    out["initial"] = next((d for d in tr["deliveries"] if d["source"] == "initial"), None)
    out["not_taken"] = [d for d in tr["deliveries"] if d["after_step"] is None]
    return out


def normalise(tr: dict[str, Any]) -> dict[str, Any]:
    """A version-1 trace in the version-2 shape (items by id, deliveries with `after_step`)."""
    if tr.get("version", 1) >= 2:
        return {"items": {}, "deliveries": [], "policy": [], "interventions": [], "announced": {}, **tr}
    items: dict[str, Any] = {}

    def ids(ms):
        for m in ms:
            items.setdefault(m["id"], {k: v for k, v in m.items() if k not in ("score", "reason")})
        return [m["id"] for m in ms]

    retrievals = [
        {
            **r,
            "items": [
                {"id": m["id"], "score": m.get("score"), "reason": m.get("reason", "")} for m in r["items"]
            ],
        }
        for r in tr.get("retrievals", [])
    ]
    for r in tr.get("retrievals", []):
        ids(r["items"])
    taken = {t["step"]: t["after_step"] for t in tr.get("taken", [])}
    deliveries = [
        {
            "step": d["step"],
            "source": d["source"],
            "transient": False,
            "after_step": d["step"] if d["source"] == "initial" else taken.get(d["step"]),
            "message": d.get("message", ""),
            "items": ids(d.get("items", [])),
        }
        for d in tr.get("deliveries", [])
        if d["source"] != "intervene"
    ]
    return {
        **tr,
        "items": items,
        "retrievals": retrievals,
        "deliveries": deliveries,
        "policy": [],
        "interventions": [],
        "announced": {},
    }


def _artifact_calls(events: list[dict[str, Any]], artifact: str) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if e["kind"] == "candidate_call" and artifact and artifact in map(str, (e.get("args") or {}).values())
    ]


def link_checkpoints(checkpoints: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """Each checkpoint's `step`: the last candidate call on its artifact that sets its slot (else the
    last call on its artifact; none when no call names it), and `got`: the value that call used."""
    for c in checkpoints:
        calls = _artifact_calls(events, str(c.get("artifact", "")))
        with_slot = [e for e in calls if c.get("slot") in (e.get("args") or {})]
        last = (with_slot or calls or [None])[-1]
        if last is not None:
            c["step"] = last["step"]
            if c.get("slot") in (last.get("args") or {}):
                c["got"] = last["args"][c["slot"]]


def verdict(record: dict[str, Any] | None) -> str:
    if record is None:
        return ""
    if record.get("misled"):
        return "misled"
    return "correct" if record.get("correct") else "wrong"


def timeline(tr: dict[str, Any], checkpoints: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    events = tr.get("events", [])
    checkpoints = checkpoints or []
    decisions = {d["step"]: d for d in tr.get("decisions", [])}
    gates = {g["step"]: g for g in tr.get("gates", [])}
    retrievals: dict[Any, dict[str, Any]] = {}
    for r in tr.get("retrievals", []):
        retrievals.setdefault(r["step"], r)
    pulse_delivered = {}
    for d in tr.get("deliveries", []):
        if d["source"] == "supplement":
            pulse_delivered.setdefault(d["step"], d)
    taken: dict[Any, list] = {}
    for d in tr.get("deliveries", []):
        if d["source"] != "initial" and d["after_step"] is not None:
            taken.setdefault(d["after_step"], []).append(d)
    policy: dict[Any, list] = {}
    for p in tr.get("policy", []):
        policy.setdefault(p.get("step"), []).append(p)
    held = {i["step"]: i for i in tr.get("interventions", [])}
    announced = tr.get("announced", {})
    items = tr.get("items", {})
    failed_at: dict[Any, list] = {}
    for c in checkpoints:
        if not c.get("passed", True) and c.get("step") is not None:
            failed_at.setdefault(c["step"], []).append(c["id"])
    out = []
    for n, ev in enumerate(events):
        step = ev["step"]
        entry: dict[str, Any] = {**ev}
        d = decisions.get(step)
        if d is not None and (d["trigger"] or d["action"] != "silent"):
            entry["decision"] = d
        g = gates.get(step) if ev["kind"] == "candidate_call" else None
        if g is not None:
            entry["gate"] = g
        if step in retrievals:
            entry["retrieval"] = retrievals[step]
        if step in pulse_delivered and d is not None:
            entry["delivered"] = pulse_delivered[step]
        if step in taken:
            entry["deliveries"] = taken[step]
        if step in policy:
            entry["policy"] = policy[step]
        if str(step) in announced:
            entry["announced"] = announced[str(step)]
        if step in failed_at:
            entry["failed"] = failed_at[step]
        action = (g or d or {}).get("action", "silent")
        evidence = [items[i] for i in (g or d or {}).get("evidence", []) if i in items]
        if action in ("supplement", "intervene"):
            entry["evidence_items"] = evidence
            entry["next"] = what_next(events, n, action, evidence)
        if action == "intervene" and g is not None:
            v = verdict(held.get(step))
            if v:
                entry["verdict"] = v
                entry["fixed"] = bool(held[step].get("fixed"))
                art = str((ev.get("args") or {}).get("name", ""))
                entry["checkpoints"] = [
                    c["id"]
                    for c in checkpoints
                    if not c.get("passed", True) and art and str(c.get("artifact", "")) == art
                ]
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
