"""Offline suite records: personas (seed memory, tools), tasks (steps, checkpoints) and their
validated JSON form. A suite file that does not validate fails with an error naming the file, the
record (persona / task / step) and the key.

A task is a plan of tool calls ("steps"). Each step's arguments are *slots* with a gold value and
a source saying where a capable agent would learn it:
  explicit        stated in the request
  preference      a current user preference in memory; the request leaves it implicit
  revised         a preference revised in the past (memory holds the old and the new value)
  habit_override  the user has a habit for this slot, but the request explicitly asks otherwise
                  (a wrong intervention here misleads the agent: the Notion-vs-Obsidian case)
  project         a decision in project memory (seeded, or made by an earlier task: a dependency)
  user_message    the user states it mid-task (a hidden intent revealed at that step); it is
                  written to memory at task end and later tasks depend on it
  default         nothing says otherwise; gold is the slot's default (the agent's prior guess)
  conditional     a preference that holds only in a named context (`SimTask.context` has it)
  inapplicable    memory holds a value for this slot that must not be used here (another context,
                  project or user); gold is what the request or the default implies
  carried         the value an earlier step executed (`ArgSpec.carry_from = "<step_id>.<slot>"`):
                  an early choice constrains a later one
A persona's seed history (`Persona.history`, rendered past conversations) is what every method
builds its memory from; a suite without one has it rendered from `Persona.memory` by one routine
(eval/methods/seed.py). `Suite.vocabulary` lists every surface form the suite's texts use for each
canonical value and `Suite.conditions` the phrases that name each context: the suite's own reader
(eval/suites/reader.py) reads what any method delivers with them.
Checkpoints are checked deterministically on the final workspace state; each has a weight (default 1,
as a pi-Bench checklist criterion) used by the task score.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pulse.core.errors import PulseUserError
from pulse.core.records import MemoryItem, RecordError
from pulse.utils.json_input import read_json_file

ARG_SOURCES = (
    "explicit",
    "preference",
    "revised",
    "habit_override",
    "project",
    "user_message",
    "default",
    "conditional",
    "inapplicable",
    "carried",
)
STAGES = ("early", "middle", "late")


class SuiteError(PulseUserError, ValueError):
    """A suite or task file failed validation; the message names file, record and key."""


@dataclass(frozen=True)
class ToolSpec:
    """A persona's tool: its service and description, the allowed values of each argument (the
    artifact argument takes any string), and whether its receipt records a project decision."""

    name: str
    service: str
    description: str
    # argument name -> allowed values; the artifact argument takes any string
    params: dict[str, list[str]]
    artifact_param: str = "name"
    # a tool whose receipt confirms a project decision (its result carries decision.<slot> fields)
    records_decision: bool = False

    def json_schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {self.artifact_param: {"type": "string", "description": "artifact name"}}
        for p, values in self.params.items():
            props[p] = {"type": "string", "enum": list(values)}
        return {"type": "object", "properties": props, "required": [self.artifact_param, *self.params]}


@dataclass(frozen=True)
class SeedTurn:
    """One turn of a past conversation; a tool turn names the tool and carries its receipt's fields."""

    role: str  # "user" | "assistant" | "tool"
    text: str
    tool: str = ""  # tool turns: the tool whose receipt this is
    args: dict[str, str] = field(default_factory=dict)  # tool turns: the receipt's fields


@dataclass(frozen=True)
class SeedSession:
    """One past conversation: when, in which scope ("user:<id>" or "project:<id>"), what was said."""

    time: str
    scope: str
    turns: tuple[SeedTurn, ...]
    project_id: str = ""

    @property
    def date(self) -> str:
        return self.time[:10]


@dataclass(frozen=True)
class ArgSpec:
    """One argument of a step: its slot, gold value, the source a capable agent learns it from
    (ARG_SOURCES), and the default an uninformed agent guesses."""

    slot: str
    gold: str
    source: str
    default: str  # the agent's prior guess when nothing informs it
    carry_from: str = ""  # source "carried": "<step_id>.<slot>" of the earlier step whose value it takes


@dataclass(frozen=True)
class StepSpec:
    """One planned tool call of a task: the tool, the artifact it writes, its subgoal, its arguments,
    its stage, and the user's message right before it (if any)."""

    step_id: str
    tool: str
    artifact: str
    subgoal: str
    args: tuple[ArgSpec, ...]
    stage: str
    # the user's message right before this step (slot -> value), "" text when none
    user_message: dict[str, str] = field(default_factory=dict)
    user_message_text: str = ""


@dataclass(frozen=True)
class Checkpoint:
    """What the final workspace must hold: the expected value of one slot of one artifact, with the
    stage and source of the argument it checks and its weight in the task score."""

    checkpoint_id: str
    artifact: str
    slot: str
    expected: str
    stage: str
    source: str
    # the criterion's weight in the task score (pi-Bench: a checklist criterion's YAML weight,
    # default 1): COMP_t = sum(w * passed) / sum(w) (eval.suites.scoring.task_score)
    weight: float = 1.0


@dataclass(frozen=True)
class SimTask:
    """One task of a persona's chain: the request (its text and the values it states), the plan of
    steps, the checkpoints, and the earlier tasks whose outcome it depends on."""

    task_id: str
    user_id: str
    project_id: str
    category: str
    session: int
    time: str
    level: int  # 1 implicit .. 3 explicit (Persona2Web levels)
    request_text: str
    request_args: dict[str, str]  # explicit slot values; "?" = referred to but left implicit
    steps: tuple[StepSpec, ...]
    checkpoints: tuple[Checkpoint, ...]
    depends_on: tuple[str, ...] = ()
    topic: str = ""
    context: tuple[str, ...] = ()  # the named contexts that hold for this task (conditional preferences)


@dataclass(frozen=True)
class Persona:
    """A suite persona: the user, the seed memory, the tools, and the rendered past conversations
    every method builds its memory from."""

    user_id: str
    role: str
    memory: tuple[MemoryItem, ...]
    tools: tuple[ToolSpec, ...]
    # rendered past conversations every method builds its memory from (empty: rendered from `memory`)
    history: tuple[SeedSession, ...] = ()


@dataclass(frozen=True)
class Suite:
    """An offline suite: personas and their task chains (in execution order), the metric, and the
    surface forms and context phrases its reader reads deliveries with."""

    name: str
    version: str
    seed: int
    personas: tuple[Persona, ...]
    tasks: tuple[SimTask, ...]  # in execution order; a persona's tasks form one chain
    metric: str = "comp"  # comp (checkpoints passed / total) | acc (1 / 0.5 partial / 0 per task)
    categories: tuple[str, ...] = ()
    # slot -> canonical value -> every surface form the suite's texts use for it (empty: the tools' enums)
    vocabulary: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # context tag -> the phrases that name it (conditional preferences)
    conditions: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def persona(self, user_id: str) -> Persona:
        for p in self.personas:
            if p.user_id == user_id:
                return p
        raise SuiteError(f"suite {self.name}: no persona {user_id!r}")

    def chains(self) -> dict[str, list[SimTask]]:
        out: dict[str, list[SimTask]] = {}
        for t in self.tasks:
            out.setdefault(t.user_id, []).append(t)
        return out

    # -- serialisation ----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["personas"] = [{**asdict(p), "memory": [m.to_dict() for m in p.memory]} for p in self.personas]
        return d

    def save(self, path: str | Path) -> None:
        from pulse.utils.atomic import atomic_write_text

        atomic_write_text(path, json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n")


def _need(d: Mapping[str, Any], key: str, typ, where: str):
    if not isinstance(d, Mapping):
        raise SuiteError(f"{where}: expected an object, got {type(d).__name__}")
    if key not in d:
        raise SuiteError(f"{where}: missing key {key!r}")
    v = d[key]
    if typ is not None and not isinstance(v, typ):
        raise SuiteError(
            f"{where}: key {key!r} must be {getattr(typ, '__name__', typ)}, got {type(v).__name__}"
        )
    return v


def suite_from_json(d: Mapping[str, Any], where: str = "suite") -> Suite:
    """A suite from its JSON form, validated record by record (personas, then tasks in order, then
    the vocabulary); the first bad key raises a SuiteError naming `where`, the record and the key."""
    personas = [
        _persona_from_json(p, f"{where}: personas[{i}]")
        for i, p in enumerate(_need(d, "personas", list, where))
    ]
    by_user = {p.user_id: p for p in personas}
    tasks: list[SimTask] = []
    seen: set[str] = set()
    for i, t in enumerate(_need(d, "tasks", list, where)):
        tasks.append(_task_from_json(t, i, where, by_user, seen))
        seen.add(tasks[-1].task_id)
    metric = d.get("metric", "comp")
    if metric not in ("comp", "acc"):
        raise SuiteError(f"{where}: metric {metric!r} not in ('comp', 'acc')")
    vocabulary = {}
    for slot, values in (d.get("vocabulary") or {}).items():
        if not isinstance(values, Mapping):
            raise SuiteError(f"{where}: vocabulary[{slot!r}] must map values to lists of surface forms")
        vocabulary[slot] = {
            v: tuple(_strings(forms, f"{where}: vocabulary[{slot!r}][{v!r}]")) for v, forms in values.items()
        }
    conditions = {
        tag: tuple(_strings(ph, f"{where}: conditions[{tag!r}]"))
        for tag, ph in (d.get("conditions") or {}).items()
    }
    return Suite(
        _need(d, "name", str, where),
        _need(d, "version", str, where),
        int(d.get("seed", 0)),
        tuple(personas),
        tuple(tasks),
        metric,
        tuple(d.get("categories", ())),
        vocabulary,
        conditions,
    )


def _persona_from_json(p: Any, pw: str) -> Persona:
    tools = [_tool_from_json(t, f"{pw}.tools[{j}]") for j, t in enumerate(_need(p, "tools", list, pw))]
    try:
        memory = tuple(
            MemoryItem.from_dict(m, f"{pw}.memory[{k}]") for k, m in enumerate(_need(p, "memory", list, pw))
        )
    except RecordError as e:
        raise SuiteError(str(e)) from None
    history = tuple(_session(h, f"{pw}.history[{k}]") for k, h in enumerate(p.get("history") or []))
    return Persona(_need(p, "user_id", str, pw), p.get("role", ""), memory, tuple(tools), history)


def _tool_from_json(t: Any, tw: str) -> ToolSpec:
    params = _need(t, "params", dict, tw)
    for k, v in params.items():
        if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
            raise SuiteError(f"{tw}: params[{k!r}] must be a non-empty list of strings")
    return ToolSpec(
        _need(t, "name", str, tw),
        _need(t, "service", str, tw),
        t.get("description", ""),
        params,
        t.get("artifact_param", "name"),
        bool(t.get("records_decision", False)),
    )


def _task_from_json(t: Any, i: int, where: str, by_user: Mapping[str, Persona], seen: set[str]) -> SimTask:
    """Task `i`: its user one of the personas, its steps, its checkpoints (checked against the steps),
    its dependencies among the earlier tasks (`seen`), a task id not seen before."""
    tid = t.get("task_id", f"#{i}") if isinstance(t, Mapping) else f"#{i}"
    tw = f"{where}: tasks[{i}] ({tid})"
    user = _need(t, "user_id", str, tw)
    if user not in by_user:
        raise SuiteError(f"{tw}: user_id {user!r} is not a persona of this suite")
    tools = {x.name: x for x in by_user[user].tools}
    steps: list[StepSpec] = []
    for j, s in enumerate(_need(t, "steps", list, tw)):
        steps.append(_step_from_json(s, f"{tw}.steps[{j}]", user, tools, steps))
    cps = [
        _checkpoint_from_json(c, f"{tw}.checkpoints[{j}]")
        for j, c in enumerate(_need(t, "checkpoints", list, tw))
    ]
    if not cps:
        raise SuiteError(f"{tw}: a task needs at least one checkpoint")
    _check_checkpoints(cps, steps, tools, f"{where}: task {tid}")
    deps = tuple(_need(t, "depends_on", list, tw))
    for dep in deps:
        if dep not in seen:
            raise SuiteError(f"{tw}: depends_on {dep!r} must name an earlier task")
    task_id = _need(t, "task_id", str, tw)
    if task_id in seen:
        raise SuiteError(f"{tw}: duplicate task_id")
    return SimTask(
        task_id,
        user,
        t.get("project_id", ""),
        _need(t, "category", str, tw),
        int(t.get("session", 0)),
        t.get("time", ""),
        int(t.get("level", 0)),
        _need(t, "request_text", str, tw),
        dict(_need(t, "request_args", dict, tw)),
        tuple(steps),
        tuple(cps),
        deps,
        t.get("topic", ""),
        tuple(t.get("context") or ()),
    )


def _step_from_json(
    s: Any, sw: str, user: str, tools: Mapping[str, ToolSpec], earlier: list[StepSpec]
) -> StepSpec:
    """A step: one of the persona's tools, arguments among its parameters, a known stage."""
    tool = _need(s, "tool", str, sw)
    if tool not in tools:
        raise SuiteError(f"{sw}: tool {tool!r} is not one of persona {user}'s tools {sorted(tools)}")
    args = [
        _arg_from_json(a, f"{sw}.args[{k}]", tools[tool], earlier)
        for k, a in enumerate(_need(s, "args", list, sw))
    ]
    stage = _need(s, "stage", str, sw)
    if stage not in STAGES:
        raise SuiteError(f"{sw}: stage {stage!r} not in {STAGES}")
    return StepSpec(
        _need(s, "step_id", str, sw),
        tool,
        _need(s, "artifact", str, sw),
        s.get("subgoal", ""),
        tuple(args),
        stage,
        dict(s.get("user_message") or {}),
        s.get("user_message_text", ""),
    )


def _arg_from_json(a: Any, aw: str, tool: ToolSpec, earlier: list[StepSpec]) -> ArgSpec:
    """An argument: a parameter of its tool, a gold value the tool accepts, a known source; a
    `carried` one names an earlier step's argument (`carry_from`), and only a carried one does."""
    slot = _need(a, "slot", str, aw)
    if slot not in tool.params:
        raise SuiteError(f"{aw}: slot {slot!r} is not a parameter of tool {tool.name}")
    gold = _need(a, "gold", str, aw)
    if gold not in tool.params[slot]:
        raise SuiteError(f"{aw}: gold {gold!r} not among {tool.name}.{slot} values")
    src = _need(a, "source", str, aw)
    if src not in ARG_SOURCES:
        raise SuiteError(f"{aw}: source {src!r} not in {ARG_SOURCES}")
    carry = a.get("carry_from", "")
    if carry and src != "carried":
        raise SuiteError(
            f"{aw}: key 'carry_from' is set ({carry!r}) on a {src!r} argument; only a "
            f"'carried' argument takes its value from an earlier step"
        )
    if src == "carried":
        done = {(x.step_id, y.slot) for x in earlier for y in x.args}
        if tuple(str(carry).split(".", 1)) not in done:
            raise SuiteError(
                f"{aw}: carry_from {carry!r} must name an earlier step's argument as '<step_id>.<slot>'"
            )
    return ArgSpec(slot, gold, src, _need(a, "default", str, aw), carry)


def _checkpoint_from_json(c: Any, cw: str) -> Checkpoint:
    weight = c.get("weight", 1.0) if isinstance(c, Mapping) else 1.0
    if (
        isinstance(weight, bool)
        or not isinstance(weight, (int, float))
        or not math.isfinite(weight)
        or weight <= 0
    ):
        raise SuiteError(f"{cw}: key 'weight' must be a number > 0, got {weight!r}")
    return Checkpoint(
        _need(c, "checkpoint_id", str, cw),
        _need(c, "artifact", str, cw),
        _need(c, "slot", str, cw),
        _need(c, "expected", str, cw),
        _need(c, "stage", str, cw),
        c.get("source", ""),
        float(weight),
    )


def _check_checkpoints(
    cps: list[Checkpoint], steps: list[StepSpec], tools: Mapping[str, ToolSpec], where: str
) -> None:
    """Each checkpoint checks what a step of its task writes: a known stage and source, a slot that
    a step writing its artifact sets, a value that step's tool accepts. `where` names file and task;
    the error adds the checkpoint (its position and id) and the key."""
    for j, c in enumerate(cps):
        cw = f"{where} checkpoint {j} ({c.checkpoint_id})"
        if c.stage not in STAGES:
            raise SuiteError(f"{cw}: key 'stage': {c.stage!r} not in {STAGES}")
        if c.source not in ARG_SOURCES:
            raise SuiteError(f"{cw}: key 'source': {c.source!r} not in {ARG_SOURCES}")
        writers = [s for s in steps if any(a.slot == c.slot for a in s.args)]
        if not writers:
            raise SuiteError(f"{cw}: key 'slot': slot {c.slot!r} is written by no step")
        on_artifact = [s for s in writers if s.artifact == c.artifact]
        if not on_artifact:
            raise SuiteError(
                f"{cw}: key 'artifact': no step writes slot {c.slot!r} of artifact {c.artifact!r} "
                f"(steps writing {c.slot!r}: {', '.join(sorted({s.artifact for s in writers}))})"
            )
        allowed = tools[on_artifact[-1].tool].params[c.slot]
        if c.expected not in allowed:
            raise SuiteError(
                f"{cw}: key 'expected': {c.expected!r} is not a value tool {on_artifact[-1].tool} "
                f"accepts for {c.slot!r} ({', '.join(allowed)})"
            )


def _strings(v: Any, where: str) -> list[str]:
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) and x.strip() for x in v):
        raise SuiteError(f"{where}: must be a list of non-empty strings")
    return list(v)


def _session(h: Any, where: str) -> SeedSession:
    turns = []
    for i, t in enumerate(_need(h, "turns", list, where)):
        tw = f"{where}.turns[{i}]"
        role = _need(t, "role", str, tw)
        if role not in ("user", "assistant", "tool"):
            raise SuiteError(f"{tw}: role {role!r} not in ('user', 'assistant', 'tool')")
        args = t.get("args") or {}
        if not isinstance(args, Mapping) or not all(isinstance(v, str) for v in args.values()):
            raise SuiteError(f"{tw}: key 'args' must map names to strings")
        turns.append(SeedTurn(role, _need(t, "text", str, tw), t.get("tool", ""), dict(args)))
    return SeedSession(
        _need(h, "time", str, where), _need(h, "scope", str, where), tuple(turns), h.get("project_id", "")
    )


def load_suite(path: str | Path) -> Suite:
    path = Path(path)
    if not path.exists():
        raise SuiteError(f"suite file {path} does not exist")
    return suite_from_json(read_json_file(path, SuiteError, "suite file"), str(path))
