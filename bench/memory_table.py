"""bench/README.md's "Memory at scale" tables, rendered from the committed benchmark JSON (never typed in).

    .venv/bin/python bench/memory_table.py      # prints Markdown; paste it over that section

Reads bench/results/retrieval.json (bench_retrieval.py) and bench/results/memory_scale.json
(bench_memory_scale.py). A row carried over from an older run is marked stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def _f(x, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def retrieval_table(r: dict) -> list[str]:
    out = [
        f"Retrieval (`bench/results/retrieval.json`, git {r['run']['git_commit']}, {r['run']['created']}, "
        f"load avg {r['machine']['load_avg_at_start'][0]:.1f}; {r['embedder']}, k = {r['k']}, "
        f"{r['queries']} queries × {r.get('passes', 1)} passes; query embedding excluded, reported apart: "
        f"p50 "
        f"{_f(r['embedding_forward']['query_p50_ms'], 1)} ms, "
        f"p95 {_f(r['embedding_forward']['query_p95_ms'], 1)} ms)",
        "",
        "| facts | Pulse graph p50 / p95 ms | flat top-k p50 / p95 ms "
        "| Mem0 FAISS search ex. embedding p50 / p95 ms "
        "| Mem0 Qdrant search ex. embedding p50 / p95 ms "
        "| Mem0 FAISS incl. embedding p50 ms | Mem0 Qdrant incl. embedding p50 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    runs = r.get("mem0", {}).get("runs", {})
    for n, row in sorted(r["sizes"].items(), key=lambda kv: int(kv[0])):
        graph, flat = row["graph"], row["flat"]
        cells = []
        for store in ("faiss", "qdrant"):
            m = runs.get(f"{store}/{n}", {})
            cells.append(
                f"{_f(m.get('search_ex_embed_p50_ms'))} / {_f(m.get('search_ex_embed_p95_ms'))}"
                if "search_ex_embed_p50_ms" in m
                else m.get("skipped", "not run")[:40]
            )
        incl = [_f(runs.get(f"{s}/{n}", {}).get("search_p50_ms"), 1) for s in ("faiss", "qdrant")]
        stale = " (stale)" if "stale" in row else ""
        passes = graph.get("p95_ms_per_pass") or []  # each pass's p95: the spread on a shared machine
        spread = f" (p95 per pass {_f(min(passes))}–{_f(max(passes))})" if len(passes) > 1 else ""
        out.append(
            f"| {int(n):,}{stale} | {_f(graph['p50_ms'])} / {_f(graph['p95_ms'])}{spread} "
            f"| {_f(flat['p50_ms'])} / {_f(flat['p95_ms'])} "
            f"| {cells[0]} | {cells[1]} | {incl[0]} | {incl[1]} |"
        )
    if "stale" in r.get("mem0", {}):
        out += ["", f"Mem0 columns: {r['mem0']['stale']}."]
    return out


def _parts_cell(c: dict, x: dict) -> str:
    rows = [r for r in (c, x) if "commit_max_parts_ms" in r]
    if not rows:
        return "not measured"
    slow = max(rows, key=lambda r: r["commit_max_ms"])
    parts = slow["commit_max_parts_ms"]
    inside = parts["transaction"]
    outside = sum(v for k, v in parts.items() if k != "transaction")
    worst = max(r["commit_max_outside_transaction_ms"] for r in rows)
    return f"{_f(inside, 1)} / {_f(outside, 1)}; {_f(worst, 1)}"


def _gc_cell(c: dict, x: dict) -> str:
    if "gc_full_collection_ms" not in c:
        return "not measured"
    n = c["gc_full_collections"] + x.get("gc_full_collections", 0)
    longest = max(c["gc_full_max_ms"], x.get("gc_full_max_ms", 0.0))
    frozen = c.get("gc_frozen_objects", 0)
    return (
        f"{n} ({_f(longest, 1)}); {_f(c['gc_full_collection_ms'], 1)} ({c['gc_tracked_objects']:,} objects"
        f"{f', {frozen:,} frozen after the model load' if frozen else ''})"
    )


def scale_table(s: dict) -> list[str]:
    out = [
        f"Commits and scopes (`bench/results/memory_scale.json`, git {s['run']['git_commit']}, "
        f"{s['run']['created']}, "
        f"load avg {s['machine']['load_avg_at_start'][0]:.1f}; {s['embedder']}; {s['vectors']}; "
        f"store sync mode {s.get('store_sync', 'commit (every COMMIT fsyncs)')})",
        "",
        "| facts in the user scope | commit p50 / p95 / max ms | compaction work s (due every N facts) "
        "| across one compaction: commit p95 / max ms (commits it was spread over) "
        "| retrieval while it is pending p95 ms "
        "| embedding per new fact p95 ms (apart) "
        "| retrieval after the commits p50 / p95 ms | same store, fresh index p50 / p95 ms "
        "| full garbage collections in the timed commits (longest ms); one forced ms "
        "| slowest commit: in its SQLite transaction / outside it ms; largest time any commit spent "
        "outside its transaction ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _n, c in sorted(s["commits"].items(), key=lambda kv: int(kv[0])):
        x = c.get("compaction_crossing") or {}
        spread = x.get("commits_while_pending")
        crossing = (
            (
                f"{_f(x.get('commit_p95_ms'), 1)} / {_f(x.get('commit_max_ms'), 1)} "
                f"({spread + 1 if spread is not None else '–'})"
            )
            if x
            else "not run"
        )
        out.append(
            f"| {c['facts_in_scope']:,} | {_f(c['commit_p50_ms'], 1)} / {_f(c['commit_p95_ms'], 1)} / "
            f"{_f(c['commit_max_ms'], 1)} | {_f(c.get('compaction_s'))} "
            f"({c.get('compaction_every_facts', 0):,}) "
            f"| {crossing} | {_f(x.get('retrieval_while_pending_p95_ms'))} "
            f"| {_f(c['embed_per_fact_p95_ms'], 1)} "
            f"| {_f(c['retrieval_after_commits_p50_ms'])} / {_f(c['retrieval_after_commits_p95_ms'])} "
            f"| {_f(c['retrieval_fresh_index_p50_ms'])} / {_f(c['retrieval_fresh_index_p95_ms'])} "
            f"| {_gc_cell(c, x)} | {_parts_cell(c, x)} |"
        )
    sc = s.get("scopes")
    if sc:
        one, many = sc["one_user_store"], sc["many_user_store"]
        out += [
            "",
            f"Many scopes ({sc['embedder']}): per-scope latency in a store of {sc['users']:,} users × "
            f"{sc['facts_per_user']:,} facts (loaded in {sc['load_s']} s; {many['users_sampled']} users "
            f"sampled) next to a store holding one such user.",
            "",
            "| store | retrieval p50 / p95 ms | commit p50 / p95 ms | first query incl. index build p50 ms |",
            "|---|---|---|---|",
        ]
        for label, row in (("1 user", one), (f"{sc['users']:,} users", many)):
            out.append(
                f"| {label} | {_f(row['retrieval_p50_ms'])} / {_f(row['retrieval_p95_ms'])} | "
                f"{_f(row['commit_p50_ms'], 1)} / {_f(row['commit_p95_ms'], 1)} | "
                f"{_f(row['first_query_incl_index_build_p50_ms'], 1)} |"
            )
    e = s.get("event_to_evidence")
    if e:
        out += [
            "",
            f"Event → evidence incl. the MiniLM query embedding ({e['facts']:,} facts, "
            f"{e['events']} events over "
            f"{e['distinct_queries']} distinct queries): p50 / p95 {_f(e['cache_off']['p50_ms'], 1)} / "
            f"{_f(e['cache_off']['p95_ms'], 1)} ms without the query-encoding cache, "
            f"{_f(e['cache_on']['p50_ms'], 1)} / {_f(e['cache_on']['p95_ms'], 1)} ms with it.",
        ]
    return out


def main() -> int:
    lines: list[str] = []
    for name, fn in (("retrieval.json", retrieval_table), ("memory_scale.json", scale_table)):
        p = RESULTS / name
        if p.exists():
            lines += fn(json.loads(p.read_text())) + [""]
        else:
            lines += [
                f"({p.name} missing: run "
                f"bench/{'bench_retrieval' if 'retr' in name else 'bench_memory_scale'}.py)",
                "",
            ]
    print("\n".join(lines).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
