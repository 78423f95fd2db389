"""The Proactive Memory Agent's offline stand-in: rule-based versions of its two decisions.

With `llm=offline` the memory agent's two prompted phases (eval/methods/pma.py) are answered by
these rules instead of a model; they make the same kind of decision the prompt asks for, from the
same inputs (the task, the k-message window, the bank), and emit the same tool calls / reply.

Phase 1, memory management (`manage_calls`), over the events new since the last invocation:
- the request -> one knowledge entry per requirement: the request split into clauses (sentences,
  ";", ", then" / " then "), each saved as "Requirement: <clause>." A clause is linked to the tool it
  names (its name or its name's words: "send update" for `send_update`) or, failing that, the tool
  it means through the run's reader (`pulse.reading`: "book the sample pickup" -> a courier tool
  described so), as the real agent's LLM links it; quoted names in it ('x') are the artifacts it is
  about;
- a user message mid-task -> a requirement entry ("Requirement (user, step n): ...") and, through
  the shared fact extractor (eval/methods/standins.py), its durable facts as knowledge (an entry for
  the same (scope, slot) with another value is deleted first);
- a tool receipt's decision fields -> project-decision knowledge (same extractor, same replacement);
- procedural entries from any failed or corrected step:
    a tool error            -> "Do not repeat <call>: it failed (<error>)."
    a call redone/replaced  -> "<tool> was redone ..." (a later call of the same tool on the same
                               artifact / id argument, or right after that tool failed)
    a user correction       -> "The user corrected the <tool> call ..." (a user message after a
                               call that states another value for a slot the call used, or, where
                               no vocabulary reads its values, a message with a correction cue)
  Procedural texts put the failed values after "Do not"/"instead of", so the shared text reader
  (eval/methods/text_slots.py) does not read them as values to use;
- the status (private): which requirements are done (an executed call of the linked tool on the
  clause's artifact), the last step, and the next call the agent is expected to make.

Phase 2, intervention selection (`select_entries`): the next call is estimated from the event stream
first (`next_call`): the redo of a call that failed or was corrected, else the agent's announced
plan when its call has not come yet, else the first open requirement linked to a tool after the
last one done, else the tool of the last executed call (agents often continue with the same tool).
Without a bank (injection_only, mem0_top10) the same estimate runs statelessly over the task's
requirements (the task is an input of both phases in every variant) and the calls still in the
window: a call that has left the window is invisible, as it would be to a prompted memory agent.
An entry goes into the reminder when it bears on that call and is likely to change the decision:
- a fact / requirement that states a value for one of the call's arguments, taking per argument the
  binding one only: a requirement of this task over a decision of this task's project over a user
  preference (another project's decisions never bind); silent for that argument when the statement
  is still inside the window (just said) or the pending call (a redo, an announced plan) already
  holds the value. A value the agent used a few steps ago is reminded again: that it stops steering
  later calls is the failure the paper targets (behavioural state decay);
- a procedural entry about the call's tool, when the call is its redo or the entry's step has left
  the window;
- a requirement without a readable value (no vocabulary, real benchmarks) that shares a content word
  with the call's tool name or known argument values, once it has left the window.
Nothing left -> null (silence).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from eval.methods import standins
from pulse.core.records import Event
from pulse.core.statements import IMPLICIT, SlotTerms, parse_statement

REQ = "Requirement"
_CLAUSE = re.compile(r"(?<=[.!?])\s+|;\s*|,?\s+(?:and\s+)?then\s+", re.I)
_TAG = re.compile(r"^\s*\[[^\]]*\]\s*")
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
_CORRECTION = re.compile(
    r"\b(no,|not what|wrong|instead|actually|i meant|rather|correct(?:ion)?|change it|should be)\b", re.I
)
_STOP = frozenset(
    "the and for with that this from your you are was were have has not please then use using into "
    "about what when will would could should make need want also just".split()
)
ID_KEYS = ("name", "id", "path", "file")


def words(text: str) -> set[str]:
    return {
        w for w in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")) if len(w) >= 4 and w not in _STOP
    }


@dataclass
class Meta:
    """What the stand-in knows about one bank entry (the prompted path keeps none)."""

    kind: str  # requirement | fact | procedural
    source: int = -1  # index of the event it came from in the session stream (-1: before this task)
    tool: str = ""  # requirement: the tool its clause names; procedural: the tool it is about
    artifacts: tuple[str, ...] = ()
    done: bool = False
    redo_of: int = -1  # procedural: index of the call it is about


@dataclass
class CallRecord:
    """A call of the task as the stand-in tracks it: its place in the event stream, the tool and
    arguments, and its result once the receipt came."""

    index: int  # index of the candidate_call in the stream
    tool: str
    args: dict[str, str]
    result: str = ""  # "" pending | ok | error
    error: str = ""


@dataclass
class NextCall:
    """The call the agent is expected to make next (`next_call`): the tool, the values it is known
    to intend, and why it is expected."""

    tool: str
    args: dict[str, str] = field(default_factory=dict)  # values the agent is known to intend (redo, plan)
    why: str = ""  # redo | plan | requirement | continuation
    redo_of: int = -1


def clauses(request: str) -> list[str]:
    """The request's requirements: its clauses, without a leading [tag] and lead words."""
    out = []
    for c in _CLAUSE.split(_TAG.sub("", request or "")):
        c = re.sub(r"^(?:please|constraints:|also|and)\s+", "", c.strip(" .,"), flags=re.I).strip(" .,")
        if len(c) > 2:
            out.append(c)
    return out


def tool_named(text: str, tools: Iterable[str], reading=None) -> str:
    """The (longest) known tool a text names by its name or its name's words; else, with the run's
    reader (`pulse.reading.BoundReader`), the tool the text means ("book the sample pickup" ->
    `schedule_courier`), as the real agent's LLM links it."""
    low = text.lower()
    tools = list(tools)
    hits = [t for t in tools if t.lower() in low or t.lower().replace("_", " ") in low]
    if hits:
        return max(hits, key=len)
    return reading.link_tool(text, tools) if reading is not None else ""


def artifacts(text: str) -> tuple[str, ...]:
    return tuple(a or b for a, b in _QUOTED.findall(text))


def call_text(tool: str, args: Mapping[str, str]) -> str:
    return f"{tool}({', '.join(f'{k}={v}' for k, v in args.items())})"


def _id_arg(args: Mapping[str, str]) -> set[tuple[str, str]]:
    return {(k, v) for k, v in args.items() if k in ID_KEYS or k.endswith(("_id", "_name", "_path"))}


def is_redo(prev: CallRecord, cand: Event) -> bool:
    """Whether a candidate call redoes / replaces an earlier call of the task."""
    if prev.tool != cand.tool:
        return False
    return prev.result == "error" or bool(_id_arg(prev.args) & _id_arg(cand.args))


@dataclass
class Management:
    """Phase 1's answer: the memory tool calls to make, in order, and the stand-in's `Meta` of each
    entry they save."""

    calls: list[dict] = field(default_factory=list)
    metas: list[Meta | None] = field(default_factory=list)  # one per save call, in order

    def save(self, store: str, text: str, meta: Meta) -> None:
        self.calls.append({"tool": f"memory_save_{store}", "args": {"text": text}})
        self.metas.append(meta)

    def delete(self, eid: str) -> None:
        self.calls.append({"tool": "memory_delete", "args": {"id": eid}})


def manage_calls(
    new: Sequence[tuple[int, Event]],
    knowledge: Mapping[str, str],
    procedural: Mapping[str, str],
    metas: Mapping[str, Meta],
    calls: Sequence[CallRecord],
    tools: Iterable[str],
    vocab: Mapping[str, SlotTerms],
    user_id: str,
    project_id: str,
    next_id: int = 1,
    reading=None,
) -> Management:
    """Phase 1 (see the module docstring). `new`: (stream index, event) not yet managed; `next_id`: the
    number the bank gives its next saved entry (`e<n>`), so a later fact of the same call can replace an
    earlier one."""
    mg = _Manager(
        knowledge, procedural, metas, calls, list(tools), vocab, user_id, project_id, next_id, reading
    )
    for i, ev in new:
        if ev.kind == "request":
            mg.request(i, ev)
        elif ev.kind == "message" and ev.role == "user":
            mg.user_message(i, ev)
        elif ev.kind == "candidate_call":
            mg.candidate_call(i, ev)
        elif ev.kind == "tool_result":
            mg.tool_result(i, ev)
    return mg.m


class _Manager:
    """Phase 1 over one batch of new events, one method per kind of event. It keeps the calls it
    emits (`m`), the facts the bank holds by entry id (`held`: a fact replaced by another value for
    the same (scope, slot) leaves it) and the procedural texts already in the bank."""

    def __init__(
        self,
        knowledge: Mapping[str, str],
        procedural: Mapping[str, str],
        metas: Mapping[str, Meta],
        calls: Sequence[CallRecord],
        tools: list[str],
        vocab: Mapping[str, SlotTerms],
        user_id: str,
        project_id: str,
        next_id: int,
        reading,
    ):
        self.m = Management()
        self.calls, self.tools, self.reading = calls, tools, reading
        self.user_id, self.project_id, self.next_id = user_id, project_id, next_id
        self.held = {
            eid: f
            for eid, text in knowledge.items()
            if metas.get(eid, Meta("fact")).kind == "fact"
            for f in standins.read_facts(text, vocab, user_id)
        }
        self.proc_texts = set(procedural.values())

    def fact(self, f: standins.Fact, i: int) -> None:
        """Save a fact unless the bank holds it; an entry for its (scope, slot) with another value is
        deleted first."""
        same = [eid for eid, g in self.held.items() if g.key == f.key]
        if any(self.held[eid].value == f.value for eid in same):
            return
        for eid in same:
            self.m.delete(eid)
            self.held.pop(eid)
        self.held[f"e{self.next_id + len(self.m.metas)}"] = f
        self.m.save("knowledge", f.text, Meta("fact", i))

    def procedure(self, text: str, i: int, tool: str, about: int) -> None:
        if text not in self.proc_texts:
            self.proc_texts.add(text)
            self.m.save("procedural", text, Meta("procedural", i, tool, redo_of=about))

    def _facts(self, ev: Event, i: int) -> None:
        for f in standins.extract_facts([ev], self.user_id, self.project_id, self.reading):
            self.fact(f, i)

    def request(self, i: int, ev: Event) -> None:
        """One requirement entry per clause, linked to the tool it names or means."""
        for c in clauses(ev.text):
            self.m.save(
                "knowledge",
                f"{REQ}: {c}.",
                Meta("requirement", i, tool_named(c, self.tools, self.reading), artifacts(c)),
            )

    def user_message(self, i: int, ev: Event) -> None:
        """A requirement entry, its durable facts, and a procedural entry when it corrects the last
        executed call (another value for a slot the call used, or a correction cue)."""
        self.m.save(
            "knowledge",
            f"{REQ} (user, step {ev.step}): {ev.text.strip()}",
            Meta("requirement", i, tool_named(ev.text, self.tools, self.reading), artifacts(ev.text)),
        )
        self._facts(ev, i)
        last = next((c for c in reversed(self.calls) if c.index < i and c.result == "ok"), None)
        if last is None:
            return
        changed = {k: v for k, v in ev.args.items() if k in last.args and last.args[k] != v and v != IMPLICIT}
        if changed:
            said = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in changed.items())
            self.procedure(f"The user corrected the {last.tool} call: use {said}.", i, last.tool, last.index)
        elif not ev.args and _CORRECTION.search(ev.text):
            self.procedure(
                f"The user corrected the {last.tool} call ({call_text(last.tool, last.args)}): "
                f'"{ev.text.strip()[:160]}"',
                i,
                last.tool,
                last.index,
            )

    def candidate_call(self, i: int, ev: Event) -> None:
        """A procedural entry when the call redoes or replaces an earlier one."""
        prev = next((c for c in reversed(self.calls) if c.index < i and is_redo(c, ev)), None)
        if prev is None:
            return
        diff = {k: v for k, v in ev.args.items() if prev.args.get(k) != v}
        what = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in diff.items()) or "the same arguments"
        self.procedure(
            f"{ev.tool} was redone after its earlier call "
            f"{'failed' if prev.result == 'error' else 'was replaced'}; "
            f"the redo used {what}.",
            i,
            ev.tool,
            prev.index,
        )

    def tool_result(self, i: int, ev: Event) -> None:
        """A procedural entry for a failed call; the receipt's decision fields as facts."""
        call = next((c for c in reversed(self.calls) if c.index < i and c.tool == ev.tool), None)
        if ev.args.get("status") == "error" or ev.text.lower().startswith("error"):
            shown = call_text(ev.tool, call.args) if call else ev.tool
            self.procedure(
                f"Do not repeat {shown}: it failed ({ev.text.strip()[:120]}).",
                i,
                ev.tool,
                call.index if call else -1,
            )
        self._facts(ev, i)


def mark_done(metas: Mapping[str, Meta], call: CallRecord) -> str:
    """Mark the open requirement an executed call fulfils; returns its id ('' = none)."""
    vals = {str(v) for v in call.args.values()}
    for eid, meta in metas.items():
        if (
            meta.kind == "requirement"
            and not meta.done
            and meta.tool == call.tool
            and (not meta.artifacts or set(meta.artifacts) & vals)
        ):
            meta.done = True
            return eid
    return ""


def next_call(
    stream: Sequence[Event],
    calls: Sequence[CallRecord],
    metas: Mapping[str, Meta] | None,
    tools: Iterable[str],
    reading=None,
) -> NextCall | None:
    """The call the agent is about to make, from the event stream (see the module docstring).
    `metas`: the requirement entries (with their done marks) the estimate may use."""
    last = calls[-1] if calls else None
    if last is not None and last.result == "error":
        return NextCall(last.tool, dict(last.args), "redo", last.index)
    plan = next(
        (
            i
            for i in range(len(stream) - 1, -1, -1)
            if stream[i].kind == "message" and stream[i].role == "agent"
        ),
        -1,
    )
    if plan >= 0 and (last is None or plan > last.index):
        # the plan as the agent wrote it (its words; the values parsed from them are its args)
        t = tool_named(stream[plan].text, tools, reading)
        if t:
            return NextCall(t, dict(stream[plan].args), "plan")
    # a user correction of the last call: the agent is expected to redo it
    if (
        last is not None
        and any(e.kind == "message" and e.role == "user" for e in stream[last.index + 1 :])
        and metas
        and any(
            m.kind == "procedural" and m.redo_of == last.index and m.source > last.index
            for m in metas.values()
        )
    ):
        return NextCall(last.tool, dict(last.args), "redo", last.index)
    if metas:
        reqs = [m for m in metas.values() if m.kind == "requirement" and m.tool]
        last_done = max((j for j, m in enumerate(reqs) if m.done), default=-1)
        # the open requirement after the last one done ("B is done, so C is next"), else any open one
        nxt = next((m for m in reqs[last_done + 1 :] if not m.done), None) or next(
            (m for m in reqs if not m.done), None
        )
        if nxt is not None:
            return NextCall(nxt.tool, {}, "requirement")
    if last is not None:
        return NextCall(last.tool, {}, "continuation")
    return None


def select_entries(
    nxt: NextCall | None,
    entries: Mapping[str, str],
    metas: Mapping[str, Meta],
    window_start: int,
    window: Sequence[Event],
    slots: Sequence[str],
    vocab: Mapping[str, SlotTerms],
    user_id: str,
    project_id: str,
    strict: bool = True,
) -> list[str]:
    """Phase 2 (see the module docstring): the ids of the entries that go into the reminder.
    `strict=False` (always_inject, when the strict choice is silence): what bears on the next call,
    without the "likely to change the decision" filters."""
    if nxt is None:
        return []
    in_window = lambda meta: meta.source >= window_start  # noqa: E731
    used = {k: str(v) for k, v in nxt.args.items()}  # what the pending call (a redo, a plan) already holds
    rank = {"requirement": 0, "project": 1, "user": 2}
    binding: dict[str, tuple[tuple, str, str]] = {}  # slot -> (rank key, entry id, value)
    unread: list[str] = []
    for order, (eid, text) in enumerate(entries.items()):
        meta = metas.get(eid, Meta("fact"))
        if meta.kind == "procedural":
            continue
        facts = [f for f in standins.read_facts(text, vocab, user_id) if f.slot in slots]
        if meta.kind == "requirement" and not facts:
            stated = parse_statement(text, vocab) if vocab else {}
            if (
                not stated and not meta.tool and not meta.done
            ):  # an action requirement is tracked in the status
                unread.append(eid)
            continue
        for f in facts:
            if f.scope.startswith("project:") and f.scope != f"project:{project_id}":
                continue  # another project's decision does not bind this task
            r = (
                rank["requirement"]
                if meta.kind == "requirement"
                else rank["project" if f.scope.startswith("project:") else "user"]
            )
            key = (r, -order)  # within a rank the newest entry binds
            if f.slot not in binding or key < binding[f.slot][0]:
                binding[f.slot] = (key, eid, f.value)
    chosen: list[str] = []
    for slot, (_, eid, value) in binding.items():
        meta = metas.get(eid, Meta("fact"))
        if strict and (in_window(meta) or used.get(slot) == value):
            continue  # just stated (in the window), or the pending call already holds it: no change expected
        chosen.append(eid)
    for eid in entries:
        meta = metas.get(eid, Meta("fact"))
        if (
            meta.kind == "procedural"
            and meta.tool == nxt.tool
            and ((nxt.why == "redo" and meta.redo_of == nxt.redo_of) or not in_window(meta) or not strict)
        ):
            chosen.append(eid)
    near = words(nxt.tool) | set().union(*(words(str(v)) for v in nxt.args.values()))
    for eid in unread:
        if (not strict or not in_window(metas.get(eid, Meta("fact")))) and words(entries[eid]) & near:
            chosen.append(eid)
    order = list(entries)
    return sorted(dict.fromkeys(chosen), key=order.index)
