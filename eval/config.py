"""Typed, frozen configs for `pulse eval` (converted once from hydra's DictConfig at the top)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pulse.config.schema import PolicyBackendConfig


@dataclass(frozen=True)
class BenchmarkConfig:
    name: str = "pibench_sim"
    seed: int = 0  # suite generation seed (fixed: the suite is versioned by name, version, seed)
    path: str = ""  # a suite JSON file to load instead of generating
    transport: str = "direct"  # direct | mcp (tools served by real MCP servers)
    max_tasks: int = 0  # 0 = all; >0 keeps the first N tasks of each persona chain
    personas: list[str] = field(default_factory=list)  # [] = all


@dataclass(frozen=True)
class MethodConfig:
    name: str = "pulse"
    impl: str = "pulse"
    memory: str = "structured"  # pulse.memory kind: structured | flat | flat_user | flat_project
    policy: str = "trained"  # trained | base | rule
    mode: str = "streaming"
    allow_intervene: bool = True
    initial_personalization: bool = True
    writeback: bool = True
    retrieve_k: int = 6


@dataclass(frozen=True)
class AgentConfig:
    name: str = "simulated"
    behaviour: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    base_url: str = ""
    api_key: str = "EMPTY"
    max_turns: int = 12
    temperature: float = 0.0
    max_tokens: int = 256
    retries: int = 3
    backoff_s: float = 0.5
    timeout_s: float = 60.0
    concurrent: bool = False


@dataclass(frozen=True)
class EvalConfig:
    out_dir: str = "outputs/eval/run"
    seed: int = 0
    experiment: str = ""  # e.g. table1/pulse; a label carried into rows and tables
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)
    method: MethodConfig = field(default_factory=MethodConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    policy: PolicyBackendConfig = field(default_factory=PolicyBackendConfig)
    base_policy: PolicyBackendConfig = field(default_factory=PolicyBackendConfig)
    resume: bool = True
    retry_failed: bool = False
    progress: bool = True
    # exit 0 even when an episode failed (the summary and tables still carry and mark the failures)
    allow_failures: bool = False
