"""`mcp_persona_sim`: an offline MCP-Persona-style suite over personal apps.

Six personas, each with the same personal apps served as MCP tool servers (email, notes with
Notion/Obsidian/Apple Notes, Lark team collaboration, Rednote social posting, calendar/maps), and
one task per category: 5 single-service and 2 cross-service categories (7, as in MCP-Persona).
Habit-prone slots (which notes app, which maps app) make wrong interventions costly: the user
habitually uses Obsidian, but this task explicitly says Notion. Metric: per-task accuracy, 1 when
every checkpoint passes, 0.5 for partial completion, 0 otherwise.
"""
from __future__ import annotations

import random

from eval.suites.generator import PersonaSpec, build_persona, build_tasks
from eval.suites.schema import Suite, ToolSpec
from eval.suites.vocab_mcp import CATEGORIES, HABIT_PRONE, PERSONA_ROLES, SERVICES

NAME = "mcp_persona_sim"
VERSION = "1.0"


def all_tools() -> list[ToolSpec]:
    return [ToolSpec(name, svc, desc, params, "name", False)
            for svc, tools in SERVICES.items() for name, (desc, params) in tools.items()]


def generate(seed: int = 0, n_personas: int = 6) -> Suite:
    personas, tasks = [], []
    tools = all_tools()
    by_service: dict[str, list[str]] = {}
    for t in tools:
        by_service.setdefault(t.service, []).append(t.name)
    for k in range(n_personas):
        user = f"mcp_user_{k + 1:02d}"
        rng = random.Random(f"{NAME}-{VERSION}-{seed}-{user}")
        spec = PersonaSpec(user, PERSONA_ROLES[k % len(PERSONA_ROLES)], tools, [], [],
                           role_weights=(0.4, 0.15, 0.15, 0.3), habit_prone=tuple(HABIT_PRONE))
        persona, truth, values = build_persona(rng, spec)
        plans = []
        for cat, services in CATEGORIES.items():
            if len(services) == 1:
                seq = [rng.choice(by_service[services[0]]) for _ in range(2)]
            else:
                seq = [rng.choice(by_service[s]) for s in services]
            plans.append((cat, seq))
        rng.shuffle(plans)
        personas.append(persona)
        tasks.extend(build_tasks(rng, spec, truth, values, plans, p_user_message=0.25))
    return Suite(NAME, VERSION, seed, tuple(personas), tuple(tasks), "acc", tuple(CATEGORIES))
