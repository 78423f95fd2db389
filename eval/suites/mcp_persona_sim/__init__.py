"""`mcp_persona_sim`: an offline MCP-Persona-style suite over personal apps.

Six personas, each with the same personal apps served as MCP tool servers (email, notes with
Notion/Obsidian/Apple Notes, Lark team collaboration, Rednote social posting, calendar/maps), and
one task per category: 5 single-service and 2 cross-service categories (7, as in MCP-Persona).
Seed memory is what the one world model (`data_gen.world`, as for the training data) derives from a
year of the persona's app use (one world domain per service; eval/suites/generator.py).
Habit-prone slots (which notes app, which maps app) make wrong interventions costly: the user
habitually uses Obsidian, but this task explicitly says Notion. Metric: per-task accuracy, 1 when
every checkpoint passes, 0.5 for partial completion, 0 otherwise.
"""

from __future__ import annotations

import random

from eval.suites.generator import PersonaSpec, build_persona, build_tasks
from eval.suites.mcp_persona_sim.vocab import (
    CATEGORIES,
    HABIT_PRONE,
    PERSONA_ROLES,
    SERVICE_OBJECTS,
    SERVICES,
)
from eval.suites.schema import Suite, ToolSpec, load_suite

NAME = "mcp_persona_sim"
# 2.0: seed memory and gold preferences from data_gen.world (one world model); 2.1: subgoals and
# artifact ids in words of the work, not the tool's name (text only: same random stream, same gold)
VERSION = "2.1"
STREAM = "2.0"  # the random stream's version key: a text-only version keeps every draw


def all_tools() -> list[ToolSpec]:
    return [
        ToolSpec(name, svc, desc, params, "name", False)
        for svc, tools in SERVICES.items()
        for name, (desc, params) in tools.items()
    ]


def user_id(k: int) -> str:
    return f"mcp_user_{k + 1:02d}"


def persona_spec(k: int) -> PersonaSpec:
    role = PERSONA_ROLES[k % len(PERSONA_ROLES)]
    return PersonaSpec(
        user_id(k), role, tuple(all_tools()), role, SERVICE_OBJECTS, habit_prone=tuple(HABIT_PRONE)
    )


def stream(seed: int, user: str) -> str:
    """The persona's random stream (world first, then tasks)."""
    return f"{NAME}-{STREAM}-{seed}-{user}"


def generate(seed: int = 0, n_personas: int = 6) -> Suite:
    personas, tasks = [], []
    by_service: dict[str, list[str]] = {}
    for t in all_tools():
        by_service.setdefault(t.service, []).append(t.name)
    for k in range(n_personas):
        spec = persona_spec(k)
        rng = random.Random(stream(seed, spec.user_id))
        persona, truth, values, _ = build_persona(rng, spec)
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


def load(cfg):
    """The benchmark loader (eval/registry.py): the suite generated from cfg.seed or read from
    cfg.path, with cfg.personas / cfg.max_tasks applied, behind the benchmark protocol
    (eval/suites/benchmark.py `finish`). The protocol module is imported here only: it brings the
    harness's runtime, which generating the suite never needs."""
    from eval.suites.benchmark import finish

    return finish(load_suite(cfg.path) if cfg.path else generate(int(cfg.seed)), cfg, NAME)
