"""The typed config of `pulse eval-reading` (configs/eval_reading.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from eval.reading.perturb import REWRITES, Rewrite
from pulse.config.schema import knob
from pulse.llm.endpoint import ChatConfig


@dataclass(frozen=True)
class EvalReadingConfig:
    """What `pulse eval-reading` reads (the annotated set, generated suites' seed statements), with which
    reader (offline, or llm through an OpenAI-compatible endpoint), and where the table goes."""

    # the reader: offline (deterministic, no network) | llm (an OpenAI-compatible endpoint)
    reader: Literal["offline", "llm"] = "offline"
    # the annotated set ("" = eval/reading/data)
    data_dir: str = ""
    # domains of the annotated set ([] = all)
    domains: list[str] = field(default_factory=list)
    # statements of the annotated set to read (0 = all); a stable sample spread over the domains
    limit: int = knob(0, ge=0)
    # generated suites whose seed statements are scored too, at each of `seeds`
    suites: list[str] = field(default_factory=lambda: ["independent_sim", "pibench_sim", "mcp_persona_sim"])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    # the llm reader's endpoint and sampling (temperature 0)
    endpoint: ChatConfig = field(
        default_factory=lambda: ChatConfig(timeout_s=300.0, retries=1, max_tokens=400)
    )
    # the annotated set read again as people also type it (eval/reading/perturb.py), facts lost per
    # rewrite; each rewrite reads the set once more ([] for the llm reader unless its calls are wanted)
    rewrites: list[Rewrite] = field(default_factory=lambda: list(REWRITES))
    # where the result JSON and table go ("" = print only)
    out: str = ""
