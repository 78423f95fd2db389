"""The probe set: task states from the generated suites, each with one memory condition.

A *state* is (suite, task, target step, target slot, prior executed steps): the model sees the
task's request, the target step's tool plus up to two other tools of the persona, and the prior
steps as short assistant tool calls with their results (the target argument is left out of prior
calls, so a probe measures the note, not copying from an earlier call). A *probe* is a state plus
one condition (CONDITIONS); `messages()` renders it as OpenAI chat messages, shared content first
(system, tools, request, prior steps) so a prompt cache reuses it across the probes of one state.

Notes are phrased like the project's deliveries (`pulse.agent.runtime.render_items`, the text
baselines' "User prefers <slot words> <value>"), delivered as the LLM tool agent delivers them
(`eval.agents.conversation.MEMORY_NOTE` user message); a hold is the tool message the LLM agent
gets from the gate ("NOT EXECUTED: the user's memory agent stopped this call ...").

The set is deterministic from (seed, n): the same arguments always give the same probes and ids.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from eval.agents.conversation import MEMORY_NOTE
from eval.suites.schema import SimTask, StepSpec, Suite, ToolSpec

SYSTEM = (
    "You are a helpful assistant that completes the user's task by calling tools. Call the tools "
    "needed, one artifact per call, then reply briefly. Respect the user's stated constraints and "
    "any memory notes about their preferences."
)
HOLD_TEXT = (
    "NOT EXECUTED: the user's memory agent stopped this call before it ran. Evidence:\n{evidence}"
    "\nRevise the call and try again."
)
SUITES = ("pibench_sim", "mcp_persona_sim", "independent_sim")
# relative share of each condition in a probe set of size n (the counts are rounded; see `plan`)
CONDITIONS: dict[str, float] = {
    "explicit": 40,  # the request states the value, no delivery: copy rate (p_follow_explicit)
    "control": 30,  # nothing states it, no delivery: chance of emitting the note's value anyway
    "supplement_right": 60,  # fresh note with the gold value (p_use_delivered)
    "supplement_wrong": 25,  # fresh note with a wrong value: misled (same p_use mechanism)
    "supplement_irrelevant": 25,  # fresh note about an unrelated slot: does the target change?
    "age_2": 30,  # the note delivered 2 steps earlier (decay_per_step)
    "age_5": 20,  # ... 5 steps earlier
    "load_0": 20,  # note alone in the start-of-task memory block (load_penalty, level 0)
    "load_800": 25,  # note buried among unrelated memory lines, ~800 delivered tokens
    "load_2000": 25,  # ... ~2000 tokens
    "conflict": 40,  # the user stated A, the note says B (p_override_stated)
    "out_of_context": 30,  # "For <another context>, the user prefers ..." (p_apply_out_of_context)
    "hold_right": 25,  # the model's call held with evidence for the gold value
    "hold_wrong": 20,  # ... with evidence for a wrong value
    "hold_irrelevant": 20,  # ... with evidence about an unrelated slot
}
LOADS = {"load_0": 0, "load_800": 800, "load_2000": 2000}
AGES = {"age_2": 2, "age_5": 5}
OTHER_CONTEXTS = ("a client trip", "the board meeting", "a weekend side project", "a family holiday")
# unrelated memory (no suite has these slots): the filler that makes a delivered load
_FILLER_TOPICS = (
    ("coffee order", ("flat white", "espresso", "oat latte", "black filter")),
    ("music genre", ("jazz", "ambient", "lo-fi", "baroque")),
    ("gym day", ("monday", "wednesday", "saturday")),
    ("podcast speed", ("1.5x", "2x", "normal")),
    ("houseplant watering", ("weekly", "twice weekly", "on sundays")),
    ("reading format", ("paperback", "e-reader", "audiobook")),
    ("lunch spot", ("the corner deli", "the canteen", "the noodle bar")),
    ("desk setup", ("standing", "sitting", "two monitors")),
    ("newsletter digest", ("daily", "weekly", "off")),
    ("keyboard layout", ("UK", "US", "Dvorak")),
    ("tea", ("green tea", "earl grey", "rooibos")),
    ("running route", ("the river loop", "the park", "the hill")),
    ("phone theme", ("dark", "light", "auto")),
    ("snack", ("almonds", "fruit", "crackers")),
    ("commute", ("bike", "train", "bus")),
    ("weekend plan", ("hiking", "cinema", "cooking")),
)


@dataclass(frozen=True)
class Call:
    """A tool call (tool name and string arguments). Not used by the probe set today, whose prior calls are
    plain dicts (`Probe.prior`)."""

    tool: str
    args: dict[str, str]


@dataclass
class Probe:
    """One calibration probe (the module docstring): a task state (suite, task, target step, slot, the tools
    shown, the prior calls) plus one memory condition (the note or hold, its value, age and load).
    `messages(probe)` renders it as chat messages; `to_dict()` is its probes.jsonl record."""

    probe_id: str
    condition: str
    suite: str
    task_id: str
    user_id: str
    step_index: int
    tool: str
    artifact: str
    slot: str
    gold: str
    default: str
    values: list[str]
    request: str
    tools: list[dict[str, Any]]  # OpenAI tool schemas (target first)
    prior: list[dict[str, Any]]  # [{"tool", "args"}] executed before the target step
    stated: str = ""  # the value the request states for the slot ("" = none)
    note_value: str = ""  # the value a note / evidence gives for the slot ("" = none)
    note: str = ""  # the delivered memory line (or evidence)
    note_slot: str = ""  # the slot the note speaks to (another slot: irrelevant)
    age: int = 0  # decisions between the note and the probed one
    load_target: int = 0  # the delivered-load level of a load probe (tokens)
    held_args: dict[str, str] = field(default_factory=dict)  # hold: the held call's arguments

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def words(slot: str) -> str:
    return slot.replace("_", " ")


def note_line(item: str, slot: str, value: str, context: str = "") -> str:
    """One delivered memory line, as `render_items` prints a user fact."""
    head = f"For {context}, the user prefers" if context else "User prefers"
    return f"- [{item}] {head} {words(slot)} {value}."


def filler_block(tokens: int) -> list[str]:
    """Unrelated memory lines summing to about `tokens` (pulse.agent.tokens.count_tokens); fixed, so
    every load probe of a level shares it (and a prompt cache reuses it)."""
    from pulse.agent.tokens import count_tokens

    rng = random.Random(f"filler-{tokens}")
    lines, total, k = [], 0, 0
    while total < tokens:
        topic, vals = _FILLER_TOPICS[k % len(_FILLER_TOPICS)]
        since = f"2024-{1 + k % 12:02d}-{1 + k % 27:02d}"
        line = f"- [f{k + 1}] User prefers {topic} {rng.choice(vals)} (since {since})."
        lines.append(line)
        total += count_tokens(line) + 1
        k += 1
    return lines


def load_block(target: int, note: str) -> list[str]:
    """The memory block of a load probe: the note alone (0) or buried three quarters deep."""
    if target <= 0:
        return [note]
    lines = filler_block(target)
    at = (3 * len(lines)) // 4
    return lines[:at] + [note] + lines[at:]


def _args(step: StepSpec) -> dict[str, str]:
    return {a.slot: a.gold for a in step.args}


def _tool_schema(t: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": t.json_schema()},
    }


@dataclass(frozen=True)
class State:
    """A probe's task state: (suite, task, target step `i`, target slot) and the tools shown, target first.
    `step` is the target step, `key` its id."""

    suite: str
    task: SimTask
    i: int
    slot: str
    tools: tuple[ToolSpec, ...]  # target first, then up to two others of the persona

    @property
    def step(self) -> StepSpec:
        return self.task.steps[self.i]

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.task.task_id}/{self.i}/{self.slot}"


def load_suite(name: str, seed: int = 0) -> Suite:
    """A generated suite by name (the modules eval/registry.py loads); ValueError when unknown."""
    if name == "pibench_sim":
        from eval.suites import pibench_sim as mod
    elif name == "mcp_persona_sim":
        from eval.suites import mcp_persona_sim as mod
    elif name == "independent_sim":
        from eval.suites import independent_sim as mod
    else:
        raise ValueError(f"unknown suite {name!r} (known: {', '.join(SUITES)})")
    return mod.generate(seed)


def states(suite: Suite, rng: random.Random) -> list[State]:
    """Every (task, step, slot) with enum values to choose between, its tools drawn once."""
    out = []
    for task in suite.tasks:
        persona = suite.persona(task.user_id)
        by_name = {t.name: t for t in persona.tools}
        for i, step in enumerate(task.steps):
            tool = by_name.get(step.tool)
            if tool is None:
                continue
            others = sorted(
                {s.tool for s in task.steps if s.tool != step.tool and s.tool in by_name}
                | {t.name for t in persona.tools if t.name != step.tool and not t.records_decision}
            )
            pick = rng.sample(others, min(len(others), rng.choice((1, 2))))
            tools = (tool, *(by_name[n] for n in pick))
            for a in step.args:
                if len(tool.params.get(a.slot, ())) >= 2:
                    out.append(State(suite.name, task, i, a.slot, tools))
    return out


def _stated(st: State) -> str:
    v = st.task.request_args.get(st.slot, "")
    return "" if v in ("", "?") else v


def _other(values: list[str], rng: random.Random, *avoid: str) -> str:
    left = [v for v in values if v not in avoid]
    return rng.choice(left) if left else ""


def _note_value(st: State, values: list[str], default: str, rng: random.Random) -> str:
    """The 'right' value: the gold when it differs from the slot default and the first enum value
    (what a model picks unprompted), else another such value (the note is right from the model's
    point of view: nothing else says the slot's value)."""
    gold = next(a.gold for a in st.step.args if a.slot == st.slot)
    if gold not in (default, values[0]):
        return gold
    return _other(values, rng, default, values[0]) or _other(values, rng, default)


def _unrelated(suite: Suite, st: State, rng: random.Random) -> tuple[str, str]:
    """A (slot, value) of the persona that no tool in the prompt takes."""
    shown = {p for t in st.tools for p in t.params}
    pool = sorted(
        {
            (p, v)
            for t in suite.persona(st.task.user_id).tools
            for p, vs in t.params.items()
            for v in vs
            if p not in shown
        }
    )
    if not pool:  # fall back on a slot of another persona
        pool = sorted(
            {
                (p, v)
                for per in suite.personas
                for t in per.tools
                for p, vs in t.params.items()
                for v in vs
                if p not in shown
            }
        )
    return rng.choice(pool)


def plan(n: int) -> dict[str, int]:
    """How many probes of each condition a set of about `n` holds (each at least 5)."""
    total = sum(CONDITIONS.values())
    return {c: max(5, round(n * w / total)) for c, w in CONDITIONS.items()}


def make_probes(suites: list[Suite], n: int, seed: int = 0) -> list[Probe]:
    """About `n` probes over `suites`, balanced across suites, deterministic from `seed`; ordered so
    that the probes of one state are consecutive (prompt-cache reuse) and load probes by level."""
    rng = random.Random(f"calibration-{seed}")
    pools = {s.name: states(s, rng) for s in suites}
    by_name = {s.name: s for s in suites}
    for p in pools.values():
        rng.shuffle(p)
    want = plan(n)
    probes: list[Probe] = []

    def take(cond: str, ok) -> list[State]:
        """`want[cond]` states passing `ok`, round-robin over suites (each in its shuffled order)."""
        picked: list[State] = []
        cands = {name: [s for s in pool if ok(s)] for name, pool in pools.items()}
        idx = dict.fromkeys(cands, 0)
        while len(picked) < want[cond] and any(idx[k] < len(c) for k, c in cands.items()):
            for name, c in cands.items():
                if len(picked) < want[cond] and idx[name] < len(c):
                    picked.append(c[idx[name]])
                    idx[name] += 1
        return picked

    def unstated(s: State) -> bool:
        return not _stated(s) and s.slot not in s.step.user_message

    shared_states = take("control", lambda s: unstated(s) and s.i <= 2)
    for cond in CONDITIONS:
        if cond in ("control", "supplement_irrelevant"):
            chosen = shared_states[: want[cond]]  # the irrelevant note is compared with its control
        elif cond == "explicit" or cond == "conflict":
            chosen = take(cond, lambda s: bool(_stated(s)) and s.i <= 2)
        elif cond in AGES:
            k = AGES[cond]
            chosen = take(cond, lambda s, k=k: unstated(s) and s.i >= k)
            if len(chosen) < want[cond]:  # too few long tasks: earlier steps pad the history
                chosen += take(cond, lambda s: unstated(s) and s.i >= 1)[: want[cond] - len(chosen)]
        elif cond in LOADS:
            chosen = take(cond, lambda s: unstated(s) and s.i == 0)
        else:
            chosen = take(cond, lambda s: unstated(s) and s.i <= 2)
        for j, st in enumerate(chosen):
            probes.append(_probe(by_name[st.suite], st, cond, j, random.Random(f"{seed}-{cond}-{st.key}")))
    # order: load probes first, by level (they share the memory block: a prompt cache reuses it);
    # then the others with the probes of one state together (they share the prompt up to the note),
    # states in a seeded shuffle, so a run cut short still covers every condition
    loads = sorted((p for p in probes if p.condition in LOADS), key=lambda p: (p.load_target, p.probe_id))
    groups: dict[str, list[Probe]] = {}
    for p in sorted((p for p in probes if p.condition not in LOADS), key=lambda p: p.probe_id):
        groups.setdefault(p.probe_id.split(":", 1)[1], []).append(p)
    keys = sorted(groups)
    random.Random(f"order-{seed}").shuffle(keys)
    return loads + [p for k in keys for p in groups[k]]


def _prior(st: State, k: int) -> list[dict[str, Any]]:
    """The executed steps before the target: the task's own (the last max(k, i) of them; earlier
    steps of the task repeated with fresh artifact names when it has fewer than k), target slot
    removed from each call."""
    steps = list(st.task.steps[: st.i])
    pad = 0
    while len(steps) < k:
        s = st.task.steps[pad % len(st.task.steps)]
        steps.insert(
            0, StepSpec(s.step_id, s.tool, f"{s.artifact}-extra{pad + 1}", s.subgoal, s.args, s.stage)
        )
        pad += 1
    shown = steps[-max(k, min(st.i, 2)) :] if steps else []
    return [
        {
            "tool": s.tool,
            "args": {"name": s.artifact, **{k2: v for k2, v in _args(s).items() if k2 != st.slot}},
        }
        for s in shown
    ]


def _probe(suite: Suite, st: State, cond: str, j: int, rng: random.Random) -> Probe:
    tool = st.tools[0]
    values = list(tool.params[st.slot])
    arg = next(a for a in st.step.args if a.slot == st.slot)
    default = arg.default if arg.default in values else values[0]
    right = _note_value(st, values, default, rng)
    p = Probe(
        probe_id=f"{cond}:{st.key}",
        condition=cond,
        suite=st.suite,
        task_id=st.task.task_id,
        user_id=st.task.user_id,
        step_index=st.i,
        tool=tool.name,
        artifact=st.step.artifact,
        slot=st.slot,
        gold=arg.gold,
        default=default,
        values=values,
        request=st.task.request_text,
        tools=[_tool_schema(t) for t in st.tools],
        prior=_prior(st, AGES.get(cond, 0)),
    )
    item = f"m{1 + int(rng.random() * 40)}"
    if cond == "explicit":
        p.stated = _stated(st)
    elif cond == "conflict":
        p.stated = _stated(st)
        p.note_value = _other(values, rng, p.stated)
    elif cond in (
        "supplement_right",
        "load_0",
        "load_800",
        "load_2000",
        "age_2",
        "age_5",
        "out_of_context",
        "hold_right",
    ):
        p.note_value = right
    elif cond in ("supplement_wrong", "hold_wrong"):
        p.note_value = _other(values, rng, arg.gold, default) or _other(values, rng, arg.gold)
    if cond in ("supplement_irrelevant", "hold_irrelevant"):
        p.note_slot, v = _unrelated(suite, st, rng)
        p.note = note_line(item, p.note_slot, v)
    elif p.note_value and cond != "explicit":
        p.note_slot = st.slot
        ctx = (
            rng.choice([c for c in OTHER_CONTEXTS if c not in " ".join(st.task.context)])
            if cond == "out_of_context"
            else ""
        )
        p.note = note_line(item, st.slot, p.note_value, ctx)
    p.age = AGES.get(cond, 0)
    p.load_target = LOADS.get(cond, 0)
    if cond.startswith("hold_"):
        # the held call: the target step with the slot at its default (what the agent had guessed)
        held = _args(st.step)
        held[st.slot] = default if default != p.note_value else _other(values, rng, p.note_value)
        p.held_args = {"name": st.step.artifact, **held}
    return p


def _call_msgs(tool: str, args: dict[str, str], result: str, n: int) -> list[dict[str, Any]]:
    cid = f"call_{n}"
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}
            ],
        },
        {"role": "tool", "tool_call_id": cid, "content": result},
    ]


def messages(p: Probe) -> list[dict[str, Any]]:
    """The chat the model continues: system (plus the start-of-task memory block for load probes),
    the request, the prior steps (a note of age k before the last k of them), a fresh note, a hold."""
    system = SYSTEM
    if p.condition in LOADS:
        system += "\n\nWhat I remember about the user:\n" + "\n".join(load_block(p.load_target, p.note))
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": p.request},
    ]
    note_at = len(p.prior) - p.age if p.age else None
    for n, c in enumerate(p.prior):
        if note_at is not None and n == note_at:
            msgs.append({"role": "user", "content": MEMORY_NOTE + p.note})
        msgs += _call_msgs(
            c["tool"], c["args"], json.dumps({"status": "ok", "name": c["args"]["name"]}), n + 1
        )
    fresh = p.note and p.condition not in LOADS and not p.age and not p.condition.startswith("hold_")
    if fresh:
        msgs.append({"role": "user", "content": MEMORY_NOTE + p.note})
    if p.condition.startswith("hold_"):
        msgs += _call_msgs(p.tool, p.held_args, HOLD_TEXT.format(evidence=p.note), len(p.prior) + 1)
    return msgs
