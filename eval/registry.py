"""Name -> factory registries for benchmarks, methods and task agents (command-line boundary only).

Add a memory baseline: write `eval/methods/<name>.py` with `build(cfg, ctx) -> Method`, add one
line here and one `configs/method/<name>.yaml` with `impl: <name>`.
"""

from __future__ import annotations

from typing import Any

from pulse.registry import Registry

BENCHMARKS: Registry[Any] = Registry(
    "benchmark",
    {
        "pibench_sim": "eval.suites.pibench_sim:load",
        "mcp_persona_sim": "eval.suites.mcp_persona_sim:load",
        "independent_sim": "eval.suites.independent_sim:load",
        # any suite JSON under its own name and version (benchmark.path=FILE)
        "suite_file": "eval.suites.suite_file:load",
        "tau2_retail": "eval.real.tau2_retail:load",
        "pibench": "eval.real.pibench:load",
        "persona2web": "eval.real.persona2web:load",
        # TEMPLATE, not a result: the folder a new benchmark is copied from (never tabulated)
        "mock": "eval.real.mock:load",
    },
)

METHODS: Registry[Any] = Registry(
    "method",
    {
        "none": "eval.methods.none:build",
        "pulse": "eval.methods.pulse_method:build",
        "mem0": "eval.methods.mem0:build",
        "openclaw": "eval.methods.openclaw:build",
        "dsh": "eval.methods.dsh:build",
        "pma": "eval.methods.pma:build",
        "lightmem": "eval.methods.lightmem:build",
        "a_mem": "eval.methods.a_mem:build",
        "zcode": "eval.methods.zcode:build",
        "gold_facts": "eval.methods.gold_facts:build",
    },
)

AGENTS: Registry[Any] = Registry(
    "task agent",
    {
        "simulated": "eval.agents.simulated:build",
        "openai": "eval.agents.llm_tool_agent:build",
        "scripted": "eval.agents.scripted:build",
        "memory_following": "eval.agents.memory_following:build",
    },
)
