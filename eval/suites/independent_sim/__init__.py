"""`independent_sim`: an offline suite written independently of Pulse's world, rule and parser.

Why: the other offline suites (pibench_sim, mcp_persona_sim) are generated from the training
world (`data_gen.world`) and the suite generator (`eval/suites/generator.py`), whose texts Pulse's
statement parser recovers exactly and whose checkpoints are the current binding memory value, the
premise of Pulse's gold rule (issue 16). This suite is written from the public task descriptions of
pi-Bench (long-lived professional preferences primed in earlier conversations, hidden intents
revealed mid-task, checklist scoring) and MCP-Persona / Persona2Web (personal, account-bound tools
chained across services; preferences left implicit at three ambiguity levels). It imports none of
`data_gen`, `pulse.core.gold`, `pulse.core.statements`, `eval.suites.generator` (a test checks this
in a fresh interpreter); only the suite records (`eval.suites.schema`, `pulse.core.records`).

What differs from the other suites:
- its own six personas, services, tools, slots and values (vocab.py), none shared with them;
- the seed history is rendered conversation (`Persona.history`) in varied natural language, values
  written as paraphrases ("a seat by the corridor" for `aisle`), the suite's `vocabulary` listing
  every surface form and `conditions` every phrase that names a context;
- situations the other suites lack: conditional preferences (hold only in a named context; a task
  in it needs the value, a task outside it must not use it), inapplicable memory (another context,
  another project's decisions, a colleague's preference, a value the user revealed for one earlier
  task only), revisions that withdraw the old value in words, habits the request overrides, tasks
  where the right thing is to ignore memory (no project; the request overrides every remembered
  value), multi-step plans where a later step must carry an earlier step's executed value, and
  mid-task user messages that change a preference for good or reveal a value for this task only;
- gold answers (one checkpoint per step and argument, with its source) are written when the task is
  generated, from the persona's truth, not derived from any memory store or rule;
- 6 personas x 12-16 tasks of 2-4 steps; stages are the task's third of its persona's chain (late
  tasks carry the accumulated revisions and changes), metric COMP.
"""

from __future__ import annotations

import random

from eval.suites.independent_sim.generator import CATEGORIES, build_persona, conditions, stream, vocabulary
from eval.suites.independent_sim.vocab import PERSONAS
from eval.suites.schema import Suite, SuiteError, load_suite

NAME = "independent_sim"
# 1.1: artifact ids name the service, not the tool; subgoals that echoed a tool's name reworded
# (text only: the random stream keeps its 1.0 key, so every draw and gold value is the same)
VERSION = "1.1"
STREAM = "1.0"  # the random stream's version key
TASKS_PER_PERSONA = (12, 16)  # a chain's length is drawn from this range per persona


def generate(seed: int = 0, personas: tuple[str, ...] = tuple(PERSONAS)) -> Suite:
    out_personas, out_tasks = [], []
    for user in personas:
        if user not in PERSONAS:
            raise SuiteError(f"{NAME}: unknown persona {user!r} (known: {sorted(PERSONAS)})")
        rng = random.Random(stream(NAME, STREAM, seed, user))
        persona, tasks, _ = build_persona(user, rng, rng.randint(*TASKS_PER_PERSONA))
        out_personas.append(persona)
        out_tasks.extend(tasks)
    return Suite(
        NAME,
        VERSION,
        seed,
        tuple(out_personas),
        tuple(out_tasks),
        "comp",
        CATEGORIES,
        vocabulary(),
        conditions(),
    )


def load(cfg):
    """The benchmark loader (eval/registry.py): the suite generated from cfg.seed or read from
    cfg.path, with cfg.personas / cfg.max_tasks applied, behind the benchmark protocol
    (eval/suites/benchmark.py `finish`, as for the other generated suites). The protocol module is
    imported here only: it brings the harness's runtime, which generating the suite never needs."""
    from eval.suites.benchmark import finish

    return finish(load_suite(cfg.path) if cfg.path else generate(int(cfg.seed)), cfg, NAME)
