"""Case types: how a trajectory prefix is built so that it exercises one labelling rule.

Each case names the action its prefixes must get, the (level, target slot) pairs it can be built
for in a task group, and a builder that returns the case-specific tail of the prefix (the events
after the request and the neutral fillers, ending with the newest event). The generator checks
that `pulse.core.gold.gold_decision` gives the case's action; the case never sets the label.

Adding a case = adding a `CaseType` to `CASES` (and a weight to the config).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from data_gen.world.domains import DomainSpec
from data_gen.world.tasks import LEVELS, TaskGroup, level_modes
from data_gen.world.tool_calls import AGENT, MEMORY, USER, describe
from pulse.core.statements import IMPLICIT


@dataclass(frozen=True)
class Ev:
    """An event before it gets a step and a time: kind in {msg, call, result}."""

    kind: str
    args: dict[str, str] = field(default_factory=dict)
    role: str = ""
    text: str = ""
    tool: str = ""


@dataclass(frozen=True)
class GroupMemory:
    """What memory says about a task group's slots (from the derived facts)."""

    spec: DomainSpec
    group: TaskGroup
    cur: dict[str, str]  # slot -> current preference value
    old: dict[str, str]  # slot -> superseded preference value (revised slots)
    habit: dict[str, str]  # slot -> habitual value (slots without a preference)


@dataclass
class Plan:
    """One prefix being built. Builders may change `modes` (what the request states) and `gold`."""

    rng: random.Random
    mem: GroupMemory
    level: int
    target: str
    gold: dict[str, str]  # value the user wants this time, per task slot
    modes: dict[str, str]  # request state per slot: value or IMPLICIT; missing = not mentioned

    @property
    def slots(self) -> tuple[str, ...]:
        return self.mem.group.slots

    @property
    def spec(self) -> DomainSpec:
        return self.mem.spec

    def implicit_prefs(self) -> list[str]:
        return [s for s in self.slots if self.modes.get(s) == IMPLICIT and s in self.mem.cur]

    def wrong(self, slot: str) -> str:
        """A value that is neither the preference nor what the user wants this time."""
        avoid = {
            self.gold.get(slot),
            self.mem.cur.get(slot),
            self.mem.old.get(slot),
            self.mem.habit.get(slot),
        }
        return self.rng.choice([v for v in self.spec.slot(slot).values if v not in avoid])

    def call_args(
        self, override: dict[str, str] | None = None, omit: frozenset[str] | set[str] = frozenset()
    ) -> dict[str, str]:
        """Arguments consistent with the gold values; implicit slots are always filled."""
        override = override or {}
        args = {}
        for s in self.slots:
            if s in omit:
                continue
            if s in override or self.modes.get(s) == IMPLICIT or self.rng.random() < 0.85:
                args[s] = override.get(s, self.gold[s])
        return args

    # -- event helpers -------------------------------------------------------------------------
    def call(self, args: dict[str, str], commit: bool | None = None) -> Ev:
        commit = self.rng.random() < 0.35 if commit is None else commit
        return Ev("call", args, tool=self.spec.commit_tool if commit else self.spec.search_tool)

    def result(self) -> Ev:
        return Ev("result", tool=self.spec.search_tool)

    def agent_says(self, args: dict[str, str]) -> Ev:
        what = describe(self.spec, args)
        return Ev("msg", args, AGENT, f"I'll look for {self.mem.group.obj} {what}.".replace(" .", "."))

    def memory_says(self, args: dict[str, str]) -> Ev:
        facts = ", ".join(f"{s} {v}" for s, v in args.items())
        return Ev("msg", args, MEMORY, f"Memory: the user's usual {facts}.")

    def user_says(self, args: dict[str, str], text: str) -> Ev:
        return Ev("msg", args, USER, text)


Options = Callable[[GroupMemory], list[tuple[int, str]]]
Builder = Callable[[Plan], list[Ev]]


@dataclass(frozen=True)
class CaseType:
    name: str
    action: str  # the action gold_decision must give
    options: Options  # feasible (level, target slot) pairs for a group; [] = not buildable
    build: Builder


# -- options ------------------------------------------------------------------------------------
def _any_pref(m: GroupMemory) -> list[tuple[int, str]]:
    return [(lv, s) for lv in LEVELS for s in m.group.slots if s in m.cur]


def _implicit_pref(m: GroupMemory) -> list[tuple[int, str]]:
    """Slots the request leaves implicit: all at L1, website/location also at L2."""
    return [
        (lv, s)
        for lv in (1, 2)
        for s in m.group.slots
        if s in m.cur and (lv == 1 or m.spec.slot(s).hidden_until_l3)
    ]


def _revised(m: GroupMemory) -> list[tuple[int, str]]:
    return [(lv, s) for lv in LEVELS for s in m.group.slots if s in m.old]


def _habit(m: GroupMemory) -> list[tuple[int, str]]:
    return [(lv, s) for lv in LEVELS for s in m.group.slots if s in m.habit]


def _familiar(m: GroupMemory) -> list[tuple[int, str]]:
    return [(lv, "") for lv in LEVELS] if m.cur else []


def _unfamiliar(m: GroupMemory) -> list[tuple[int, str]]:
    return [(lv, "") for lv in LEVELS] if not m.group.familiar else []


# -- builders -----------------------------------------------------------------------------------
def _conflict(p: Plan) -> list[Ev]:
    over = {p.target: p.wrong(p.target)}
    others = [s for s in p.slots if s in p.mem.cur and s != p.target]
    if others and p.rng.random() < 0.15:
        s = p.rng.choice(others)
        over[s] = p.wrong(s)
    return [p.call(p.call_args(over))]


def _misstated_call(p: Plan) -> list[Ev]:
    # The agent misstated the preference, the memory agent's supplement was delivered, and the
    # call still uses the misstated value. (Without the delivered correction the misstatement
    # itself is context, and the compact prompt could not tell it from a user override.)
    t, w = p.target, p.wrong(p.target)
    return [p.agent_says({t: w}), p.memory_says({t: p.mem.cur[t]}), p.call(p.call_args({t: w}))]


def _revised_old(p: Plan) -> list[Ev]:
    return [p.call(p.call_args({p.target: p.mem.old[p.target]}))]


def _revised_current(p: Plan) -> list[Ev]:
    return [p.call(p.call_args({p.target: p.mem.cur[p.target]}))]


def _omitted(p: Plan) -> list[Ev]:
    r = p.rng.random()
    if r < 0.45:
        return [p.call(p.call_args(omit={p.target}))]
    if r < 0.75:
        return [p.call(p.call_args(omit={p.target}), commit=False), p.result()]
    args = {s: v for s, v in p.call_args(omit={p.target}).items() if p.rng.random() < 0.7}
    return [p.agent_says(args)]


def _misstated_message(p: Plan) -> list[Ev]:
    args = {s: v for s, v in p.call_args(omit={p.target}).items() if p.rng.random() < 0.5}
    args[p.target] = p.wrong(p.target)
    return [p.agent_says(args)]


def _consistent(p: Plan) -> list[Ev]:
    r = p.rng.random()
    if r < 0.25:
        args = {s: v for s, v in p.call_args().items() if p.modes.get(s) == IMPLICIT or p.rng.random() < 0.5}
        if args:
            return [p.agent_says(args)]
    if r < 0.35 and not p.implicit_prefs():
        return [p.call(p.call_args(), commit=False), p.result()]
    if r < 0.42:
        return [p.user_says({}, "Sounds good, go ahead.")]
    return [p.call(p.call_args())]


def _habit_case(p: Plan) -> list[Ev]:
    # The call departs from a habit (Notion vs Obsidian): a habit is not a constraint.
    t = p.target
    w = p.rng.choice([v for v in p.spec.slot(t).values if v != p.mem.habit[t]])
    p.gold[t] = w
    if p.modes.get(t) not in (None, IMPLICIT):
        p.modes[t] = w
    if p.rng.random() < 0.25:
        return [p.agent_says({**{s: p.gold[s] for s in p.implicit_prefs()}, t: w})]
    return [p.call(p.call_args({t: w}))]


def _explicit_override(p: Plan) -> list[Ev]:
    t, w = p.target, p.wrong(p.target)
    if p.modes.get(t) not in (None, IMPLICIT) and p.rng.random() < 0.6:
        p.modes[t] = w  # the request itself asks for something else this time
        return [p.call(p.call_args({t: w}))]
    phrase = p.spec.slot(t).explicit.format(v=w)
    said = p.user_says({t: w}, f"Actually, this time {phrase}.")
    if p.rng.random() < 0.3:
        return [said]
    return [said, p.call(p.call_args({t: w}))]


def _already_delivered(p: Plan) -> list[Ev]:
    delivered = {s: p.mem.cur[s] for s in p.implicit_prefs()}
    r = p.rng.random()
    if r < 0.5:
        msg = p.memory_says(delivered)
    elif r < 0.75:
        msg = Ev("msg", delivered, AGENT, f"Noted: {describe(p.spec, delivered)}, as you usually do.")
    else:
        msg = p.user_says(delivered, f"As usual, {describe(p.spec, delivered)}.")
    if p.rng.random() < 0.6:
        return [msg, p.call(p.call_args(omit={p.target}))]
    return [msg, p.call(p.call_args(omit={p.target}), commit=False), p.result()]


def _request_only(p: Plan) -> list[Ev]:
    return []


def _irrelevant(p: Plan) -> list[Ev]:
    r = p.rng.random()
    if r < 0.6:
        return [p.call(p.call_args())]
    if r < 0.8:
        return [p.call(p.call_args(), commit=False), p.result()]
    return [p.agent_says(p.call_args())]


CASES: dict[str, CaseType] = {
    c.name: c
    for c in (
        CaseType("conflict", "intervene", _any_pref, _conflict),
        CaseType("misstated_call", "intervene", _any_pref, _misstated_call),
        CaseType("revised_old", "intervene", _revised, _revised_old),
        CaseType("omitted", "supplement", _implicit_pref, _omitted),
        CaseType("misstated_message", "supplement", _implicit_pref, _misstated_message),
        CaseType("consistent", "silent", _familiar, _consistent),
        CaseType("revised_current", "silent", _revised, _revised_current),
        CaseType("habit", "silent", _habit, _habit_case),
        CaseType("explicit_override", "silent", _any_pref, _explicit_override),
        CaseType("already_delivered", "silent", _implicit_pref, _already_delivered),
        CaseType("irrelevant", "silent", _unfamiliar, _irrelevant),
        CaseType("request_only", "silent", _familiar, _request_only),
    )
}


FILLER_NOTES = (
    "Let me look that up.",
    "Checking a few options.",
    "Comparing the candidates now.",
    "Opening the site.",
    "Reading the listings.",
)


def fillers(p: Plan, n: int) -> list[Ev]:
    """Neutral events (no slot values in messages) that lengthen a prefix without changing its label."""
    out: list[Ev] = []
    while len(out) < n:
        if n - len(out) >= 2 and p.rng.random() < 0.6:
            out += [p.call(p.call_args(), commit=False), p.result()]
        else:
            out.append(Ev("msg", {}, AGENT, p.rng.choice(FILLER_NOTES)))
    return out


def initial_plan(mem: GroupMemory, level: int, target: str, rng: random.Random, p_absent: float) -> Plan:
    """Gold values and the request state per slot at a level, before the case adjusts them."""
    spec, slots = mem.spec, mem.group.slots
    gold = {}
    for s in slots:
        if s in mem.cur:
            gold[s] = mem.cur[s]
        elif s in mem.habit and rng.random() < 0.5:
            gold[s] = mem.habit[s]
        else:
            gold[s] = rng.choice(spec.slot(s).values)
    modes = level_modes(spec, slots, level, gold)
    for s in slots:
        if s == target:
            continue
        habit_only = s in mem.habit and s not in mem.cur
        if rng.random() < (0.5 if habit_only and modes[s] == IMPLICIT else p_absent):
            del modes[s]  # the request does not mention this slot
    return Plan(rng, mem, level, target, gold, modes)
