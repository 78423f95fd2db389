"""Dataset card: counts per split, label, case type and level, plus seed and generator version.

Written as dataset_card.json (machine-readable, tests compare it with the data) and README.md.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any, Mapping, Sequence

from pulse.core.examples import ROW_COLUMNS, PolicyExample

from data_gen.config import GenDataConfig

GENERATOR_VERSION = "1.0"


def _counts(values) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


def _summary(examples: Sequence[PolicyExample]) -> dict[str, Any]:
    return {
        "examples": len(examples),
        "users": len({e.user_id for e in examples}),
        "task_groups": len({e.task_group for e in examples}),
        "labels": _counts(e.gold.action for e in examples),
        "case_types": _counts(e.case_type for e in examples),
        "levels": _counts(f"L{e.task_level}" for e in examples),
        "prefix_events": _counts(str(len(e.inp.prefix)) for e in examples),
        "snapshot_items": _counts(str(len(e.inp.snapshot)) for e in examples),
        "task_slots": _counts(str(len(e.task_slots)) for e in examples),
        "last_event": _counts(e.inp.last_event.kind for e in examples),
    }


def make_card(cfg: GenDataConfig, splits: Mapping[str, Sequence[PolicyExample]]) -> dict[str, Any]:
    everything = [e for exs in splits.values() for e in exs]
    return {
        "name": "pulse-persona2web-style-policy-prefixes",
        "generator": "data_gen",
        "generator_version": GENERATOR_VERSION,
        "seed": cfg.seed,
        "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()},
        "columns": list(ROW_COLUMNS),
        "split_unit": "user (so also task group); never by prefix",
        "total": _summary(everything),
        "splits": {name: _summary(exs) for name, exs in splits.items()},
    }


def card_markdown(card: Mapping[str, Any]) -> str:
    lines = [
        f"# {card['name']}",
        "",
        "Labeled trajectory prefixes with memory snapshots for the Pulse memory policy, generated "
        "deterministically (no LLM) by `data_gen` in the spirit of Persona2Web: personas, year-long "
        "web histories, implicit preferences derived from repetition, three-level tasks.",
        "",
        f"- generator version: {card['generator_version']}",
        f"- seed: {card['seed']}",
        f"- split unit: {card['split_unit']}",
        f"- columns: {', '.join(card['columns'])}",
        "- load: `datasets.load_from_disk(dir)`; rows -> `pulse.core.examples.example_from_row`",
        "",
    ]
    splits = list(card["splits"])
    for key in ("labels", "case_types", "levels", "last_event", "prefix_events"):
        names = sorted({n for s in splits for n in card["splits"][s][key]} | set(card["total"][key]))
        lines += [f"## {key}", "", "| | " + " | ".join(splits) + " | total |",
                  "|---|" + "---|" * (len(splits) + 1)]
        for n in names:
            row = [str(card["splits"][s][key].get(n, 0)) for s in splits] + [str(card["total"][key].get(n, 0))]
            lines.append(f"| {n} | " + " | ".join(row) + " |")
        lines.append("")
    lines += ["## sizes", "", "| | " + " | ".join(splits) + " | total |", "|---|" + "---|" * (len(splits) + 1)]
    for key in ("examples", "users", "task_groups"):
        row = [str(card["splits"][s][key]) for s in splits] + [str(card["total"][key])]
        lines.append(f"| {key} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"
