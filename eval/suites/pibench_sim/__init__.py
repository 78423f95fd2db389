"""`pibench_sim`: an offline π-Bench-style suite (five professional personas).

Seed memory is what the one world model (`data_gen.world`, as for the training data) derives from
a year of the persona's tool calls: preferences, habits and revisions from repetition; project
decisions are the suite's own layer (eval/suites/generator.py).

Per persona one multi-session chain of tasks in a persistent workspace and memory, with inter-task
dependencies (project decisions recorded by an earlier task, preferences the user revised in an
earlier task), preferences and decisions that become relevant only mid-task, and deterministic
checklist checkpoints on the final state. COMP = checkpoints passed / total (per task, averaged).

Differences from π-Bench (Simplified-Reasoning/Pi-Bench, arXiv 2605.14678): no LLM user simulator
or judge (hidden intents are scripted user messages at fixed steps; checkpoints are exact argument
checks); tools are a workspace of typed calls, not AppWorld; 8 tasks per persona instead of 20.
"""

from __future__ import annotations

import random

from eval.suites.generator import PersonaSpec, build_persona, build_tasks
from eval.suites.pibench_sim.vocab import PERSONAS
from eval.suites.schema import Suite, ToolSpec, load_suite

NAME = "pibench_sim"
# 2.0: seed memory and gold preferences from data_gen.world (one world model); 2.1: subgoals and
# artifact ids in words of the work, not the tool's name (text only: same random stream, same gold)
VERSION = "2.1"
STREAM = "2.0"  # the random stream's version key: a text-only version keeps every draw


def persona_spec(user: str) -> PersonaSpec:
    if user not in PERSONAS:
        raise ValueError(f"pibench_sim: unknown persona {user!r} (known: {sorted(PERSONAS)})")
    d = PERSONAS[user]
    tools = tuple(
        ToolSpec(name, svc, desc, params, "name", rec)
        for name, (svc, desc, params, rec) in d["tools"].items()
    )
    return PersonaSpec(
        user, d["role"], tools, d["occupation"], d["objects"], tuple(d["projects"]), tuple(d["project_slots"])
    )


def stream(seed: int, user: str) -> str:
    """The persona's random stream (world first, then projects, then tasks)."""
    return f"{NAME}-{STREAM}-{seed}-{user}"


def generate(seed: int = 0, tasks_per_persona: int = 8, personas: tuple[str, ...] = tuple(PERSONAS)) -> Suite:
    out_personas, out_tasks = [], []
    for user in personas:
        spec = persona_spec(user)
        rng = random.Random(stream(seed, user))
        persona, truth, values, _ = build_persona(rng, spec)
        work_tools = [t.name for t in spec.tools if not t.records_decision]
        plans = []
        for _ in range(tasks_per_persona):
            n = rng.randint(4, 6)
            plans.append(("professional", [rng.choice(work_tools) for _ in range(n)]))
        out_personas.append(persona)
        out_tasks.extend(build_tasks(rng, spec, truth, values, plans))
    return Suite(NAME, VERSION, seed, tuple(out_personas), tuple(out_tasks), "comp", ("professional",))


def load(cfg):
    """The benchmark loader (eval/registry.py): the suite generated from cfg.seed or read from
    cfg.path, with cfg.personas / cfg.max_tasks applied, behind the benchmark protocol
    (eval/suites/benchmark.py `finish`). The protocol module is imported here only: it brings the
    harness's runtime, which generating the suite never needs."""
    from eval.suites.benchmark import finish

    return finish(load_suite(cfg.path) if cfg.path else generate(int(cfg.seed)), cfg, NAME)
