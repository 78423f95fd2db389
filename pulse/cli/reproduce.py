"""`pulse reproduce [--runs DIR] [--out DIR] [--seeds ...] [--checkpoint P] [overrides...]`: every
experiment row x suite x seed of the paper tables, each distinct configuration run once, then
`pulse tables` over them (eval/reproduce.py; `pulse reproduce --help` lists the options)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """`pulse reproduce [options] [overrides...]`: the paper tables' grid (`eval.reproduce.main`).

    Args:
        argv: the arguments after `pulse reproduce` (None: `sys.argv[1:]`).

    Returns:
        Its exit status: 0, 1 when a run failed, 2 when the runs cannot be tabulated.
    """
    from eval.reproduce import main as reproduce

    return reproduce(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
