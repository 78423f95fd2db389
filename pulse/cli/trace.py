"""`pulse trace` (= `python -m pulse.cli.trace`): one self-contained HTML page per evaluation run
(configs/trace.yaml).

    PULSE_TRACE=1 pulse eval benchmark=pibench_sim method=pulse_rule \
        out_dir=outputs/eval/a                          # record timelines
    pulse trace outputs/eval/a                          # -> outputs/eval/a/trace.html
    pulse trace outputs/eval/a outputs/eval/b out=compare.html    # two methods, side by side
    pulse trace runs=[outputs/eval/a] max_episodes=20

Bare arguments are run directories (or folders holding run directories). Exit status 2 with one
line for a path that is not a run directory or a malformed row.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pulse.cli.support import CONFIG_DIR, known_errors, report_and_exit


def _run(cfg) -> Path:
    from pulse.config.schema import to_typed
    from pulse.trace.config import TraceConfig
    from pulse.trace.html import render
    from pulse.trace.load import TraceError, load
    from pulse.utils.atomic import atomic_write_text

    typed = to_typed(cfg, TraceConfig)
    if not typed.runs:
        raise TraceError("give a run directory: pulse trace RUN_DIR [RUN_DIR ...] (or runs=[...])")
    data = load(list(typed.runs), typed.max_episodes)
    first = Path(typed.runs[0])
    out = Path(typed.out) if typed.out else (first if len(typed.runs) == 1 else first.parent) / "trace.html"
    title = typed.title or "Pulse trace: " + ", ".join(
        sorted({f"{r['method']} / {r['benchmark']}" for r in data["runs"]})
    )
    atomic_write_text(out, render(data, title))
    n_traced = sum(e["traced"] for e in data["episodes"])
    print(
        f"pulse trace: {out} ({len(data['runs'])} run(s), {len(data['episodes'])} episodes, "
        f"{n_traced} with a timeline)"
    )
    if n_traced == 0:
        print(
            "pulse trace: no episode has a timeline; record one with PULSE_TRACE=1 pulse eval ...",
            file=sys.stderr,
        )
    return out


def _positional_to_overrides(argv: list[str]) -> list[str]:
    """`pulse trace A B k=v` -> `runs=[A,B] k=v` (hydra takes only key=value overrides)."""
    paths = [a for a in argv if "=" not in a and not a.startswith("-")]
    rest = [a for a in argv if a not in paths]
    if not paths:
        return rest
    quoted = ",".join("'" + p.replace("\\", "\\\\").replace("'", "\\'") + "'" for p in paths)
    return [f"runs=[{quoted}]", *rest]


def main() -> None:
    import hydra

    sys.argv = [sys.argv[0], *_positional_to_overrides(sys.argv[1:])]

    @hydra.main(config_path=str(CONFIG_DIR), config_name="trace", version_base="1.3")
    def _main(cfg) -> None:
        try:
            _run(cfg)
        except known_errors() as e:
            report_and_exit("trace", e)

    _main()


if __name__ == "__main__":
    main()
