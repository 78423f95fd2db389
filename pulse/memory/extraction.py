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

from pulse.core.records import Event, MemoryItem, Provenance
from pulse.core.statements import is_value
from pulse.core.values import AVOID
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


def extract(
    events: Sequence[Event],
    conversation_id: str,
    user_id: str,
    project_id: str,
    now: str,
    read: Reader | None = None,
) -> list[WriteCandidate]:
    out: list[WriteCandidate] = []
    user_scope = f"user:{user_id}"
    for ev in events:
        t = ev.time or now
        if event_source(ev) == "user_statement" and read is not None and ev.text.strip():
            facts = read(ev.text, project_id)
            if facts:
                out.extend(_filed(facts, ev, conversation_id, user_id, project_id, t))
                continue
        if event_source(ev) == "user_statement":
            stated = {k: v for k, v in ev.args.items() if k not in _NOT_SLOTS and is_value(v)}
            if ev.kind == "message" and stated:
                # structured user statement (slot values in args): one preference per slot; the
                # request's own values are task parameters, not standing preferences
                for slot, value in stated.items():
                    item = MemoryItem(
                        f"pref-{_cid(conversation_id, ev.event_id, str(ev.step), slot, value)}",
                        "preference",
                        user_scope,
                        f"The user prefers {slot} = {value}.",
                        slot=slot,
                        value=value,
                        provenance=Provenance(
                            "user_statement", ev.event_id, _stating_sentence(ev, slot, value)
                        ),
                        valid_from=t,
                    )
                    out.append(
                        WriteCandidate(item, source_event=ev, task_scoped=bool(_TASK_SCOPE.search(ev.text)))
                    )
                continue
            for sent in _sentences(ev.text):
                prov = Provenance("user_statement", ev.event_id, sent)
                if project_id and _DECISION.search(sent):
                    out.append(
                        WriteCandidate(
                            MemoryItem(
                                f"state-{_cid(conversation_id, ev.event_id, sent)}",
                                "project_state",
                                f"project:{project_id}",
                                sent,
                                slot=state_slot("decision", _cid(sent)[:6]),
                                value=sent,
                                topic="decisions",
                                provenance=prov,
                                valid_from=t,
                            ),
                            source_event=ev,
                        )
                    )
                    continue
                if project_id and _PENDING.search(sent):
                    out.append(
                        WriteCandidate(
                            MemoryItem(
                                f"state-{_cid(conversation_id, ev.event_id, sent)}",
                                "project_state",
                                f"project:{project_id}",
                                sent,
                                slot=state_slot("pending", _cid(sent)[:6]),
                                value="open",
                                topic="pending",
                                provenance=prov,
                                valid_from=t,
                            ),
                            source_event=ev,
                        )
                    )
                    continue
                habit = bool(_HABIT.search(sent)) and not _PREF.search(sent)
                if not (habit or _PREF.search(sent)):
                    continue
                m = _SLOT.search(sent)
                if m is None and not habit and not _PREF.search(_REFERENCE.sub("", sent)):
                    continue  # "use my usual palette": a reference to memory, not a statement
                slot, value = (
                    (m.group(1).strip().lower(), _VALUE_END.split(m.group(2))[0].strip()) if m else ("", "")
                )
                out.append(
                    WriteCandidate(
                        MemoryItem(
                            f"pref-{_cid(conversation_id, ev.event_id, sent)}",
                            "habit" if habit else "preference",
                            user_scope,
                            sent,
                            slot=slot,
                            value=value,
                            provenance=prov,
                            valid_from=t,
                        ),
                        source_event=ev,
                        task_scoped=bool(_TASK_SCOPE.search(sent)),
                    )
                )
        elif ev.kind == "tool_result" and project_id and receipt_succeeded(ev):
            prov = Provenance("tool_receipt", ev.event_id, "")
            scope = f"project:{project_id}"
            # the tool's own words are data, not part of the record's sentence: they are kept as the
            # receipt's quote (untrusted provenance) and shown quoted, never as an instruction
            out.append(
                WriteCandidate(
                    MemoryItem(
                        f"state-{_cid(conversation_id, ev.event_id, 'progress')}",
                        "project_state",
                        scope,
                        f"{ev.tool} completed",
                        slot=state_slot("progress", ev.tool),
                        value="done",
                        topic="progress",
                        entities=(f"tool:{ev.tool}",),
                        provenance=Provenance("tool_receipt", ev.event_id, ev.text[:160].strip()),
                        valid_from=t,
                    ),
                    source_event=ev,
                )
            )
            name = next((ev.args[k] for k in _ARTIFACT_NAME if ev.args.get(k)), "")
            version = next((ev.args[k] for k in _ARTIFACT_VERSION if ev.args.get(k)), "")
            if name and version:
                out.append(
                    WriteCandidate(
                        MemoryItem(
                            f"state-{_cid(conversation_id, ev.event_id, 'artifact')}",
                            "project_state",
                            scope,
                            f"{name} is at version {version} (from {ev.tool})",
                            slot=state_slot("artifact", name),
                            value=version,
                            topic="artifacts",
                            entities=(name,),
                            provenance=prov,
                            valid_from=t,
                        ),
                        source_event=ev,
                    )
                )
        elif ev.kind == "task_end" and project_id and ev.text.strip():
            out.append(
                WriteCandidate(
                    MemoryItem(
                        f"state-{_cid(conversation_id, ev.event_id, 'stage')}",
                        "project_state",
                        f"project:{project_id}",
                        ev.text.strip(),
                        slot=state_slot("stage", conversation_id),
                        value=ev.text.strip()[:500],
                        topic="stages",
                        provenance=Provenance("system", ev.event_id, ""),
                        valid_from=t,
                    ),
                    source_event=ev,
                )
            )
    if project_id:
        wf = _workflow(events, conversation_id, project_id, now)
        if wf is not None:
            out.append(wf)
    return out


def _filed(
    facts: Sequence[ReadFact], ev: Event, conversation_id: str, user_id: str, project_id: str, t: str
) -> list[WriteCandidate]:
    """Candidates for what the reading layer read in one user statement (module docstring)."""
    out: list[WriteCandidate] = []
    request = ev.kind == "request"
    for f in facts:
        quote = f.quote or ev.text
        prov = Provenance("user_statement", ev.event_id, quote)
        cid = _cid(conversation_id, ev.event_id, str(ev.step), f.argument, f.value, f.holder, f.condition)
        cond = f.condition.lower()
        if f.holder_class in ("project", "team") and f.kind == "decision":
            name = f.holder.split(":", 1)[1]
            if not project_id or (name and _norm_name(name) != _norm_name(project_id)):
                continue  # another team's or another project's decision: not this project's
            if f.polarity != "prefer" or f.withdraws:
                continue
            out.append(
                WriteCandidate(
                    MemoryItem(
                        f"state-{cid}",
                        "project_state",
                        f"project:{project_id}",
                        f"Project decision: {f.argument} = {f.value}.",
                        slot=f.argument,
                        value=f.value,
                        topic="decisions",
                        conditions=cond,
                        provenance=prov,
                        valid_from=t,
                    ),
                    source_event=ev,
                    read=True,
                )
            )
            continue
        if f.holder != "user":
            continue  # a colleague's, a partner's, another team's words: theirs, not this user's
        if request and (f.kind == "requirement" or not f.lasting or not has_lasting_cue(quote)):
            continue  # the request's values are this task's parameters
        if f.withdraws:  # supersedes the fact it withdraws (same slot and context), binds nothing
            text = f"The user no longer wants {f.argument} = {f.value}."
            item = MemoryItem(
                f"withdrawal-{cid}",
                "withdrawal",
                user_scope_of(user_id),
                text,
                slot=f.argument,
                value=f.value,
                conditions=cond,
                provenance=prov,
                valid_from=t,
            )
            out.append(WriteCandidate(item, source_event=ev, read=True))
            continue
        if f.polarity == "avoid":  # "never to a gift card": binds anything but that value (values.AVOID)
            item = MemoryItem(
                f"pref-{cid}",
                "preference",
                user_scope_of(user_id),
                f"The user avoids {f.argument} = {f.value}.",
                slot=f.argument,
                value=AVOID + f.value,
                conditions=cond,
                provenance=prov,
                valid_from=t,
            )
            out.append(WriteCandidate(item, source_event=ev, task_scoped=not f.lasting, read=True))
            continue
        habit = f.kind == "habit"
        text = (
            f"The user usually ends up with {f.argument} = {f.value} (a habit, not a stated preference)."
            if habit
            else f"The user prefers {f.argument} = {f.value}."
        )
        item = MemoryItem(
            f"{'habit' if habit else 'pref'}-{cid}",
            "habit" if habit else "preference",
            user_scope_of(user_id),
            text,
            slot=f.argument,
            value=f.value,
            conditions=cond,
            provenance=prov,
            valid_from=t,
        )
        one_off = f.kind == "requirement" or not f.lasting
        out.append(WriteCandidate(item, source_event=ev, task_scoped=one_off, read=True))
    return out


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
