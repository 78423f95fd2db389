"""The typed config of `pulse trace` (configs/trace.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pulse.config.schema import knob


@dataclass(frozen=True)
class TraceConfig:
    """The typed config of `pulse trace` (configs/trace.yaml): the run directories to show, the output page,
    its title, episodes read per run, and whether episode details are inlined or written beside the page and
    loaded on demand."""

    # run directories (each with episodes.jsonl), or folders holding run directories
    runs: list[str] = field(default_factory=list)
    # output file ("" = RUN_DIR/trace.html for one run; the first run's parent folder for several)
    out: str = ""
    # page title ("" = the methods and benchmarks shown)
    title: str = ""
    # episodes read per run (0 = all)
    max_episodes: int = knob(0, ge=0)
    # episode details: auto = in the page up to inline_mb, else in <page stem>_episodes/ loaded on
    # demand; always | never
    lazy: Literal["auto", "always", "never"] = "auto"
    inline_mb: float = knob(4.0, ge=0.0)
