"""The command-line layer: `pulse <verb> [hydra overrides...]` (= `python -m pulse.cli <verb> ...`).

One module per verb (`pulse/cli/<verb>.py`, each also `python -m pulse.cli.<verb>`); `support.py`
builds their hydra entry points with clear errors. This package is the only part of `pulse` that
imports `eval` and `data_gen`: the library below it (memory, agent, policy, train, serve, trace)
never imports upward (tests/test_import_layers.py). This file only dispatches and is the one place
that knows the verb list.
"""

from __future__ import annotations

import difflib
import importlib
import sys

VERBS: dict[str, tuple[str, str]] = {
    "gen-data": ("pulse.cli.gen_data", "generate the Persona2Web-style policy dataset (data_gen/)"),
    "train": ("pulse.cli.train", "SFT warm start + GRPO training of the memory policy"),
    "eval-policy": ("pulse.cli.eval_policy", "held-out policy metrics for any checkpoint"),
    "demo": ("pulse.cli.demo", "end-to-end CPU demo: data -> SFT -> GRPO(-1, 0) -> comparison table"),
    "eval": ("pulse.cli.eval", "benchmark x method x task-agent evaluation runs"),
    "tables": ("pulse.cli.tables", "render paper-style tables from run directories"),
    "reproduce": (
        "pulse.cli.reproduce",
        "the paper tables' grid: every experiment row x suite x seed, identical runs once, then tables",
    ),
    "memory": ("pulse.cli.memory", "inspect, export or import a memory store (show | export | import)"),
    "serve": (
        "pulse.cli.serve",
        "MCP gateway: upstream MCP tools with Pulse's memory and pre-commit gate",
    ),
    "eval-reading": (
        "pulse.cli.eval_reading",
        "how well a reader reads people: per-field precision / recall on annotated statements",
    ),
    "calibrate-agent": (
        "pulse.cli.calibrate_agent",
        "probe a real model with memory deliveries and holds; fit the simulated agent's behaviour knobs",
    ),
    "suite-shape": (
        "pulse.cli.suite_shape",
        "a suite's shape: users, tasks, steps, tools, checkpoints per stage and source, fingerprint",
    ),
    "trace": ("pulse.cli.trace", "one self-contained HTML page of eval runs' episodes and decisions"),
    "export": (
        "pulse.cli.export",
        "merge a trained LoRA adapter into its base: a model folder any backend loads",
    ),
    "fetch-model": ("pulse.cli.fetch_model", "download a hub model once (every other verb runs offline)"),
}


def usage() -> str:
    """`pulse`'s help: every verb with its one-line description."""
    width = max(map(len, VERBS))
    rows = "\n".join(f"  {v.ljust(width)}  {doc}" for v, (_, doc) in VERBS.items())
    return f"usage: pulse <verb> [args...]\n\nverbs:\n{rows}\n\n`pulse <verb> --help` shows a verb's options."


def main(argv: list[str] | None = None) -> int:
    """`pulse <verb> [args...]`: dispatch to the verb's module (`VERBS`).

    Args:
        argv: the arguments after `pulse` (None: `sys.argv[1:]`). The first names the verb; the rest go
            to it unchanged: as `argv` to the argparse verbs (memory, export, fetch-model, reproduce),
            as `sys.argv` to the hydra verbs.

    Returns:
        The exit status: 0 after the help or a hydra verb that finished, an argparse verb's own status,
        2 for an unknown verb (printed on stderr with close names and the usage).

    Raises:
        SystemExit: from a hydra verb: status 2 with one line on stderr for a known input error
            (`pulse.cli.support.known_errors`), hydra's own status for anything else.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    verb, rest = argv[0], argv[1:]
    if verb not in VERBS:
        close = difflib.get_close_matches(verb, VERBS, n=2)
        hint = f" Did you mean {' or '.join(close)}?" if close else ""
        print(f"pulse: unknown verb {verb!r}.{hint}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(VERBS[verb][0])
    if verb in ("memory", "export", "fetch-model", "reproduce"):  # argparse-based verbs
        return int(module.main(rest) or 0)
    sys.argv = [f"pulse {verb}", *rest]  # hydra reads sys.argv
    module.main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
