"""A suite's shape (`pulse suite-shape`): what it holds, counted, and its content fingerprint.

Counts: users, tasks, steps, tools, arguments (and how many of them are memory-sourced: their gold
comes from memory, not from the request, the default or an earlier step), checkpoints per stage and
per source, tasks per category and per level.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from eval.suites.schema import ARG_SOURCES, STAGES, Suite

# argument sources whose gold value a capable agent learns from memory (seeded or written by an
# earlier task); `conditional` is memory that holds in the task's context. Not: explicit (the
# request), default (nothing says otherwise), carried (an earlier step of the same task),
# inapplicable (memory holds a value that must not be used), user_message (said during the task).
MEMORY_SOURCES = ("preference", "revised", "habit_override", "project", "conditional")


def fingerprint(suite: Suite) -> str:
    """sha256 of the suite's canonical JSON (sorted keys, no whitespace)."""
    blob = json.dumps(suite.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def shape(suite: Suite) -> dict[str, Any]:
    steps = [s for t in suite.tasks for s in t.steps]
    args = [a for s in steps for a in s.args]
    cps = [c for t in suite.tasks for c in t.checkpoints]
    tools = {x.name for p in suite.personas for x in p.tools}
    by_stage = Counter(c.stage for c in cps)
    by_source = Counter(c.source for c in cps)
    arg_sources = Counter(a.source for a in args)
    return {
        "name": suite.name,
        "version": suite.version,
        "seed": suite.seed,
        "metric": suite.metric,
        "fingerprint": fingerprint(suite),
        "users": len(suite.personas),
        "tasks": len(suite.tasks),
        "steps": len(steps),
        "tools": len(tools),
        "args": len(args),
        "args_memory_sourced": sum(arg_sources[s] for s in MEMORY_SOURCES),
        "args_per_source": {s: arg_sources[s] for s in ARG_SOURCES if arg_sources[s]},
        "checkpoints": len(cps),
        "checkpoints_per_stage": {s: by_stage[s] for s in STAGES},
        "checkpoints_per_source": {s: by_source[s] for s in ARG_SOURCES if by_source[s]},
        "tasks_per_category": dict(sorted(Counter(t.category for t in suite.tasks).items())),
        "tasks_per_level": {str(k): v for k, v in sorted(Counter(t.level for t in suite.tasks).items())},
    }


def render(sh: dict[str, Any]) -> str:
    """The shape as aligned text lines."""

    def counts(d: dict) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"

    rows = [
        ("suite", f"{sh['name']} v{sh['version']} seed {sh['seed']} (metric {sh['metric']})"),
        ("fingerprint", sh["fingerprint"][:16]),
        ("users", sh["users"]),
        ("tasks", sh["tasks"]),
        ("steps", sh["steps"]),
        ("tools", sh["tools"]),
        ("args", f"{sh['args']} ({sh['args_memory_sourced']} memory-sourced: {', '.join(MEMORY_SOURCES)})"),
        ("args per source", counts(sh["args_per_source"])),
        ("checkpoints", sh["checkpoints"]),
        ("  per stage", counts(sh["checkpoints_per_stage"])),
        ("  per source", counts(sh["checkpoints_per_source"])),
        ("categories", counts(sh["tasks_per_category"])),
        ("levels", counts(sh["tasks_per_level"])),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


@dataclass(frozen=True)
class SuiteShapeConfig:
    """The typed config of `pulse suite-shape` (configs/suite_shape.yaml)."""

    # a generated suite by its benchmark name (pibench_sim | mcp_persona_sim | independent_sim); ignored
    # when `path` is set
    suite: Literal["pibench_sim", "mcp_persona_sim", "independent_sim"] = "independent_sim"
    # the generated suite's seed
    seed: int = 0
    # a suite JSON to describe instead (any name; validated at load)
    path: str = ""
    # write the shape as JSON here too ("" = print only)
    out: str = ""


GENERATORS = {
    "pibench_sim": "eval.suites.pibench_sim",
    "mcp_persona_sim": "eval.suites.mcp_persona_sim",
    "independent_sim": "eval.suites.independent_sim",
}


def suite_of(cfg: SuiteShapeConfig) -> Suite:
    """The suite a `pulse suite-shape` config names: the file at `path`, else the generated suite."""
    if cfg.path:
        from eval.suites.schema import load_suite

        return load_suite(cfg.path)
    import importlib

    return importlib.import_module(GENERATORS[cfg.suite]).generate(int(cfg.seed))


def run(cfg: SuiteShapeConfig) -> dict[str, Any]:
    """Print the shape; with `out`, write it as JSON (atomically)."""
    sh = shape(suite_of(cfg))
    print(render(sh))
    if cfg.out:
        from pulse.utils.atomic import atomic_write_text

        atomic_write_text(cfg.out, json.dumps(sh, indent=2, sort_keys=True) + "\n")
        print(f"pulse suite-shape: wrote {cfg.out}")
    return sh
