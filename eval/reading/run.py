"""`pulse eval-reading`: read every annotated statement with one reader and score it (`score.py`).

Sources scored separately: the hand-written set as a whole and per domain, and each generated
suite's seed statements per seed. The result records the reader's id (its knobs or model and prompt
version), the code commit, the statements read, the speed, and for the llm reader its calls, cache
hits and unparsed replies.
"""

from __future__ import annotations

import hashlib
import importlib
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eval.reading.config import EvalReadingConfig
from eval.reading.dataset import DATA_DIR, DatasetError, Example, load_annotated, suite_examples
from eval.reading.perturb import robustness, robustness_table
from eval.reading.score import FIELDS, Counts, match
from pulse.reading import make_reader
from pulse.utils.manifest import git_commit


def sample(examples: Sequence[Example], limit: int) -> list[Example]:
    """`limit` statements spread over the domains, chosen by a stable hash of their ids."""
    if not limit or limit >= len(examples):
        return list(examples)
    by_domain: dict[str, list[Example]] = {}
    for e in sorted(examples, key=lambda e: hashlib.sha256(e.id.encode()).hexdigest()):
        by_domain.setdefault(e.source, []).append(e)
    out: list[Example] = []
    while len(out) < limit:
        for d in sorted(by_domain):
            if by_domain[d] and len(out) < limit:
                out.append(by_domain[d].pop(0))
    return sorted(out, key=lambda e: e.id)


def _generate(name: str, seed: int) -> Any:
    try:
        module = importlib.import_module(f"eval.suites.{name}")
    except ModuleNotFoundError:
        raise DatasetError(f"suites: {name!r} is not a generated suite (eval/suites/)") from None
    if not hasattr(module, "generate"):
        raise DatasetError(f"suites: {name!r} is not a generated suite (no generate())")
    return module.generate(seed=seed)


def _reader(cfg: EvalReadingConfig) -> Any:
    if cfg.reader == "llm":
        if not cfg.endpoint.configured:
            raise DatasetError("reader=llm needs endpoint.model and endpoint.base_url")
        return make_reader("llm", endpoint=cfg.endpoint)
    return make_reader("offline")


def evaluate(cfg: EvalReadingConfig, reader: Any = None) -> dict[str, Any]:
    """Score `cfg`'s reader (or `reader`, a reader built by the caller: scripts/reading_probes.py)."""
    reader = reader if reader is not None else _reader(cfg)
    groups: dict[str, list[Example]] = {}
    annotated = sample(load_annotated(cfg.data_dir or DATA_DIR, cfg.domains), cfg.limit)
    for e in annotated:
        groups.setdefault(f"annotated/{e.source}", []).append(e)
    for name in cfg.suites:
        for seed in cfg.seeds:
            groups[f"suite/{name}/s{seed}"] = suite_examples(_generate(name, seed))
    results: dict[str, Any] = {}
    total = Counts()
    read_s, n_read = 0.0, 0
    matched: dict[str, int] = {}  # annotated statement id -> gold facts matched (for `robustness`)
    for group, examples in groups.items():
        c = Counts()
        for e in examples:
            t0 = time.perf_counter()
            pred = reader.read(e.text, e.schema, project=e.project)
            read_s += time.perf_counter() - t0
            n_read += 1
            c.add(e.gold, pred)
            if group.startswith("annotated/"):
                total.add(e.gold, pred)
                matched[e.id] = len(match(e.gold, pred))
        results[group] = {"fields": c.table(), **c.summary()}
    if annotated:
        results["annotated"] = {"fields": total.table(), **total.summary()}
    suites: dict[str, dict[str, Any]] = {}
    for name in cfg.suites:
        runs = [results[f"suite/{name}/s{s}"] for s in cfg.seeds]
        suites[name] = {
            "seed_statements_recalled": [r["matched"] for r in runs],
            "seed_statements": [r["gold_facts"] for r in runs],
        }
    robust = robustness(reader, annotated, cfg.rewrites, matched) if annotated and cfg.rewrites else {}
    extra = {k: getattr(reader, k) for k in ("calls", "cache_hits", "parse_failures") if hasattr(reader, k)}
    return {
        "reader": cfg.reader,
        "reader_id": reader.reader_id,
        "config": asdict(cfg)
        | {"endpoint": {"model": cfg.endpoint.model, "base_url": cfg.endpoint.base_url}},
        "code_commit": git_commit(),
        "statements_read": n_read,
        "statements_per_s": round(n_read / read_s, 1) if read_s else None,
        "groups": results,
        "suites": suites,
        "robustness": robust,
        **extra,
    }


def table(result: dict[str, Any]) -> str:
    """A markdown table of the annotated set's fields, then the suites' seed-statement recall."""
    lines = [
        f"Reader `{result['reader_id']}` ({result['statements_read']} statements read, "
        f"{result['statements_per_s']} statements/s)",
        "",
    ]
    rows = [("annotated (all)", result["groups"].get("annotated"))]
    rows += [(g.split("/", 1)[1], r) for g, r in result["groups"].items() if g.startswith("annotated/")]
    lines.append("| statements | n | " + " | ".join(f"{f} P / R" for f in FIELDS) + " | other's as user's |")
    lines.append("|---|---|" + "---|" * (len(FIELDS) + 1))
    for name, r in rows:
        if not r:
            continue
        cells = []
        for f in FIELDS:
            p, rc = r["fields"][f]["precision"], r["fields"][f]["recall"]
            cells.append(f"{_pct(p)} / {_pct(rc)}")
        lines.append(
            f"| {name} | {r['statements']} | " + " | ".join(cells) + f" | {_pct(r['other_as_user'])} |"
        )
    if result["suites"]:
        lines += ["", "| suite | seed statements recalled (per seed) |", "|---|---|"]
        for name, s in result["suites"].items():
            per = ", ".join(f"{a}/{b}" for a, b in zip(s["seed_statements_recalled"], s["seed_statements"]))
            lines.append(f"| {name} | {per} |")
    if result.get("robustness"):
        lines += ["", "The annotated set as people also type it (eval/reading/perturb.py):", ""]
        lines += robustness_table(result["robustness"])
    lines += [
        "",
        "P / R in %: precision / recall (eval/reading/score.py). argument+value: argument, value and"
        " polarity "
        "right; holder, kind, lasting, withdrawal, revision, condition: that field right too. "
        "other's as user's: someone else's facts read as the user's, among those found.",
    ]
    return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}"


def write(result: dict[str, Any], out: str | Path) -> None:
    from pulse.utils.atomic import atomic_write_json, atomic_write_text

    out = Path(out)
    atomic_write_json(out / "reading.json", result)
    atomic_write_text(out / "reading.md", table(result) + "\n")
