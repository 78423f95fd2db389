"""Deterministic world + task generator shared by the offline suites.

From one persona's tool vocabulary and a list of task plans (category, tool sequence) it draws,
with a seeded RNG and no LLM:
- seed memory: current preferences, revised preferences (old record superseded by the new one),
  habits (observed regularities that are *not* constraints), distractor attributes, and project
  decisions per project (two projects per persona disagree on the same slot: isolation matters);
- tasks in execution order, each a plan of tool calls whose argument sources are labelled (see
  `schema.py`), with mid-task user messages that revise a preference (written back at task end and
  needed by later tasks: inter-task dependencies), project decisions made by an earlier task's
  `approve_plan` receipt, and one checkpoint per (step, argument) on the final workspace.

This is the Persona2Web-style world layer applied to new domains. When `data_gen.world` lands with
reusable persona/preference types, this module should build on it (see the eval README section).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from pulse.core.records import MemoryItem, Provenance
from eval.suites.schema import ArgSpec, Checkpoint, Persona, SimTask, StepSpec, ToolSpec


@dataclass
class PersonaSpec:
    user_id: str
    role: str
    tools: list[ToolSpec]
    projects: list[str]
    project_slots: list[str]
    # probability of each role for a user slot: preference, revised, habit, free
    role_weights: tuple[float, float, float, float] = (0.4, 0.15, 0.15, 0.3)
    habit_prone: tuple[str, ...] = ()


@dataclass
class _Truth:
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


def _date(day: int) -> str:
    y, d = 2024 + day // 360, day % 360
    return f"{y:04d}-{1 + d // 30:02d}-{1 + d % 30:02d}T09:00:00"


def build_persona(rng: random.Random, spec: PersonaSpec) -> tuple[Persona, _Truth, dict[str, list[str]]]:
    values: dict[str, list[str]] = {}
    service_of: dict[str, str] = {}
    for t in spec.tools:
        for p, vs in t.params.items():
            values.setdefault(p, vs)
            if not t.records_decision:
                service_of.setdefault(p, t.service)
    user_slots = [s for s in values if s not in spec.project_slots]
    truth = _Truth()
    mem: list[MemoryItem] = []
    u = spec.user_id
    scope = f"user:{u}"
    for slot in user_slots:
        vs = values[slot]
        weights = list(spec.role_weights)
        if slot in spec.habit_prone:
            weights[2] *= 3
        role = rng.choices(["preference", "revised", "habit", "free"], weights)[0]
        ents = (slot, service_of.get(slot, ""))
        if role == "preference":
            v = rng.choice(vs[1:])
            truth.pref[slot], truth.pref_source[slot] = v, "preference"
            mem.append(MemoryItem(f"{u}-p-{slot}", "preference", scope, f"{u} prefers {_words(slot)} {v}.", slot, v,
                                  service_of.get(slot, ""), ents, "",
                                  Provenance("user_statement", "", f"I prefer {v} for {_words(slot)}"),
                                  _date(rng.randrange(0, 200))))
        elif role == "revised":
            old, new = rng.sample(vs[1:] if len(vs) > 2 else vs, 2)
            truth.pref[slot], truth.pref_source[slot] = new, "revised"
            t_old, t_new = _date(rng.randrange(0, 100)), _date(rng.randrange(120, 300))
            mem.append(MemoryItem(f"{u}-p-{slot}-v1", "preference", scope, f"{u} prefers {_words(slot)} {old}.",
                                  slot, old, service_of.get(slot, ""), ents, "",
                                  Provenance("user_statement", "", f"use {old} for {_words(slot)}"), t_old, t_new))
            mem.append(MemoryItem(f"{u}-p-{slot}-v2", "preference", scope,
                                  f"{u} now prefers {_words(slot)} {new} (changed from {old}).", slot, new,
                                  service_of.get(slot, ""), ents, "",
                                  Provenance("user_statement", "", f"switch {_words(slot)} to {new}"), t_new, "",
                                  f"{u}-p-{slot}-v1"))
        elif role == "habit":
            v = rng.choice(vs[1:])
            truth.habit[slot] = v
            mem.append(MemoryItem(f"{u}-h-{slot}", "habit", scope,
                                  f"{u} often uses {_words(slot)} {v} (a habit, not a rule).", slot, v,
                                  service_of.get(slot, ""), ents, "", Provenance("history"), _date(rng.randrange(0, 300))))
    for i, attr in enumerate(("home city", "team size")):
        mem.append(MemoryItem(f"{u}-a-{i}", "attribute", scope, f"{u}'s {attr} is {rng.choice(['Berlin', 'Austin', '12', '4'])}.",
                              "", "", "profile", (), "", Provenance("user_statement"), _date(10)))
    for j, proj in enumerate(spec.projects):
        truth.project[proj] = {}
        for slot in spec.project_slots:
            v = rng.choice(values[slot])
            seeded = j == 0 or rng.random() < 0.5
            if seeded:
                truth.project[proj][slot] = v
                mem.append(MemoryItem(f"{u}-{proj}-{slot}", "project_state", f"project:{proj}",
                                      f"Project {proj} decided {_words(slot)} = {v}.", slot, v, proj, (slot, proj), "",
                                      Provenance("tool_receipt"), _date(rng.randrange(200, 320))))
    return Persona(u, spec.role, tuple(mem), tuple(spec.tools)), truth, values


def build_tasks(rng: random.Random, spec: PersonaSpec, truth: _Truth, values: dict[str, list[str]],
                plans: list[tuple[str, list[str]]], p_user_message: float = 0.35,
                level_weights: tuple[float, float, float] = (0.4, 0.45, 0.15), day0: int = 330) -> list[SimTask]:
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
        deps: set[str] = set()
        gold: dict[str, tuple[str, str]] = {}  # slot -> (value, source) for this task
        request_args: dict[str, str] = {}
        for slot in dict.fromkeys(p for name in seq for p in tools[name].params):
            if slot in spec.project_slots:
                if slot in truth.project.get(proj, {}):
                    gold[slot] = (truth.project[proj][slot], "project")
                    if (proj, slot) in truth.project_set_by:
                        deps.add(truth.project_set_by[(proj, slot)])
                else:  # decided in this task's approve_plan step, stated by the user
                    v = rng.choice(values[slot])
                    gold[slot] = (v, "explicit")
                    request_args[slot] = v
            elif slot in truth.pref:
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
            elif slot in truth.habit:
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
        # a mid-task user message revising a preference used from step >= 1 on
        msg_at, msg_slot, msg_value = -1, "", ""
        if rng.random() < p_user_message and len(seq) >= 3:
            cands = [(i, s) for i, name in enumerate(seq) if i >= 1 for s in tools[name].params
                     if s in truth.pref and gold[s][1] != "explicit"]
            if cands:
                msg_at, msg_slot = rng.choice(cands)
                msg_value = rng.choice([x for x in values[msg_slot] if x != truth.pref[msg_slot]])
        steps, cps = [], []
        n = len(seq)
        for i, name in enumerate(seq):
            t = tools[name]
            artifact = f"{name}-{ti + 1}-{i + 1}"
            args = []
            umsg: dict[str, str] = {}
            utext = ""
            if i == msg_at:
                umsg = {msg_slot: msg_value}
                utext = f"By the way, from now on my preferred {msg_slot} is {msg_value}."
            for slot in t.params:
                v, src = gold[slot]
                if msg_at >= 0 and slot == msg_slot and i >= msg_at:
                    v, src = msg_value, "user_message"
                args.append(ArgSpec(slot, v, src, values[slot][0]))
                cps.append(Checkpoint(f"{task_id}:{i + 1}:{slot}", artifact, slot, v, _stage(i, n), src))
            steps.append(StepSpec(f"{task_id}:{i + 1}", name, artifact, f"{_words(name)} '{artifact}'",
                                  tuple(args), _stage(i, n), umsg, utext))
        for slot in undecided:
            truth.project[proj][slot] = gold[slot][0]
            truth.project_set_by[(proj, slot)] = task_id
        if msg_slot:
            truth.pref[msg_slot] = msg_value
            truth.pref_set_by[msg_slot] = task_id
        stated = "; ".join(f"use {_words(s)} {v}" for s, v in request_args.items() if v != "?")
        implicit = "; ".join(f"use my usual {_words(s)}" for s, v in request_args.items() if v == "?")
        todo = ", then ".join(s.subgoal for s in steps)
        text = (f"[{proj or category}] Please {todo}." + (f" Constraints: {stated}." if stated else "")
                + (f" Also {implicit}." if implicit else ""))
        tasks.append(SimTask(task_id, u, proj, category, ti + 1, _date(day0 + ti), level, text, request_args,
                             tuple(steps), tuple(cps), tuple(sorted(deps)), category))
    return tasks
