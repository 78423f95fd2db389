"""`pulse tables RUN_DIR... [--out DIR] [--no-plots]`: paper-style Markdown + LaTeX tables and the
stage-accuracy plot (PNG) from evaluation run directories (searched recursively for episodes.jsonl).
Mean ± stderr over seeds; simulated-agent rows are marked "(sim)", rows that include failed episodes
"†" (with a footnote naming them). Exit 2 with one message when the runs cannot be tabulated honestly,
e.g. two policy checkpoints (content hashes) under one method and benchmark."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """`pulse tables RUN_DIR... [--out DIR] [--no-plots]` (the module docstring): tabulate eval runs.

    Args:
        argv: the arguments after `pulse tables` (None: `sys.argv[1:]`).

    Returns:
        0 once the tables are printed (and written under `--out`).

    Raises:
        SystemExit: with `render_tables`' status (2) when the runs cannot be tabulated honestly (e.g.
            two policy checkpoints under one method and benchmark), and from argparse.
    """
    p = argparse.ArgumentParser(prog="pulse tables", description=__doc__)
    p.add_argument("runs", nargs="+", help="run directories or folders containing them")
    p.add_argument("--out", default=None, help="write tables.md, tables.tex and PNG plots here")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument(
        "--per-seed-checkpoints",
        action="store_true",
        help="allow one policy checkpoint per seed in a row (training seed s evaluated at seed s)",
    )
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    from eval.reproduce import render_tables

    rc = render_tables(a.runs, a.out, plots=not a.no_plots, per_seed_checkpoints=a.per_seed_checkpoints)
    if rc:
        sys.exit(rc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
