"""The offline suites on the one world model: `data_gen.world` plus a suite layer for projects and tasks.

World layer (`data_gen.world`, the same code and parameters as the policy training data):
  the persona's tools become data the world understands, one `DomainSpec` per service
  (`service_domains`: one slot per tool argument that has >= 3 values and is not a project
  decision; the argument's first value is the slot's `default`, so held preferences and habits
  differ from what an uninformed agent guesses; history entries are `tool_call`s, the service is
  their website). Then `make_persona` (the ground truth per slot: preference, revised preference,
  habit or no pattern) -> `generate_history` (a year of typed tool calls in which the truth shows
  only as repetition) -> `derive_facts` + `attribute_facts` (preferences, habits and revisions
  derived back from the repetition; profile attributes) -> `to_memory_items`: the persona's
  user-scope seed memory (scope `user:<user_id>`). A revision is a supersession chain as in the
  training data: the old item's valid_to is the new item's valid_from and the new one `supersedes`
  it. Gold preference values and their sources come from the derived facts: a current derived
  preference is `preference`, one that supersedes an older version `revised`, a derived habit is
  overridden explicitly by the task (`habit_override`); a slot without a derived fact (no pattern,
  a service without history, an argument with fewer than 3 values) is free: the request states it
  (`explicit`) or nothing does (`default`).

Suite layer (this module; the world has no projects and no multi-step tool plans):
  - project decisions: per project, seeded `project_state` items (scope `project:<id>`; the two
    projects of a persona disagree on some slots, so isolation matters) and decisions that an
    earlier task's `approve_plan` receipt records (later tasks of the project depend on it);
  - tasks in execution order, each a plan of tool calls with labelled argument sources
    (`schema.py`), levels 1-3 (L1 refers to remembered preferences as "my usual ...", L2 leaves
    them unmentioned, L3 states them), mid-task user messages that revise a preference (written
    back at task end; later tasks depend on that task and the value's source becomes `revised`),
    and one checkpoint per (step, argument) on the final workspace.
Request and message texts are written so that `pulse.core.statements.parse_statement` with the
tools' vocabulary (`eval.methods.pulse_method.tools_vocab`) recovers exactly `request_args` and
`user_message`. Memory ids are "m1".."mN" over the whole seed memory in a shuffled order, as in
the training data's snapshots, so an id says nothing about an item's role.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from data_gen.config import GenDataConfig
from data_gen.world.domains import TOOL_HISTORY_TYPES, DomainSpec, SlotSpec
from data_gen.world.history import HistoryEntry, HistoryParams, generate_history
from data_gen.world.memory_items import to_memory_items
from data_gen.world.personas import Persona as WorldPersona
from data_gen.world.personas import PersonaParams, make_persona
from data_gen.world.preferences import UserFact, attribute_facts, derive_facts
from eval.suites.schema import ArgSpec, Checkpoint, Persona, SimTask, StepSpec, ToolSpec
from pulse.core.records import MemoryItem, Provenance

# The world parameters of the training data's default config: one world, not a suite-tuned one.
WORLD_PERSONA: PersonaParams = GenDataConfig().persona_params()
WORLD_HISTORY: HistoryParams = GenDataConfig().history_params()
# Suite-layer dates: seeded project decisions fall in the history year, tasks come after it.
HISTORY_START = WORLD_HISTORY.start_date
TASK_START = "2025-01-06"


@dataclass(frozen=True)
class PersonaSpec:
    """A suite persona as data: tools (the world's domains come from them) and its projects."""

    user_id: str
    role: str
    tools: tuple[ToolSpec, ...]
    occupation: str = ""  # the world persona's occupation attribute ("" = drawn)
    # service -> what the user's past calls there were about (history objects)
    objects: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    projects: tuple[str, ...] = ()
    project_slots: tuple[str, ...] = ()  # arguments that are project decisions, not user preferences
    habit_prone: tuple[str, ...] = ()  # arguments that are habits more often (DomainSpec.habit_prone)


@dataclass(frozen=True)
class UserWorld:
    """What `data_gen.world` generates for one suite persona."""

    persona: WorldPersona
    domains: dict[str, DomainSpec]
    history: tuple[HistoryEntry, ...]
    facts: tuple[UserFact, ...]  # derived preferences / habits / revisions, then profile attributes


@dataclass
class _Truth:
    """The gold state a task chain reads and updates (derived facts + the suite's projects)."""

    pref: dict[str, str] = field(default_factory=dict)
    pref_source: dict[str, str] = field(default_factory=dict)  # preference | revised
    pref_set_by: dict[str, str] = field(default_factory=dict)  # slot -> task id that revised it
    habit: dict[str, str] = field(default_factory=dict)
    project: dict[str, dict[str, str]] = field(default_factory=dict)
    project_set_by: dict[tuple[str, str], str] = field(default_factory=dict)


def _words(slot: str) -> str:
    return slot.replace("_", " ")


def _stage(i: int, n: int) -> str:
    return "early" if i < n / 3 else ("middle" if i < 2 * n / 3 else "late")


def _day(start: str, days: int) -> str:
    return f"{(date.fromisoformat(start) + timedelta(days=days)).isoformat()}T09:00:00"


# -- world layer -------------------------------------------------------------------------------
def service_domains(spec: PersonaSpec) -> dict[str, DomainSpec]:
    """One `DomainSpec` per service of the persona's work tools (the decision tool is no service)."""
    by_service: dict[str, list[ToolSpec]] = {}
    for t in spec.tools:
        if not t.records_decision:
            by_service.setdefault(t.service, []).append(t)
    owner: dict[str, str] = {}
    out: dict[str, DomainSpec] = {}
    for service, tools in by_service.items():
        slots: dict[str, SlotSpec] = {}
        for t in tools:
            for p, values in t.params.items():
                if p in spec.project_slots or len(set(values)) < 3 or p in slots:
                    continue
                if owner.setdefault(p, service) != service:
                    raise ValueError(
                        f"persona {spec.user_id}: argument {p!r} belongs to services {owner[p]!r} and "
                        f"{service!r}; a user preference is one memory fact per argument"
                    )
                w = _words(p)
                slots[p] = SlotSpec(
                    p, tuple(values), f"with {w} {{v}}", f"with my usual {w}", default=values[0]
                )
        if not slots:  # only project decisions / two-valued arguments: no user history here
            continue
        objects = tuple(spec.objects.get(service, ())) or tuple(_words(t.name) for t in tools)
        out[service] = DomainSpec(
            service,
            service,
            objects,
            tuple(slots.values()),
            tools[0].name,
            tools[-1].name,
            TOOL_HISTORY_TYPES,
            "Use",
            site_slot="",
            habit_prone=tuple(s for s in slots if s in spec.habit_prone),
        )
    return out


def user_world(spec: PersonaSpec, rng: random.Random) -> UserWorld:
    """The `data_gen.world` pipeline for one suite persona: persona -> history -> derived facts."""
    domains = service_domains(spec)
    persona = replace(
        make_persona(0, rng, domains, WORLD_PERSONA, occupation=spec.occupation), user_id=spec.user_id
    )
    history = generate_history(persona, domains, rng, WORLD_HISTORY)
    facts = derive_facts(history) + attribute_facts(persona)
    return UserWorld(persona, domains, history, facts)


def tool_values(tools) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for t in tools:
        for p, vs in t.params.items():
            values.setdefault(p, list(vs))
    return values


def build_persona(
    rng: random.Random, spec: PersonaSpec
) -> tuple[Persona, _Truth, dict[str, list[str]], UserWorld]:
    """Seed memory: the world's derived user facts plus the suite's project decisions."""
    values = tool_values(spec.tools)
    world = user_world(spec, rng)
    truth = _Truth()
    for f in world.facts:
        if f.kind == "preference" and f.is_current:
            truth.pref[f.slot] = f.value
            truth.pref_source[f.slot] = "revised" if f.supersedes else "preference"
        elif f.kind == "habit":
            truth.habit[f.slot] = f.value
    # suite layer: seeded project decisions (the first project has every decision, others some)
    decisions: list[tuple[str, str, str, str]] = []  # (project, slot, value, valid_from)
    for j, proj in enumerate(spec.projects):
        truth.project[proj] = {}
        for slot in spec.project_slots:
            v = rng.choice(values[slot])
            if j == 0 or rng.random() < 0.5:
                truth.project[proj][slot] = v
                decisions.append((proj, slot, v, _day(HISTORY_START, rng.randrange(200, 320))))
    keys = [f.key for f in world.facts] + [f"project:{p}.{s}" for p, s, _, _ in decisions]
    rng.shuffle(keys)
    ids = {k: f"m{i + 1}" for i, k in enumerate(keys)}
    labels = {d.name: d.label for d in world.domains.values()}
    mem = list(to_memory_items(world.facts, ids, f"user:{spec.user_id}", labels))
    for proj, slot, v, when in decisions:
        mem.append(
            MemoryItem(
                ids[f"project:{proj}.{slot}"],
                "project_state",
                f"project:{proj}",
                f"Project {proj} decided {_words(slot)} = {v}.",
                slot,
                v,
                proj,
                (slot, proj),
                "",
                Provenance("tool_receipt"),
                when,
            )
        )
    return Persona(spec.user_id, spec.role, tuple(mem), tuple(spec.tools)), truth, values, world


# -- suite layer: tasks ------------------------------------------------------------------------
def request_text(head: str, subgoals: list[str], request_args: Mapping[str, str]) -> str:
    """The request: the plan, the stated values, then the values referred to as the user's usual."""
    stated = "; ".join(f"use {_words(s)} {v}" for s, v in request_args.items() if v != "?")
    implicit = "; ".join(f"use my usual {_words(s)}" for s, v in request_args.items() if v == "?")
    return (
        f"[{head}] Please {', then '.join(subgoals)}."
        + (f" Constraints: {stated}." if stated else "")
        + (f" Also {implicit}." if implicit else "")
    )


def work_subgoal(spec: PersonaSpec, tool, k: int, artifact: str) -> str:
    """A step's subgoal in words of the work, not of the tool: what the persona's past calls in the
    tool's service were about (`spec.objects`), the k-th of them; a decision tool settles the
    project's open decisions. No random draw (the suite's random stream is unchanged)."""
    if tool.records_decision:
        return f"settle the open project decisions '{artifact}'"
    values = {v.lower().replace("_", " ") for t in spec.tools for vs in t.params.values() for v in vs}
    objs = tuple(
        o
        for o in spec.objects.get(tool.service, ())
        if not any(re.search(rf"\b{re.escape(v)}\b", o.lower()) for v in values)
    )  # an object that names a tool value ("a monthly client letter") would state it
    if not objs:
        return f"take care of the {tool.service} work '{artifact}'"
    return f"prepare {objs[k % len(objs)]} '{artifact}'"


def message_text(slot: str, value: str) -> str:
    return f"By the way, from now on my preferred {_words(slot)} is {value}."


def build_tasks(
    rng: random.Random,
    spec: PersonaSpec,
    truth: _Truth,
    values: dict[str, list[str]],
    plans: list[tuple[str, list[str]]],
    p_user_message: float = 0.35,
    level_weights: tuple[float, float, float] = (0.4, 0.45, 0.15),
) -> list[SimTask]:
    """The persona's tasks in execution order, one per plan (category, tools), each in stages: its
    project, level and steps' tools (a decision step first when the project has an undecided
    slot), the gold values (`_task_gold`), a mid-task message (`_user_message`), the steps and
    checkpoints (`_task_steps`); then the truth the later tasks read is updated."""
    tools = {t.name: t for t in spec.tools}
    decision_tool = next((t for t in spec.tools if t.records_decision), None)
    tasks: list[SimTask] = []
    for ti, (category, tool_seq) in enumerate(plans):
        u = spec.user_id
        task_id = f"{u}_task_{ti + 1:03d}"
        proj = spec.projects[ti % len(spec.projects)] if spec.projects else ""
        level = rng.choices([1, 2, 3], level_weights)[0]
        seq = list(tool_seq)
        undecided = [s for s in spec.project_slots if proj and s not in truth.project.get(proj, {})]
        if undecided and decision_tool is not None:
            seq = [decision_tool.name] + seq
        steps_tools = [tools[name] for name in seq]
        gold, request_args, deps = _task_gold(rng, spec, truth, values, steps_tools, proj, level)
        msg = _user_message(rng, truth, values, steps_tools, gold, p_user_message)
        steps, cps = _task_steps(spec, values, task_id, ti, steps_tools, gold, msg)
        for slot in undecided:
            truth.project[proj][slot] = gold[slot][0]
            truth.project_set_by[(proj, slot)] = task_id
        _, msg_slot, msg_value = msg
        if msg_slot:
            truth.pref[msg_slot] = msg_value
            truth.pref_set_by[msg_slot] = task_id
        text = request_text(proj or category, [s.subgoal for s in steps], request_args)
        tasks.append(
            SimTask(
                task_id,
                u,
                proj,
                category,
                ti + 1,
                _day(TASK_START, ti),
                level,
                text,
                request_args,
                tuple(steps),
                tuple(cps),
                tuple(sorted(deps)),
                category,
            )
        )
    return tasks


def _task_gold(
    rng: random.Random,
    spec: PersonaSpec,
    truth: _Truth,
    values: dict[str, list[str]],
    seq: list[ToolSpec],
    proj: str,
    level: int,
) -> tuple[dict[str, tuple[str, str]], dict[str, str], set[str]]:
    """Each argument's gold (value, source) for one task, what its request states (`request_args`,
    "?" = "my usual") and the earlier tasks whose changes it reads."""
    deps: set[str] = set()
    gold: dict[str, tuple[str, str]] = {}  # slot -> (value, source) for this task
    request_args: dict[str, str] = {}
    for slot in dict.fromkeys(p for t in seq for p in t.params):
        if slot in spec.project_slots:
            if slot in truth.project.get(proj, {}):
                gold[slot] = (truth.project[proj][slot], "project")
                if (proj, slot) in truth.project_set_by:
                    deps.add(truth.project_set_by[(proj, slot)])
            else:  # decided in this task's approve_plan step, stated by the user
                v = rng.choice(values[slot])
                gold[slot] = (v, "explicit")
                request_args[slot] = v
        elif slot in truth.pref:  # a derived (or since revised) preference
            src = truth.pref_source[slot]
            if slot in truth.pref_set_by:
                deps.add(truth.pref_set_by[slot])
                src = "revised"
            gold[slot] = (truth.pref[slot], src)
            if level == 3:
                gold[slot] = (truth.pref[slot], "explicit")
                request_args[slot] = truth.pref[slot]
            elif level == 1:
                request_args[slot] = "?"
        elif slot in truth.habit:  # a derived habit: this task asks for something else
            v = rng.choice([x for x in values[slot] if x != truth.habit[slot]])
            gold[slot] = (v, "habit_override")
            request_args[slot] = v
        elif rng.random() < 0.5:
            v = rng.choice(values[slot])
            gold[slot] = (v, "explicit")
            request_args[slot] = v
        else:
            gold[slot] = (values[slot][0], "default")
    if level == 3:
        for slot, (v, src) in list(gold.items()):
            if src == "project":
                gold[slot] = (v, "explicit")
                request_args[slot] = v
    return gold, request_args, deps


def _user_message(
    rng: random.Random,
    truth: _Truth,
    values: dict[str, list[str]],
    seq: list[ToolSpec],
    gold: Mapping[str, tuple[str, str]],
    p_user_message: float,
) -> tuple[int, str, str]:
    """A mid-task user message revising a preference used from step >= 1 on: (step, slot, value),
    or (-1, "", "") for none."""
    if rng.random() < p_user_message and len(seq) >= 3:
        cands = [
            (i, s)
            for i, t in enumerate(seq)
            if i >= 1
            for s in t.params
            if s in truth.pref and gold[s][1] != "explicit"
        ]
        if cands:
            msg_at, msg_slot = rng.choice(cands)
            return msg_at, msg_slot, rng.choice([x for x in values[msg_slot] if x != truth.pref[msg_slot]])
    return -1, "", ""


def _task_steps(
    spec: PersonaSpec,
    values: dict[str, list[str]],
    task_id: str,
    ti: int,
    seq: list[ToolSpec],
    gold: Mapping[str, tuple[str, str]],
    msg: tuple[int, str, str],
) -> tuple[list[StepSpec], list[Checkpoint]]:
    """The task's steps and one checkpoint per (step, argument); from the message's step on, its slot
    takes the message's value (source `user_message`)."""
    msg_at, msg_slot, msg_value = msg
    steps, cps = [], []
    n = len(seq)
    for i, t in enumerate(seq):
        # named by the work's service, not the tool ("docs-3-1", not "write_section-3-1")
        artifact = f"{t.service}-{ti + 1}-{i + 1}"
        args = []
        umsg: dict[str, str] = {}
        utext = ""
        if i == msg_at:
            umsg = {msg_slot: msg_value}
            utext = message_text(msg_slot, msg_value)
        for slot in t.params:
            v, src = gold[slot]
            if msg_at >= 0 and slot == msg_slot and i >= msg_at:
                v, src = msg_value, "user_message"
            args.append(ArgSpec(slot, v, src, values[slot][0]))
            cps.append(Checkpoint(f"{task_id}:{i + 1}:{slot}", artifact, slot, v, _stage(i, n), src))
        steps.append(
            StepSpec(
                f"{task_id}:{i + 1}",
                t.name,
                artifact,
                work_subgoal(spec, t, ti + i, artifact),
                tuple(args),
                _stage(i, n),
                umsg,
                utext,
            )
        )
    return steps, cps
