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

import re
import sys
from pathlib import Path

from pulse.cli.support import CONFIG_DIR, known_errors, report_and_exit


def _run(cfg) -> Path:
    from pulse.config.schema import to_typed
    from pulse.trace.config import TraceConfig
    from pulse.trace.html import write_page
    from pulse.trace.load import TraceError

    typed = to_typed(cfg, TraceConfig)
    if not typed.runs:
        raise TraceError("give a run directory: pulse trace RUN_DIR [RUN_DIR ...] (or runs=[...])")
    first = Path(typed.runs[0])
    out = Path(typed.out) if typed.out else (first if len(typed.runs) == 1 else first.parent) / "trace.html"
    w = write_page(list(typed.runs), out, typed.title, typed.max_episodes, typed.lazy, typed.inline_mb)
    where = f"; episode details in {w['lazy']}/ ({w['chunks']} files, loaded on demand)" if w["lazy"] else ""
    print(
        f"pulse trace: {out} ({w['runs']} run(s), {w['episodes']} episodes, {w['traced']} with a timeline; "
        f"page {w['page_bytes'] / 1e6:.2f} MB{where})"
    )
    if w["traced"] == 0:
        print(
            "pulse trace: no episode has a timeline; record one with PULSE_TRACE=1 pulse eval ...",
            file=sys.stderr,
        )
    return out


def _quote(v: str) -> str:
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _is_override(a: str) -> bool:
    """`key=value` whose key is a config key (a dotted name, or a hydra `+`/`~` override: a typo
    is refused by the config check, exit 2); an existing path, or one whose part before `=` is not a
    name (`outputs/runs/seed=0`), is a run directory."""
    if a.startswith("-") or "=" not in a or Path(a).exists():
        return False
    return re.fullmatch(r"[+~]{0,2}[A-Za-z_][\w.]*", a.split("=", 1)[0]) is not None


def _positional_to_overrides(argv: list[str]) -> list[str]:
    """`pulse trace A B k=v` -> `runs=[A,B] k=v` (hydra takes only key=value overrides); paths are
    quoted, so a path holding `=`, `,` or spaces works, also as `out=`."""
    paths = [a for a in argv if not _is_override(a) and not a.startswith("-")]
    rest = []
    for a in argv:
        if a in paths:
            continue
        key, _, value = a.partition("=")
        if key == "out" and value and not value.startswith(("'", '"')):
            a = f"out={_quote(value)}"
        rest.append(a)
    if not paths:
        return rest
    return [f"runs=[{','.join(_quote(p) for p in paths)}]", *rest]


def main() -> None:
    """`pulse trace RUN_DIR... [key=value...]` (the module docstring): write the HTML page of eval runs.

    Reads `sys.argv`: bare arguments are run directories (or folders holding them), the rest hydra
    overrides of configs/trace.yaml (`TraceConfig`). Prints where the page and its episode files went.

    Raises:
        SystemExit: status 2 with one line on stderr for an unknown key, no run directory, a path that
            is not a run directory, or a malformed row (`TraceError`).
    """
    from dataclasses import fields

    import hydra

    from pulse.trace.config import TraceConfig

    keys = [f.name for f in fields(TraceConfig)]
    for a in sys.argv[1:]:
        key = a.split("=", 1)[0].lstrip("+~").split(".", 1)[0]
        if _is_override(a) and key not in keys and key != "hydra":
            print(f"pulse trace: unknown key {key!r} (keys: {', '.join(keys)})", file=sys.stderr)
            sys.exit(2)
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
