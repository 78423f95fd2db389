"""Gateway benchmark: the latency `pulse serve` adds to a tool call, as a ratio against calling the same
upstream directly in the same run.

    .venv/bin/python bench/bench_gateway.py [--calls 200] [--preferences 1000] [--out FILE.json]

Upstream: tests/serve/fixtures/files_server.py over stdio (answers at once). Client: the official
MCP client over stdio, one call at a time. Three series, each `--calls` calls after 20 warm-up calls:
  direct      the client calls the upstream itself (`save_note` and `read_note`);
  read_only   through the gateway: `read_note` (readOnlyHint: never gated; the memory agent reads it);
  gated       through the gateway: `save_note` with `encoding` set, over a memory holding
              `--preferences` conditional preferences on `encoding` (each under its own condition,
              "for the <word> project"), none of which applies (the call passes: the full gate runs,
              retrieval, scope filter and the rule policy; nothing is held).
Reported per series: p50 / p90 ms; added_p50_ms = p50(gateway) - p50(direct) and ratio_p50 =
p50(gateway) / p50(direct), for the same tool. Goals (issue 32): gated added p50 <= 5 ms,
read-only added p50 <= 2 ms. Writes the JSON (machine, settings, series, verdicts).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "serve" / "fixtures" / "files_server.py"
PY = sys.executable
WORDS = [
    "alder", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
    "kestrel", "lumen", "marble", "nectar", "onyx", "pepper", "quartz", "raven", "saffron", "tundra",
]  # fmt: skip


def seed_memory(root: Path, n: int) -> None:
    """`n` conditional preferences of user `ada` on `encoding`, written straight to the store."""
    from pulse.core.records import MemoryItem, Provenance
    from pulse.memory import open_memory

    mem = open_memory("structured", root, "bm25", auto_create_scopes=True)
    try:
        mem.require_scopes("ada", "", create=True)
        items = []
        for i in range(n):
            cond = f"for the {WORDS[i % len(WORDS)]} {WORDS[(i // len(WORDS)) % len(WORDS)]} project {i}"
            value = ("latin-1", "ascii")[i % 2]
            quote = f"{cond[0].upper()}{cond[1:]}, use {value} encoding."
            items.append(
                MemoryItem(
                    f"pref-bench{i:05d}",
                    "preference",
                    "user:ada",
                    f"The user prefers encoding = {value}.",
                    slot="encoding",
                    value=value,
                    conditions=cond,
                    provenance=Provenance("user_statement", f"bench#{i}", quote),
                    valid_from="2026-12-01T00:00:00",
                )
            )
        mem.add_items(items)
    finally:
        mem.close()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def series(server, tool: str, args: dict, calls: int, warm: int = 20) -> list[float]:
    from mcp import Client

    out = []
    async with Client(server, cache=None) as c:
        for i in range(warm + calls):
            t0 = time.perf_counter()
            res = await c.call_tool(tool, {**args, **({"text": f"n{i}"} if "text" in args else {})})
            dt = (time.perf_counter() - t0) * 1000
            if res.is_error:
                raise SystemExit(f"{tool}: {res.content[0].text[:300]}")
            if i >= warm:
                out.append(dt)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--preferences", type=int, default=1000)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "gateway.json"))
    a = ap.parse_args()
    import anyio
    from mcp.client.stdio import StdioServerParameters

    save = {"path": "/n/a.txt", "text": "x", "encoding": "utf-8"}
    read = {"path": "/n/a.txt"}
    with tempfile.TemporaryDirectory() as tmp:
        mem = Path(tmp) / "mem"
        t0 = time.perf_counter()
        seed_memory(mem, a.preferences)
        seeded_s = time.perf_counter() - t0
        direct = StdioServerParameters(command=PY, args=[str(FIXTURE)], cwd=str(ROOT))
        gateway = StdioServerParameters(
            command=PY,
            cwd=str(ROOT),
            args=[
                "-m",
                "pulse.cli.serve",
                "user_id=ada",
                f"memory.root={mem}",
                f"+upstreams.files.command={PY}",
                f"+upstreams.files.args=[{FIXTURE}]",
                "agent.writeback=false",
            ],
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        runs = {
            "direct_gated_tool": anyio.run(series, direct, "save_note", save, a.calls),
            "direct_read_only_tool": anyio.run(series, direct, "read_note", read, a.calls),
            "gateway_gated": anyio.run(series, gateway, "save_note", save, a.calls),
            "gateway_read_only": anyio.run(series, gateway, "read_note", read, a.calls),
        }
    stats = {
        k: {"p50_ms": round(pct(v, 0.5), 3), "p90_ms": round(pct(v, 0.9), 3), "n": len(v)}
        for k, v in runs.items()
    }
    out = {
        "bench": "gateway",
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),  # other work on the machine meanwhile
        },
        "settings": {"calls": a.calls, "preferences": a.preferences, "transport": "stdio", "policy": "rule"},
        "seed_memory_s": round(seeded_s, 2),
        "series": stats,
    }
    for kind, direct_key, goal in (
        ("gated", "direct_gated_tool", 5.0),
        ("read_only", "direct_read_only_tool", 2.0),
    ):
        gw, d = stats[f"gateway_{kind}"]["p50_ms"], stats[direct_key]["p50_ms"]
        out[kind] = {
            "added_p50_ms": round(gw - d, 3),
            "ratio_p50": round(gw / d, 3),
            "goal_added_p50_ms": goal,
            "meets_goal": gw - d <= goal,
        }
    out["mean_ms"] = {k: round(statistics.fmean(v), 3) for k, v in runs.items()}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("series", "gated", "read_only")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
