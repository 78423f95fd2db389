"""The typed config of `pulse trace` (configs/trace.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pulse.config.schema import knob


@dataclass(frozen=True)
class TraceConfig:
    # run directories (each with episodes.jsonl), or folders holding run directories
    runs: list[str] = field(default_factory=list)
    # output file ("" = RUN_DIR/trace.html for one run; the first run's parent folder for several)
    out: str = ""
    # page title ("" = the methods and benchmarks shown)
    title: str = ""
    # episodes read per run (0 = all)
    max_episodes: int = knob(0, ge=0)
