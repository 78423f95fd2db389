"""`pulse reproduce [--runs DIR] [--out DIR] [--seeds ...] [--checkpoint P] [overrides...]`: every
experiment row x suite x seed of the paper tables, each distinct configuration run once, then
`pulse tables` over them (eval/reproduce.py; `pulse reproduce --help` lists the options)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """`pulse reproduce` (eval.reproduce.main); returns its exit status."""
    from eval.reproduce import main as reproduce

    return reproduce(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
