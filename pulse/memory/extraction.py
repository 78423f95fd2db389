"""Rule-based candidate extraction from a finished conversation (no LLM needed).

- a user message whose args state slot values -> one preference per slot (value as quote);
- user statements (request / user message) -> preference / habit candidates, one per sentence
  with a preference cue, carrying the sentence as quote and the event id; "my preferred X is Y"
  fills slot X and value Y; a sentence whose only cue is "my usual / preferred X" without a value
  ("use my usual palette") refers to memory instead of stating anything, so it writes nothing;
  "this time" / "for this task" marks a temporary, task-scoped choice;
  "let's go with ..." / "we decided ..." -> a project decision; "still need to ..." -> pending item.
- a structured user statement's quote is the sentence that states the value as the user's own
  choice (validation rejects a value the words negate, give to another slot, or attribute to
  someone else);
- successful tool receipts -> project progress ("progress:<tool>") and, when the receipt names an
  artifact and a version, an artifact version ("artifact:<name>"). The receipt's text is kept as
  data (the provenance quote of an untrusted `tool_receipt`), never merged into the record's
  sentence, and renderers show it quoted;
- the task_end text -> a stage summary;
- two or more successful calls -> a reusable workflow whose step dependencies are read from the
  data flow (a later call's argument equals an earlier receipt's field or appears in its text).
An LLM extractor can add richer candidates through `ConversationWriter.add_candidate`; every
candidate, extracted here or not, goes through the same source validation.

With a reader (`read`: text, project -> `pulse.reading.ReadFact`s; the reading layer bound to the
tools' schema), a user statement is filed as the paper files it (Appendix A.1) before the cue rules
above run on what it left:
- the user's own lasting preference or attribute -> a binding `preference` (slot = the argument);
  a habit -> a `habit` (descriptive: a value the user states beats it); the condition it was stated
  with -> `conditions`; a one-off ("just this time", a requirement of this task) -> task-scoped;
- someone else's words (a colleague, another team, another project) -> nothing in this user's or
  this project's memory; a decision of this conversation's project -> a `project_state` decision;
- an avoided value ("never to a gift card") -> a binding preference for anything but it (value
  `not:gift_card`, pulse.core.values.AVOID); a withdrawal -> the sentence, without a slot;
- the request's values are this task's parameters: only what it states as lasting ("always",
  "from now on") is filed from it.
A statement the reader finds no fact in goes through the cue rules as before.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pulse.core.records import Event, MemoryItem, Provenance
from pulse.core.statements import is_value
from pulse.core.values import avoid_value
from pulse.memory.interface import WriteCandidate
from pulse.memory.project import Workflow, WorkflowStep, state_slot
from pulse.memory.validation import event_source, receipt_succeeded, user_voice_problem
from pulse.reading.clauses import has_lasting_cue
from pulse.reading.facts import ReadFact

_SENT = re.compile(r"(?<=[.!?;])\s+|\n+")
_PREF = re.compile(
    r"\b(i|we)\s+(?:really\s+|strongly\s+|also\s+)?(?:always\s+)?(prefer|like|love|want|need|hate|dislike|avoid)\b"
    r"|\b(always|never)\b|\bfrom now on\b|\bplease (?:always|never|don't|do not)\b"
    r"|\bmy (?:usual|preferred|favou?rite|default)\b",
    re.I,
)
_HABIT = re.compile(r"\b(i|we)\s+(?:usually|often|normally|tend to|typically)\b", re.I)
# "my usual X" names a preference without stating it: a cue only when a value follows (_SLOT)
_REFERENCE = re.compile(r"\bmy (?:usual|preferred|favou?rite|default)\b", re.I)
_SLOT = re.compile(
    r"\bmy (?:usual|preferred|favou?rite|default) ([\w][\w \-]{0,30}?) (?:is|are|=) ([^.;!?]+)", re.I
)
# where a "my preferred X is Y" value ends: a contrast ("Y, not Z", "Y but ...", "Y instead of Z")
_VALUE_END = re.compile(r",|\s+(?:but|not|instead|rather|over|unless|except)\b", re.I)
_TASK_SCOPE = re.compile(
    r"\b(this time|for this task|just for now|for now|only this once|just this once|temporarily|"
    r"for this (?:one|request|order|trip|booking|project step))\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(let's go with|lets go with|we(?:'ll| will) go with|we decided|i decide|decision:|approved)\b", re.I
)
_PENDING = re.compile(r"\b(still need to|todo:|to do:|remind me to|pending:|later we should)\b", re.I)
_NOT_SLOTS = frozenset({"subgoal"})  # listener bookkeeping keys, not user-stated values
_ARTIFACT_NAME = ("artifact", "path", "file", "filename", "name")
_ARTIFACT_VERSION = ("version", "revision", "rev", "sha", "commit")
# a read fact's record id: "<prefix>-<hash of conversation, event, step, argument, value, holder, condition>"
_READ_ID_PREFIX = {
    "project_state": "state",
    "withdrawal": "withdrawal",
    "habit": "habit",
    "preference": "pref",
}


def _cid(*parts: str) -> str:
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).hexdigest()


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text) if s.strip()]


def _stating_sentence(ev: Event, slot: str, value: str) -> str:
    """The quote for a slot value a user message states: the sentence whose words state it as the
    user's own choice (validation checks exactly that), else the first sentence that mentions it,
    else the value itself (a form-like statement whose args alone carry it)."""
    mentions = [s for s in _sentences(ev.text) if value.lower() in s.lower()]
    for sent in mentions:
        probe = MemoryItem(
            "probe",
            "preference",
            "user:probe",
            sent,
            slot=slot,
            value=value,
            provenance=Provenance("user_statement", ev.event_id, sent),
        )
        if user_voice_problem(probe, ev) is None:
            return sent
    return mentions[0] if mentions else value


Reader = Callable[[str, str], Sequence[ReadFact]]  # (text, project id) -> facts


@dataclass(frozen=True)
class _Conversation:
    """Where one conversation's candidates are filed: their ids derive from the conversation's id, the
    user's own statements go to the user's scope, project records to the project's ("" = none)."""

    conversation_id: str
    user_id: str
    project_id: str

    @property
    def user_scope(self) -> str:
        return user_scope_of(self.user_id)

    @property
    def project_scope(self) -> str:
        return f"project:{self.project_id}"


def extract(
    events: Sequence[Event],
    conversation_id: str,
    user_id: str,
    project_id: str,
    now: str,
    read: Reader | None = None,
) -> list[WriteCandidate]:
    """The write candidates of one finished conversation (the module docstring says what is filed),
    in event order, its reusable workflow last.

    Args:
        events: the conversation's events, in order.
        conversation_id: its id (every candidate's id derives from it).
        user_id: whose statements they are.
        project_id: the project it belongs to; "" files no project records and no workflow.
        now: the time of an event that carries none.
        read: the reading layer bound to the tools' schema; None = the cue rules alone.

    Returns:
        The candidates, not yet validated or merged (`pulse.memory.writer` does that).
    """
    conv = _Conversation(conversation_id, user_id, project_id)
    out: list[WriteCandidate] = []
    for ev in events:
        t = ev.time or now
        if event_source(ev) == "user_statement":
            out.extend(_from_statement(ev, conv, t, read))
        elif ev.kind == "tool_result" and project_id and receipt_succeeded(ev):
            out.extend(_from_receipt(ev, conv, t))
        elif ev.kind == "task_end" and project_id and ev.text.strip():
            out.append(_stage_summary(ev, conv, t))
    if project_id:
        wf = _workflow(events, conversation_id, project_id, now)
        if wf is not None:
            out.append(wf)
    return out


# --- user statements by the cue rules -------------------------------------------------------------


def _from_statement(ev: Event, conv: _Conversation, t: str, read: Reader | None) -> list[WriteCandidate]:
    """One user statement: what the reader reads in it, filed (`_filed`); where there is no reader or it
    reads nothing, the slot values its args state, else its sentences through the cue rules."""
    if read is not None and ev.text.strip():
        facts = read(ev.text, conv.project_id)
        if facts:
            return _filed(facts, ev, conv, t)
    stated = {k: v for k, v in ev.args.items() if k not in _NOT_SLOTS and is_value(v)}
    if ev.kind == "message" and stated:
        # structured user statement (slot values in args): one preference per slot; the request's own
        # values are task parameters, not standing preferences
        return [_stated_preference(ev, conv, t, slot, value) for slot, value in stated.items()]
    out: list[WriteCandidate] = []
    for sent in _sentences(ev.text):
        cand = _from_sentence(sent, ev, conv, t)
        if cand is not None:
            out.append(cand)
    return out


def _stated_preference(ev: Event, conv: _Conversation, t: str, slot: str, value: str) -> WriteCandidate:
    """A slot value a user message's args state: a preference, quoted by the sentence stating it."""
    item = MemoryItem(
        f"pref-{_cid(conv.conversation_id, ev.event_id, str(ev.step), slot, value)}",
        "preference",
        conv.user_scope,
        f"The user prefers {slot} = {value}.",
        slot=slot,
        value=value,
        provenance=Provenance("user_statement", ev.event_id, _stating_sentence(ev, slot, value)),
        valid_from=t,
    )
    return WriteCandidate(item, source_event=ev, task_scoped=bool(_TASK_SCOPE.search(ev.text)))


def _from_sentence(sent: str, ev: Event, conv: _Conversation, t: str) -> WriteCandidate | None:
    """One sentence of a user statement: a project decision or pending item (with a project), else a
    preference or habit when a cue states one, else nothing."""
    if conv.project_id and _DECISION.search(sent):
        return _project_note(sent, ev, conv, t, kind="decision", value=sent, topic="decisions")
    if conv.project_id and _PENDING.search(sent):
        return _project_note(sent, ev, conv, t, kind="pending", value="open", topic="pending")
    return _cued_preference(sent, ev, conv, t)


def _project_note(
    sent: str, ev: Event, conv: _Conversation, t: str, kind: str, value: str, topic: str
) -> WriteCandidate:
    """A project record a sentence states ("let's go with ...", "still need to ..."), quoted by it."""
    item = MemoryItem(
        f"state-{_cid(conv.conversation_id, ev.event_id, sent)}",
        "project_state",
        conv.project_scope,
        sent,
        slot=state_slot(kind, _cid(sent)[:6]),
        value=value,
        topic=topic,
        provenance=Provenance("user_statement", ev.event_id, sent),
        valid_from=t,
    )
    return WriteCandidate(item, source_event=ev)


def _cued_preference(sent: str, ev: Event, conv: _Conversation, t: str) -> WriteCandidate | None:
    """A preference or habit a sentence's cue states ("my preferred X is Y" fills slot X, value Y);
    None for a sentence without a cue or one that only refers to memory ("use my usual palette")."""
    habit = bool(_HABIT.search(sent)) and not _PREF.search(sent)
    if not (habit or _PREF.search(sent)):
        return None
    m = _SLOT.search(sent)
    if m is None and not habit and not _PREF.search(_REFERENCE.sub("", sent)):
        return None  # "use my usual palette": a reference to memory, not a statement
    slot, value = (m.group(1).strip().lower(), _VALUE_END.split(m.group(2))[0].strip()) if m else ("", "")
    item = MemoryItem(
        f"pref-{_cid(conv.conversation_id, ev.event_id, sent)}",
        "habit" if habit else "preference",
        conv.user_scope,
        sent,
        slot=slot,
        value=value,
        provenance=Provenance("user_statement", ev.event_id, sent),
        valid_from=t,
    )
    return WriteCandidate(item, source_event=ev, task_scoped=bool(_TASK_SCOPE.search(sent)))


# --- tool receipts and the task's end --------------------------------------------------------------


def _from_receipt(ev: Event, conv: _Conversation, t: str) -> list[WriteCandidate]:
    """A successful tool receipt: the tool's progress and, when it names an artifact and a version, that
    artifact's version."""
    out = [_progress(ev, conv, t)]
    name = next((ev.args[k] for k in _ARTIFACT_NAME if ev.args.get(k)), "")
    version = next((ev.args[k] for k in _ARTIFACT_VERSION if ev.args.get(k)), "")
    if name and version:
        out.append(_artifact_version(ev, conv, t, name, version))
    return out


def _progress(ev: Event, conv: _Conversation, t: str) -> WriteCandidate:
    """ "progress:<tool>" done. The tool's own words are data, not part of the record's sentence: they
    are kept as the receipt's quote (untrusted provenance) and shown quoted, never as an instruction."""
    item = MemoryItem(
        f"state-{_cid(conv.conversation_id, ev.event_id, 'progress')}",
        "project_state",
        conv.project_scope,
        f"{ev.tool} completed",
        slot=state_slot("progress", ev.tool),
        value="done",
        topic="progress",
        entities=(f"tool:{ev.tool}",),
        provenance=Provenance("tool_receipt", ev.event_id, ev.text[:160].strip()),
        valid_from=t,
    )
    return WriteCandidate(item, source_event=ev)


def _artifact_version(ev: Event, conv: _Conversation, t: str, name: str, version: str) -> WriteCandidate:
    """ "artifact:<name>" is at `version`, as the receipt's args say."""
    item = MemoryItem(
        f"state-{_cid(conv.conversation_id, ev.event_id, 'artifact')}",
        "project_state",
        conv.project_scope,
        f"{name} is at version {version} (from {ev.tool})",
        slot=state_slot("artifact", name),
        value=version,
        topic="artifacts",
        entities=(name,),
        provenance=Provenance("tool_receipt", ev.event_id, ""),
        valid_from=t,
    )
    return WriteCandidate(item, source_event=ev)


def _stage_summary(ev: Event, conv: _Conversation, t: str) -> WriteCandidate:
    """The task_end text: a summary of the stage this conversation reached."""
    item = MemoryItem(
        f"state-{_cid(conv.conversation_id, ev.event_id, 'stage')}",
        "project_state",
        conv.project_scope,
        ev.text.strip(),
        slot=state_slot("stage", conv.conversation_id),
        value=ev.text.strip()[:500],
        topic="stages",
        provenance=Provenance("system", ev.event_id, ""),
        valid_from=t,
    )
    return WriteCandidate(item, source_event=ev)


# --- what the reading layer read in a user statement (Appendix A.1) -------------------------------


def _filed(facts: Sequence[ReadFact], ev: Event, conv: _Conversation, t: str) -> list[WriteCandidate]:
    """Candidates for what the reading layer read in one user statement (module docstring)."""
    out: list[WriteCandidate] = []
    for f in facts:
        cand = _filed_fact(f, ev, conv, t)
        if cand is not None:
            out.append(cand)
    return out


def avoid_text(slot: str, values: Sequence[str]) -> str:
    """The record's words for the values of `slot` the user rejects."""
    return f"The user avoids {slot} = {' or '.join(values)}."


def prefer_text(slot: str, values: Sequence[str]) -> str:
    """The record's words for the value (or any of the values) of `slot` the user wants."""
    return f"The user prefers {slot} = {' or '.join(values)}."


def _filed_fact(f: ReadFact, ev: Event, conv: _Conversation, t: str) -> WriteCandidate | None:
    """One read fact: this project's decision, or the user's own withdrawal, avoided value, habit or
    preference; None for anyone else's words and for the request's task parameters."""
    if f.holder_class in ("project", "team") and f.kind == "decision":
        return _project_decision(f, ev, conv, t)
    if f.holder != "user":
        return None  # a colleague's, a partner's, another team's words: theirs, not this user's
    if ev.kind == "request" and (
        f.kind == "requirement" or not f.lasting or not has_lasting_cue(f.quote or ev.text)
    ):
        return None  # the request's values are this task's parameters
    if f.withdraws:  # supersedes the fact it withdraws (same slot and context), binds nothing
        item = _read_item(f, ev, conv, t, "withdrawal", f"The user no longer wants {f.argument} = {f.value}.")
        return WriteCandidate(item, source_event=ev, read=True)
    if f.polarity == "avoid":  # "never to a gift card": binds anything but that value (values.AVOID)
        text = avoid_text(f.argument, [f.value])
        item = _read_item(f, ev, conv, t, "preference", text, value=avoid_value([f.value]))
        return WriteCandidate(item, source_event=ev, task_scoped=not f.lasting, read=True)
    if f.kind == "habit":
        text = f"The user usually ends up with {f.argument} = {f.value} (a habit, not a stated preference)."
        item = _read_item(f, ev, conv, t, "habit", text)
    else:
        item = _read_item(f, ev, conv, t, "preference", prefer_text(f.argument, [f.value]))
    one_off = f.kind == "requirement" or not f.lasting
    return WriteCandidate(item, source_event=ev, task_scoped=one_off, read=True)


def _project_decision(f: ReadFact, ev: Event, conv: _Conversation, t: str) -> WriteCandidate | None:
    """A project's or team's decision, when it is this conversation's project's and not withdrawn."""
    name = f.holder.split(":", 1)[1]
    if not conv.project_id or (name and _norm_name(name) != _norm_name(conv.project_id)):
        return None  # another team's or another project's decision: not this project's
    if f.polarity != "prefer" or f.withdraws:
        return None
    text = f"Project decision: {f.argument} = {f.value}."
    item = _read_item(f, ev, conv, t, "project_state", text, scope=conv.project_scope, topic="decisions")
    return WriteCandidate(item, source_event=ev, read=True)


def _read_item(
    f: ReadFact,
    ev: Event,
    conv: _Conversation,
    t: str,
    kind: str,
    text: str,
    *,
    value: str | None = None,
    scope: str = "",
    topic: str = "",
) -> MemoryItem:
    """The record of read fact `f` as `kind`: slot = its argument, value = its value (unless given),
    its condition, quoted by the words it was read in (the whole statement when the reader gave none);
    in the user's scope unless `scope` is given."""
    cid = _cid(conv.conversation_id, ev.event_id, str(ev.step), f.argument, f.value, f.holder, f.condition)
    return MemoryItem(
        f"{_READ_ID_PREFIX[kind]}-{cid}",
        kind,
        scope or conv.user_scope,
        text,
        slot=f.argument,
        value=f.value if value is None else value,
        topic=topic,
        conditions=f.condition.lower(),
        provenance=Provenance("user_statement", ev.event_id, f.quote or ev.text),
        valid_from=t,
    )


def user_scope_of(user_id: str) -> str:
    """The scope name of a user's memory, "user:<user_id>"."""
    return f"user:{user_id}"


def _norm_name(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _workflow(
    events: Sequence[Event], conversation_id: str, project_id: str, now: str
) -> WriteCandidate | None:
    """Successful calls in order, each depending on the earlier receipts whose values it consumes."""
    steps: list[tuple[Event, Event]] = []
    pending_call: Event | None = None
    for ev in events:
        if ev.kind == "candidate_call":
            pending_call = ev
        elif ev.kind == "tool_result":
            call = pending_call if pending_call is not None and pending_call.tool == ev.tool else None
            pending_call = None
            if receipt_succeeded(ev):
                steps.append((call or ev, ev))
    if len(steps) < 2:
        return None
    goal = next((e.text for e in events if e.kind == "request" and e.text), "") or " then ".join(
        r.tool for _, r in steps
    )
    # a workflow is reusable: the request's one-off values become the arguments they filled
    # ("Book a window seat to Oslo" -> "Book a <seat> seat to <destination>"), so a later task never
    # reads this task's values from it
    filled = {v: k for call, _ in steps for k, v in call.args.items() if len(v) >= 2}
    for value in sorted(filled, key=len, reverse=True):
        goal = re.sub(rf"(?<![\w-]){re.escape(value)}(?![\w-])", f"<{filled[value]}>", goal, flags=re.I)
    wsteps: list[WorkflowStep] = []
    for j, (call, res) in enumerate(steps):
        deps = []
        values = [v for v in call.args.values() if len(v) >= 3]
        for i in range(j):
            prev = steps[i][1]
            produced = set(prev.args.values())
            if any(v in produced or v in prev.text for v in values):
                deps.append(i)
        wsteps.append(
            WorkflowStep(
                name=res.tool,
                tool=res.tool,
                inputs=tuple(call.args),
                outputs=tuple(res.args),
                depends_on=tuple(deps),
            )
        )
    name = "-".join(s.tool for s in wsteps)[:80]
    last = steps[-1][1]
    item = Workflow(name=name, goal=goal[:300], steps=tuple(wsteps)).to_item(
        f"wf-{_cid(conversation_id, name)}",
        project_id,
        Provenance("tool_receipt", last.event_id, ""),
        valid_from=last.time or now,
    )
    return WriteCandidate(item, source_event=last)
