"""`pibench_sim`: an offline π-Bench-style suite (five professional personas).

Per persona one multi-session chain of tasks in a persistent workspace and memory, with inter-task
dependencies (project decisions recorded by an earlier task, preferences the user revised in an
earlier task), preferences and decisions that become relevant only mid-task, and deterministic
checklist checkpoints on the final state. COMP = checkpoints passed / total (per task, averaged).

Differences from π-Bench (../shared/reference/pibench.md): no LLM user simulator or judge (hidden
intents are scripted user messages at fixed steps; checkpoints are exact argument checks); tools
are a workspace of typed calls, not AppWorld; 8 tasks per persona instead of 20.
"""
from __future__ import annotations

import random

from eval.suites.generator import PersonaSpec, build_persona, build_tasks
from eval.suites.schema import Suite, ToolSpec
from eval.suites.vocab_pibench import PERSONAS

NAME = "pibench_sim"
VERSION = "1.0"


def generate(seed: int = 0, tasks_per_persona: int = 8, personas: tuple[str, ...] = tuple(PERSONAS)) -> Suite:
    out_personas, out_tasks = [], []
    for user in personas:
        if user not in PERSONAS:
            raise ValueError(f"pibench_sim: unknown persona {user!r} (known: {sorted(PERSONAS)})")
        d = PERSONAS[user]
        rng = random.Random(f"{NAME}-{VERSION}-{seed}-{user}")
        tools = [ToolSpec(name, svc, desc, params, "name", rec) for name, (svc, desc, params, rec) in d["tools"].items()]
        spec = PersonaSpec(user, d["role"], tools, d["projects"], d["project_slots"])
        persona, truth, values = build_persona(rng, spec)
        work_tools = [t.name for t in tools if not t.records_decision]
        plans = []
        for _ in range(tasks_per_persona):
            n = rng.randint(4, 6)
            plans.append(("professional", [rng.choice(work_tools) for _ in range(n)]))
        out_personas.append(persona)
        out_tasks.extend(build_tasks(rng, spec, truth, values, plans))
    return Suite(NAME, VERSION, seed, tuple(out_personas), tuple(out_tasks), "comp", ("professional",))
