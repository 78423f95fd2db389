"""Generation of `independent_sim` from its own vocabulary (vocab.py), deterministic from a seed.

Per persona (its own random stream, `stream(seed, user)`):
1. *Truth*: each user slot gets one role: a plain preference, a revised preference (old value,
   later a new one), a conditional preference (a value that holds only in one named context;
   half of them also have a general value that holds elsewhere), a habit (tasks ask otherwise) or
   none (memory says nothing of the user's own). Two colleagues' preferences and an other team's
   project decisions are distractors; the user's two projects decide the project slots differently.
2. *History*: the seed sessions every method builds its memory from, written in varied natural
   language with the vocabulary's surface forms (not the tools' enum words): statements with an
   assistant's acknowledgement, revisions that withdraw the old value in words, conditional
   statements naming their context in the same sentence, restatements, colleagues' facts (one in
   the colleague's own user scope), project decisions as `record_decision` receipts, small talk.
3. *Tasks*: a chain of 12-16 tasks of 2-4 steps. A schedule of purposes guarantees each situation
   in every persona: conditional in context, conditional out of context, ignore memory (a task with
   no project whose request overrides every remembered value), carried values (the plan repeats the
   free slot), plain tasks; mid-task user messages change a preference for good (later tasks depend
   on the task) or reveal a value for this task only. Each argument's gold value and source is
   decided when the task is written and becomes one checkpoint.
Stages (early / middle / late) are the task's third of its persona's chain, so the late stage is
where revisions and changes made by earlier tasks have piled up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from eval.suites.independent_sim.vocab import DECISION_SERVICE, DECISION_TOOL, PERSONAS
from eval.suites.schema import (
    ArgSpec,
    Checkpoint,
    Persona,
    SeedSession,
    SeedTurn,
    SimTask,
    StepSpec,
    ToolSpec,
)
from pulse.core.records import MemoryItem, Provenance

DECISION_PREFIX = "decision."  # a receipt's decision fields (pulse.agent.writeback; checked by the tests)
HISTORY_START = date(2024, 2, 1)
HISTORY_DAYS = 320
TASK_START = date(2025, 1, 6)
CATEGORIES = ("personalised", "chained", "ignore_memory")
ROLES = ("preference", "revised", "conditional", "habit", "none")

ACKS = (
    "Got it, I'll remember that.",
    "Noted.",
    "Understood, saved for next time.",
    "Sure, I'll keep that in mind.",
    "Thanks, that's stored.",
)
PREF = (
    "I always go for {f} when it comes to the {n}.",
    "Quick note for the future: {f} is what I want for the {n}.",
    "Please remember that I like {f} for the {n}.",
    "When you handle the {n}, pick {f} for me.",
    "My standing choice for the {n} is {f}.",
)
RESTATE = (
    "Just to repeat, {f} for the {n} as usual.",
    "As always, {f} for the {n}.",
    "Same as before for the {n}: {f}.",
)
REVISE = (
    "Change of plan for the {n}: I no longer want {o}; from here on it is {f}.",
    "For the {n} I now want {f} rather than {o}.",
    "Update on the {n}: I have moved to {f}, and I no longer want {o}.",
)
COND = (
    "When it's {c}, I want {f} for the {n}.",
    "For {c}, make the {n} {f}.",
    "If it's {c}, the {n} should be {f}.",
)
GENERAL = ("Normally I like {f} for the {n}.", "In general, {f} is my pick for the {n}.")
HABIT = (
    "I usually end up with {f} for the {n}, mostly out of habit.",
    "Out of habit I tend to get {f} for the {n}.",
)
COLLEAGUE = (
    "My colleague {p} always wants {f} for the {n}, keep that in mind when you book for {p}.",
    "Note for {p}'s bookings: {p} likes {f} for the {n}.",
)
COLLEAGUE_OWN = ("I'm {p}. For my own bookings I like {f} for the {n}.",)
DECIDE = ("For {j}, let's settle the {n}: {f}.", "We agreed on {f} for the {n} in {j}.")
OTHER_TEAM = ("{p} forwarded a decision from the {j} team: {f} for the {n}.",)
FILLER = (
    ("Can you remind me when the team call is?", "It's at three this afternoon."),
    ("Please summarise yesterday's notes.", "Here is a short summary of yesterday's notes."),
    ("What's on my list for tomorrow?", "Two meetings and a review."),
    ("Thanks for the help earlier.", "You're welcome."),
)
OPEN = ("I need your help with {t}.", "Can you take care of {t}?", "Next up is {t}.", "Let's sort out {t}.")
CONTEXT = ("Context: {c}.", "Keep in mind this is about {c}.", "Heads-up: {c}.")
STATE = ("For the {n}, {f}.", "I want {f} for the {n}.", "Go with {f} for the {n}.", "The {n} should be {f}.")
OVERRIDE = ("This time, I want {f} for the {n}.", "For this one, go with {f} for the {n}.")
USUAL = ("Use my usual {n}.", "The {n} as I normally have it.", "Same {n} as always.")
CHANGE = ("Actually, from now on I'd like {f} for the {n}.", "One more thing: from now on, {f} for the {n}.")
REVEAL = ("Oh, and for this one, {f} for the {n}, please.", "Just for this task, make the {n} {f}.")


@dataclass
class Truth:
    """A persona's state the chain reads and updates."""

    role: dict[str, str] = field(default_factory=dict)
    pref: dict[str, str] = field(default_factory=dict)  # current unconditional user value
    revised: set[str] = field(default_factory=set)
    cond: dict[str, tuple[str, str]] = field(default_factory=dict)  # slot -> (context tag, value)
    habit: dict[str, str] = field(default_factory=dict)
    colleague: dict[str, tuple[str, str]] = field(default_factory=dict)  # slot -> (name, value)
    oneoff: dict[str, str] = field(default_factory=dict)  # slot -> value revealed for one task only
    set_by: dict[str, str] = field(default_factory=dict)  # slot -> task whose message changed it
    project: dict[str, dict[str, str]] = field(default_factory=dict)
    project_set_by: dict[tuple[str, str], str] = field(default_factory=dict)


def stream(name: str, version: str, seed: int, user: str) -> str:
    return f"{name}-{version}-{seed}-{user}"


def _day(d0: date, days: int, hour: int = 9) -> str:
    return f"{(d0 + timedelta(days=days)).isoformat()}T{hour:02d}:00:00"


def _stage(i: int, n: int) -> str:
    return "early" if i < n / 3 else ("middle" if i < 2 * n / 3 else "late")


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class _Persona:
    """One persona's vocabulary with helpers (values, default, a surface form, the noun)."""

    def __init__(self, user: str, rng: random.Random):
        self.user, self.d, self.rng = user, PERSONAS[user], rng
        self.slots = self.d["slots"]

    def values(self, slot: str) -> list[str]:
        return list(self.slots[slot][1])

    def default(self, slot: str) -> str:
        return self.values(slot)[0]

    def noun(self, slot: str) -> str:
        return self.slots[slot][0]

    def form(self, slot: str, value: str) -> str:
        return self.rng.choice(self.slots[slot][1][value])

    def other(self, slot: str, *avoid: str) -> str:
        return self.rng.choice([v for v in self.values(slot) if v not in avoid])

    def say(self, templates, slot: str, value: str, **kw) -> str:
        return self.rng.choice(templates).format(f=self.form(slot, value), n=self.noun(slot), **kw)

    def tools(self) -> tuple[ToolSpec, ...]:
        out = [
            ToolSpec(name, svc, desc, {s: self.values(s) for s in slots}, "name", False)
            for name, (svc, desc, _, slots) in self.d["tools"].items()
        ]
        out.append(
            ToolSpec(
                DECISION_TOOL,
                DECISION_SERVICE,
                "Record a project decision.",
                {s: self.values(s) for s in self.d["decision"]},
                "name",
                True,
            )
        )
        return tuple(out)


def vocabulary() -> dict[str, dict[str, tuple[str, ...]]]:
    """slot -> canonical value -> every surface form the suite writes (the value itself first)."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for d in PERSONAS.values():
        for slot, (_, values) in d["slots"].items():
            out[slot] = {v: (v, *forms) for v, forms in values.items()}
    return out


def conditions() -> dict[str, tuple[str, ...]]:
    return {tag: tuple(ph) for d in PERSONAS.values() for tag, ph in d["contexts"].items()}


# -- truth and history -------------------------------------------------------------------------
def make_truth(p: _Persona) -> Truth:
    rng, d = p.rng, p.d
    t = Truth()
    slots = list(d["user_slots"])
    rng.shuffle(slots)
    roles = ["conditional", "revised", "habit", "preference"]
    roles += [rng.choice(["none", "conditional", "preference"]) for _ in range(len(slots) - len(roles))]
    tags = list(d["contexts"])
    first_tag = rng.choice(tags)
    for slot, role in zip(slots, roles):
        t.role[slot] = role
        if role == "preference":
            t.pref[slot] = p.other(slot, p.default(slot))
        elif role == "revised":
            t.pref[slot] = p.other(slot, p.default(slot))
            t.revised.add(slot)
        elif role == "habit":
            t.habit[slot] = p.other(slot, p.default(slot))
        elif role == "conditional":
            tag = first_tag if not t.cond else rng.choice(tags)
            vc = p.other(slot, p.default(slot))
            t.cond[slot] = (tag, vc)
            if rng.random() < 0.5:  # also a general value that holds outside the context
                t.pref[slot] = p.other(slot, p.default(slot), vc)
    # colleagues: the first speaks to a slot memory is otherwise silent on (else a preference), the
    # second to another user slot; each with a value that is not the user's own
    by_role = {r: [s for s in slots if t.role[s] == r] for r in ROLES}
    first = (by_role["none"] or by_role["preference"] or by_role["revised"])[0]
    second = rng.choice([s for s in slots if s != first and t.role[s] in ("revised", "habit", "preference")])
    for name, slot in zip(d["colleagues"], (first, second)):
        own = {t.pref.get(slot), t.habit.get(slot), t.cond.get(slot, ("", ""))[1], p.default(slot)}
        t.colleague[slot] = (name, p.other(slot, *[v for v in own if v]))
    # projects: the first decides every decision slot, the second only the first one (a task decides
    # the other), the other team's project decides both, differently from the first
    own_a, own_b, other = d["projects"]
    ds = d["decision"]
    t.project[own_a] = {s: p.other(s, p.default(s)) for s in ds}
    t.project[own_b] = {ds[0]: p.other(ds[0], p.default(ds[0]), t.project[own_a][ds[0]])}
    t.project[other] = {s: p.other(s, t.project[own_a][s]) for s in ds}
    return t


def _session(when: str, scope: str, turns, project: str = "") -> SeedSession:
    return SeedSession(when, scope, tuple(turns), project)


class _History:
    """The seed sessions being written and the facts they state, with the persona's random stream:
    `day` draws a time, `say` adds a user statement with an assistant's acknowledgement, `item`
    records the fact a text states (ids in the order the facts are stated)."""

    def __init__(self, p: _Persona):
        self.p, self.rng = p, p.rng
        self.scope = f"user:{p.user}"
        self.sessions: list[SeedSession] = []
        self.items: list[MemoryItem] = []

    def day(self, lo: int, hi: int) -> str:
        return _day(HISTORY_START, self.rng.randrange(lo, hi), self.rng.randrange(8, 19))

    def item(
        self, kind, sc, text, slot, value, when, cond="", supersedes="", source="user_statement"
    ) -> MemoryItem:
        m = MemoryItem(
            f"m{len(self.items) + 1}",
            kind,
            sc,
            text,
            slot,
            value,
            self.p.noun(slot),
            (),
            cond,
            Provenance(source, "", text),
            when,
            "",
            supersedes,
        )
        self.items.append(m)
        return m

    def say(self, when: str, text: str, sc: str = "") -> None:
        turns = (SeedTurn("user", text), SeedTurn("assistant", self.rng.choice(ACKS)))
        self.sessions.append(_session(when, sc or self.scope, turns))


def make_history(p: _Persona, t: Truth) -> tuple[tuple[SeedSession, ...], tuple[MemoryItem, ...]]:
    """The seed sessions (in time order) and the facts they state (for analysis): the user's own
    statements, the colleagues', the projects' decisions, then small talk."""
    h = _History(p)
    _user_statements(h, t)
    _colleague_statements(h, t)
    _project_decisions(h, t)
    for user_text, reply in p.rng.sample(FILLER, 3):
        turns = (SeedTurn("user", user_text), SeedTurn("assistant", reply))
        h.sessions.append(_session(h.day(0, HISTORY_DAYS), h.scope, turns))
    h.sessions.sort(key=lambda s: s.time)
    return tuple(h.sessions), tuple(h.items)


def _user_statements(h: _History, t: Truth) -> None:
    """What the user said about each of their slots, by the slot's role (a revision in two sessions,
    the old fact's validity ended by the new one; a conditional value with its context's phrase)."""
    p, rng, scope, day, say, item = h.p, h.rng, h.scope, h.day, h.say, h.item
    for slot in p.d["user_slots"]:
        role = t.role[slot]
        if role == "preference":
            when = day(0, HISTORY_DAYS - 40)
            text = p.say(PREF, slot, t.pref[slot])
            say(when, text)
            item("preference", scope, text, slot, t.pref[slot], when)
            if rng.random() < 0.5:
                say(day(HISTORY_DAYS - 40, HISTORY_DAYS), p.say(RESTATE, slot, t.pref[slot]))
        elif role == "revised":
            old = p.other(slot, t.pref[slot])
            w0, w1 = day(0, HISTORY_DAYS // 2), day(HISTORY_DAYS // 2, HISTORY_DAYS)
            t0 = p.say(PREF, slot, old)
            say(w0, t0)
            m0 = item("preference", scope, t0, slot, old, w0)
            t1 = rng.choice(REVISE).format(f=p.form(slot, t.pref[slot]), o=p.form(slot, old), n=p.noun(slot))
            say(w1, t1)
            h.items[h.items.index(m0)] = replace(m0, valid_to=w1)
            item("preference", scope, t1, slot, t.pref[slot], w1, supersedes=m0.item_id)
        elif role == "habit":
            when = day(0, HISTORY_DAYS)
            text = p.say(HABIT, slot, t.habit[slot])
            say(when, text)
            item("habit", scope, text, slot, t.habit[slot], when)
        elif role == "conditional":
            tag, vc = t.cond[slot]
            phrase = rng.choice(p.d["contexts"][tag])
            when = day(0, HISTORY_DAYS)
            ctext = p.say(COND, slot, vc, c=phrase)
            if slot in t.pref:  # general value and the exception, one session, two sentences
                gtext = p.say(GENERAL, slot, t.pref[slot])
                say(when, f"{gtext} {ctext}")
                item("preference", scope, gtext, slot, t.pref[slot], when)
            else:
                say(when, ctext)
            item("preference", scope, ctext, slot, vc, when, cond=phrase)


def _colleague_statements(h: _History, t: Truth) -> None:
    """The colleagues' preferences as the user reports them (facts in the colleague's scope), then
    the first colleague's own session (another user's scope)."""
    p = h.p
    for slot, (name, value) in t.colleague.items():
        when = h.day(0, HISTORY_DAYS)
        text = p.say(COLLEAGUE, slot, value, p=name)
        h.say(when, text)
        h.item("preference", f"user:{_slug(name)}", text, slot, value, when)
    name, value = next(iter(t.colleague.values()))
    slot = next(iter(t.colleague))
    own = p.say(COLLEAGUE_OWN, slot, value, p=name)
    h.say(h.day(0, HISTORY_DAYS), own, f"user:{_slug(name)}")


def _project_decisions(h: _History, t: Truth) -> None:
    """Each project decision as a user statement and its `record_decision` receipt (the other team's
    forwarded by a colleague), one session in the project's scope."""
    p, rng = h.p, h.rng
    other = p.d["projects"][2]
    for proj, decided in t.project.items():
        for slot, value in decided.items():
            when = h.day(0, HISTORY_DAYS)
            if proj == other:
                text = rng.choice(OTHER_TEAM).format(
                    p=rng.choice(p.d["colleagues"]), j=proj, f=p.form(slot, value), n=p.noun(slot)
                )
            else:
                text = p.say(DECIDE, slot, value, j=proj)
            receipt = f"Decision recorded for {proj}: {p.noun(slot)} set to {p.form(slot, value)}."
            turns = (
                SeedTurn("user", text),
                SeedTurn("tool", receipt, DECISION_TOOL, {"status": "ok", f"{DECISION_PREFIX}{slot}": value}),
                SeedTurn("assistant", "Recorded."),
            )
            h.sessions.append(_session(when, f"project:{proj}", turns, proj))
            h.item("project_state", f"project:{proj}", receipt, slot, value, when, source="tool_receipt")


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


# -- tasks ---------------------------------------------------------------------------------------
def _purposes(rng: random.Random, n: int) -> list[str]:
    base = ["cond_in", "cond_in", "cond_out", "cond_out", "ignore", "ignore", "carry", "carry", "carry"]
    out = base + ["plain"] * (n - len(base))
    rng.shuffle(out)
    return out


@dataclass
class _Draft:
    """One task while it is written: its situation (purpose, context, project, level, the tools of
    its steps), then each slot's gold (value, source), what the request states, the tasks it depends
    on, and its mid-task user message (step, slot, value, change | reveal)."""

    ti: int
    task_id: str
    purpose: str
    context: tuple[str, ...]
    project: str
    level: int
    seq: list[str]
    undecided: list[str]  # project slots a decision step of this task records
    gold: dict[str, tuple[str, str]] = field(default_factory=dict)
    request_args: dict[str, str] = field(default_factory=dict)
    stated: list[tuple[str, str, tuple]] = field(default_factory=list)  # (slot, value, templates)
    deps: set[str] = field(default_factory=set)
    msg: tuple[int, str, str, str] | None = None


class _TaskWriter:
    """A persona's chain of tasks, one at a time (`write`), in named stages: the situation its
    purpose asks for, the gold values, the mid-task message, the steps with their checkpoints, the
    chain's truth updated after the task, and the request. Across tasks it keeps the truth and
    whether the chain still owes a lasting change and a one-off reveal."""

    def __init__(self, p: _Persona, t: Truth, n_tasks: int):
        d = p.d
        self.p, self.t, self.n_tasks, self.rng = p, t, n_tasks, p.rng
        self.tools = {name: slots for name, (_, _, _, slots) in d["tools"].items()}
        self.subgoal = {name: sg for name, (_, _, sg, _) in d["tools"].items()}
        self.subgoal[DECISION_TOOL] = "settle the open project decisions"
        self.service = {name: svc for name, (svc, _, _, _) in d["tools"].items()}
        self.service[DECISION_TOOL] = DECISION_SERVICE
        self.ds, self.free = d["decision"], d["free_slot"]
        self.own_a, self.own_b, _ = d["projects"]
        self.tags = list(d["contexts"])
        self.plans = [tuple(x) for x in d["plans"]]
        self.change_pending, self.reveal_pending = True, True

    def write(self, ti: int, purpose: str) -> SimTask:
        draft = self.situation(ti, purpose)
        self.gold(draft)
        self.message(draft)
        steps, cps = self.steps(draft)
        self.update_truth(draft)
        return self.task(draft, steps, cps)

    def situation(self, ti: int, purpose: str) -> _Draft:
        """Plan, context, project and level per purpose; a decision step first when the plan (of at
        most 3 tools) uses a project slot the project has not decided (in a longer plan the request
        states it and a later task records it)."""
        rng, t, tools, tags, plans = self.rng, self.t, self.tools, self.tags, self.plans
        cond_slots = list(t.cond)
        focus = rng.choice(cond_slots) if purpose in ("cond_in", "cond_out") else ""
        if focus:
            plan = rng.choice([x for x in plans if any(focus in tools[s] for s in x)])
            tag = t.cond[focus][0]
            if purpose == "cond_in":
                context = (tag,)
            else:
                context = () if rng.random() < 0.3 else (rng.choice([x for x in tags if x != tag]),)
        elif purpose == "carry":
            plan = rng.choice([x for x in plans if sum(self.free in tools[s] for s in x) >= 2])
            context = () if rng.random() < 0.5 else (rng.choice(tags),)
        else:
            plan = rng.choice(plans)
            context = () if rng.random() < 0.5 else (rng.choice(tags),)
        used = {s for name in plan for s in tools[name]}
        if purpose == "ignore":
            ok = [x for x in tags if not any(t.cond[s][0] == x for s in t.cond if s in used)]
            context = (rng.choice(ok),) if ok and rng.random() < 0.6 else ()
        project = "" if purpose == "ignore" else rng.choice([self.own_a, self.own_b])
        level = 2 if purpose == "ignore" else rng.choices([1, 2, 3], (0.4, 0.45, 0.15))[0]
        seq = list(plan)
        undecided = [s for s in self.ds if project and s not in t.project[project] and s in used]
        if undecided and len(plan) <= 3:
            seq = [DECISION_TOOL] + seq
        task_id = f"{self.p.user}_t{ti + 1:02d}"
        return _Draft(ti, task_id, purpose, context, project, level, seq, undecided)

    def gold(self, draft: _Draft) -> None:
        """Each slot's gold (value, source) for this task, what the request states and the tasks
        whose changes it depends on."""
        p, t, ds, free, project = self.p, self.t, self.ds, self.free, draft.project
        gold, request_args, stated = draft.gold, draft.request_args, draft.stated
        for slot in [s for name in draft.seq for s in (self.tools.get(name) or ds)]:
            if slot in gold:
                continue
            if slot in ds:
                if not project:
                    gold[slot] = (p.default(slot), "inapplicable")
                elif slot in t.project[project]:
                    gold[slot] = (t.project[project][slot], "project")
                    if (project, slot) in t.project_set_by:
                        draft.deps.add(t.project_set_by[(project, slot)])
                else:
                    gold[slot] = (
                        p.other(slot, *t.project[self.own_a].values(), p.default(slot))
                        if len(p.values(slot)) > 2
                        else p.other(slot),
                        "explicit",
                    )
            elif slot == free:
                gold[slot] = (
                    (p.other(slot), "explicit") if self.rng.random() < 0.6 else (p.default(slot), "default")
                )
            else:
                gold[slot] = _user_gold(p, t, slot, draft.context, draft.purpose, draft.deps)
            v, src = gold[slot]
            if src in ("explicit", "habit_override"):
                request_args[slot] = v
                overrides = src == "habit_override" or draft.purpose == "ignore"
                stated.append((slot, v, OVERRIDE if overrides and slot != free and slot not in ds else STATE))
            elif src in ("preference", "revised", "conditional", "project"):
                if draft.level == 3:
                    gold[slot] = (v, "explicit")
                    request_args[slot] = v
                    stated.append((slot, v, STATE))
                elif draft.level == 1 and src != "project":
                    request_args[slot] = "?"

    def message(self, draft: _Draft) -> None:
        """A mid-task user message (step >= 1, before the slot's first use): a lasting change (the
        chain owes one from its third task on) or a one-off reveal (owed from its second task on)."""
        if draft.purpose == "ignore":
            return
        rng, t, p, gold, seq = self.rng, self.t, self.p, draft.gold, draft.seq
        cands = [
            (i, s)
            for i, name in enumerate(seq)
            if i >= 1
            for s in self.tools.get(name, ())
            if s in t.role
            and gold[s][1] in ("preference", "revised", "default", "inapplicable")
            and t.role[s] != "conditional"
            and s not in _before(seq, i, self.tools)
        ]
        change = [(i, s) for i, s in cands if t.role[s] in ("preference", "revised", "none")]
        if change and ((self.change_pending and draft.ti >= 2) or rng.random() < 0.06):
            i, s = rng.choice(change)
            draft.msg = (i, s, p.other(s, gold[s][0]), "change")
            self.change_pending = False
        elif cands and ((self.reveal_pending and draft.ti >= 1) or rng.random() < 0.06):
            i, s = rng.choice(cands)
            draft.msg = (i, s, p.other(s, gold[s][0]), "reveal")
            self.reveal_pending = False

    def steps(self, draft: _Draft) -> tuple[list[StepSpec], list[Checkpoint]]:
        """The steps and one checkpoint per (step, argument): from the message's step on its slot
        takes the message's value; a repeated free slot carries the first step's value."""
        p, msg, task_id = self.p, draft.msg, draft.task_id
        steps, cps = [], []
        carry_src: dict[str, str] = {}
        stage = _stage(draft.ti, self.n_tasks)
        for i, name in enumerate(draft.seq):
            step_id = f"{task_id}_s{i + 1}"
            artifact = f"{task_id}-{i + 1}-{self.service[name]}"  # the service, not the tool's name
            umsg, utext = {}, ""
            if msg and msg[0] == i:
                _, s, v, kind = msg
                umsg = {s: v}
                utext = p.say(CHANGE if kind == "change" else REVEAL, s, v)
            args = []
            for slot in self.tools.get(name) or self.ds:
                v, src = draft.gold[slot]
                carry = ""
                if msg and slot == msg[1] and i >= msg[0]:
                    v, src = msg[2], "user_message"
                elif slot == self.free and slot in carry_src:
                    src, carry = "carried", carry_src[slot]
                carry_src.setdefault(slot, f"{step_id}.{slot}")
                args.append(ArgSpec(slot, v, src, p.default(slot), carry))
                cps.append(Checkpoint(f"{step_id}:{slot}", artifact, slot, v, stage, src))
            subgoal = f"{self.subgoal[name]} '{artifact}'"
            steps.append(StepSpec(step_id, name, artifact, subgoal, tuple(args), stage, umsg, utext))
        return steps, cps

    def update_truth(self, draft: _Draft) -> None:
        """After the task: the decisions its decision step recorded, and its message's change (a
        lasting preference) or reveal (a value for this task only)."""
        t, project, task_id = self.t, draft.project, draft.task_id
        for slot in draft.undecided if draft.seq[0] == DECISION_TOOL else ():
            t.project[project][slot] = draft.gold[slot][0]
            t.project_set_by[(project, slot)] = task_id
        if draft.msg:
            _, s, v, kind = draft.msg
            if kind == "change":
                t.pref[s] = v
                t.role[s] = "revised" if t.role[s] != "none" else "preference"
                t.set_by[s] = task_id
                t.oneoff.pop(s, None)
            else:
                t.oneoff[s] = v

    def task(self, draft: _Draft, steps: list[StepSpec], cps: list[Checkpoint]) -> SimTask:
        """The task record, with its topic and request text."""
        context, ti = draft.context, draft.ti
        topic = self.rng.choice(self.p.d["topics"][context[0] if context else ""])
        text = _request(self.p, topic, context, draft.seq, self.subgoal, draft.stated, draft.request_args)
        category = {"ignore": "ignore_memory", "carry": "chained"}.get(draft.purpose, "personalised")
        return SimTask(
            draft.task_id,
            self.p.user,
            draft.project,
            category,
            ti + 1,
            _day(TASK_START, 2 * ti),
            draft.level,
            text,
            draft.request_args,
            tuple(steps),
            tuple(cps),
            tuple(sorted(draft.deps)),
            topic,
            context,
        )


def make_tasks(p: _Persona, t: Truth, n_tasks: int) -> list[SimTask]:
    """The persona's chain of `n_tasks` tasks, their purposes shuffled (`_purposes`); each task reads
    the truth as the earlier tasks left it."""
    writer = _TaskWriter(p, t, n_tasks)
    return [writer.write(ti, purpose) for ti, purpose in enumerate(_purposes(p.rng, n_tasks))]


def _before(seq, i, tools) -> set[str]:
    """Slots already used by the steps before step i (a message changes a value before its first use)."""
    return {s for name in seq[:i] for s in tools.get(name, ())}


def _user_gold(
    p: _Persona, t: Truth, slot: str, context: tuple[str, ...], purpose: str, deps: set[str]
) -> tuple[str, str]:
    rng, role = p.rng, t.role[slot]
    if purpose == "ignore":  # the request overrides every remembered value; nothing else applies
        if role == "habit":
            return p.other(slot, t.habit[slot]), "habit_override"
        if slot in t.pref:
            return p.other(slot, t.pref[slot], t.cond.get(slot, ("", ""))[1]), "explicit"
        return p.default(slot), "inapplicable"
    if role == "habit":
        return p.other(slot, t.habit[slot]), "habit_override"
    if role == "conditional" and t.cond[slot][0] in context:
        return t.cond[slot][1], "conditional"
    if slot in t.pref:
        if slot in t.set_by:
            deps.add(t.set_by[slot])
        return t.pref[slot], ("revised" if slot in t.revised or slot in t.set_by else "preference")
    if rng.random() < 0.35:
        return p.other(slot), "explicit"
    # memory holds a value for this slot that does not apply (a condition elsewhere, a colleague's,
    # a value revealed for one earlier task only)
    held = slot in t.cond or slot in t.colleague or slot in t.oneoff
    return p.default(slot), ("inapplicable" if held else "default")


def _request(p: _Persona, topic: str, context, seq, subgoal, stated, request_args) -> str:
    rng = p.rng
    parts = [rng.choice(OPEN).format(t=topic)]
    if context:
        parts.append(rng.choice(CONTEXT).format(c=rng.choice(p.d["contexts"][context[0]])))
    goals = [subgoal[x] for x in seq]
    parts.append(
        "Please "
        + (goals[0] if len(goals) == 1 else ", then ".join(goals[:-1]) + " and finally " + goals[-1])
        + "."
    )
    for slot, value, templates in stated:
        parts.append(_cap(p.say(templates, slot, value)))
    for slot, v in request_args.items():
        if v == "?":
            parts.append(rng.choice(USUAL).format(n=p.noun(slot)))
    return " ".join(parts)


def build_persona(user: str, rng: random.Random, n_tasks: int) -> tuple[Persona, list[SimTask], Truth]:
    p = _Persona(user, rng)
    truth = make_truth(p)
    history, memory = make_history(p, truth)
    tasks = make_tasks(p, truth, n_tasks)
    return Persona(user, p.d["role"], memory, p.tools(), history), tasks, truth
