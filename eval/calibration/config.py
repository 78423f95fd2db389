"""The typed config of `pulse calibrate-agent` (configs/calibrate_agent.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pulse.config.schema import knob


@dataclass(frozen=True)
class CalibrateConfig:
    """The typed config of `pulse calibrate-agent` (configs/calibrate_agent.yaml): the phase (probe, fit or
    both), the suites and size of the probe set, the output folder and behaviour YAML, the model to probe (a
    local GGUF file or any OpenAI-compatible endpoint), and the probing and bootstrap limits."""

    # probe (run the model), fit (refit recorded probes), all (probe, then fit)
    phase: Literal["probe", "fit", "all"] = "all"
    # the generated suites whose task states the probes use
    suites: list[str] = field(default_factory=lambda: ["pibench_sim", "mcp_persona_sim", "independent_sim"])
    n: int = knob(500, ge=20)  # about how many probes in all (eval/calibration/build.py CONDITIONS)
    seed: int = 0  # the probe set's seed (and the suites')
    out: str = "results/calibration/qwen_coder_1_5b"  # probes.jsonl, meta.json, fit.json, README.md
    # the named behaviour the fit writes ("" = none)
    yaml: str = "configs/agent/behaviour/calibrated_qwen_coder_1_5b.yaml"
    # a local GGUF model served by eval/serving/gguf_server.py ("" = use base_url)
    gguf: str = ""
    name: str = "qwen2.5-coder-1.5b-instruct"  # the served model's name (its pinned sha256)
    sha256: str = "pinned"  # the GGUF file's sha256 ('pinned' = the server's PINNED[name]; '' = no check)
    port: int = knob(8031, ge=1, le=65535)
    threads: int = knob(2, ge=1)
    # any OpenAI-compatible endpoint instead (vLLM on a GPU, a hosted API)
    base_url: str = ""
    model: str = ""  # the model's name on that endpoint ("" = name)
    api_key: str = "EMPTY"
    max_tokens: int = knob(96, ge=8)  # completion cap per probe (greedy)
    limit: int = knob(0, ge=0)  # run at most this many probes now (0 = all left)
    max_minutes: float = knob(0.0, ge=0.0)  # stop cleanly after this long (0 = no limit); rerun resumes
    bootstrap: int = knob(500, ge=10)  # bootstrap resamples of the decay / load / ratio intervals
