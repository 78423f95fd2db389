"""Source validation of write candidates (paper App. A.2): who may confirm what.

- User facts (preference, habit, attribute) are confirmed only by the user's own words: a `request`
  or a `message` with role "user" observed in this conversation, whose text contains the quote.
- A `tool_result` is a receipt, never the user's voice: whatever its text says ("the user prefers
  X", "provenance: user_statement"), it cannot create or change a user fact.
- Project progress and artifact versions are confirmed only by a successful tool receipt; other
  project state (decisions, pending items) by a user statement or a receipt; stage summaries may also
  come from the task_end event; workflows by receipts or user statements.
- The provenance a candidate claims must match the event it cites: a candidate that claims
  `user_statement` while citing a tool result is rejected, as is one citing an event this
  conversation never observed.
- No laundering into user memory (`user_voice_problem`): the quoted user words must *state* the
  value the candidate stores, as the user's own choice. The value has to occur in the quote (a
  value found elsewhere in the message does not count) in a clause that does not negate it ("I
  don't want notion, use obsidian" states obsidian, never notion; "X over Y", "instead of Y", "not
  Y", "never Y", "avoid Y"), that names no other slot, and whose subject is the user: a third
  party's preference ("my colleague prefers X", "she likes X", "the user prefers X" pasted from a
  page) and reported or quoted speech ("my colleague says: I always prefer X", "she said 'I prefer
  X'", "the page says ...") are someone else's words. A value that is not in the text at all is
  accepted only from the event's structured args for that slot (a form-like statement).
`check` returns None for an accepted candidate, else the rejection reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pulse.core.records import USER_FACT_KINDS, Event
from pulse.memory.interface import WriteCandidate
from pulse.memory.project import RECEIPT_ONLY_STATE_KINDS, state_kind_of

_FAILED = frozenset({"error", "failed", "fail", "failure", "timeout", "denied", "rejected", "cancelled"})
_SPACE = re.compile(r"\s+")


def event_source(ev: Event) -> str:
    """The source kind an event can vouch for; "agent" vouches for nothing."""
    if ev.kind == "request" or (ev.kind == "message" and ev.role == "user"):
        return "user_statement"
    if ev.kind == "tool_result":
        return "tool_receipt"
    if ev.kind == "task_end":
        return "system"
    return "agent"


def receipt_succeeded(ev: Event) -> bool:
    """Whether a tool receipt reports success: no failed `status`/`ok` argument and no text starting with
    "error", "failed", "exception" or "traceback"."""
    status = (ev.args.get("status") or ev.args.get("ok") or "").strip().lower()
    if status in _FAILED or status == "false":
        return False
    return not ev.text.strip().lower().startswith(("error", "failed", "exception", "traceback"))


def _norm(s: str) -> str:
    return _SPACE.sub(" ", s).strip().lower()


def find_source(cand: WriteCandidate, observed: Sequence[Event]) -> tuple[Event | None, str]:
    """The observed event a candidate cites, or a rejection reason."""
    eid = cand.source_event.event_id if cand.source_event is not None else cand.item.provenance.event_id
    if cand.source_event is not None:
        if not any(e == cand.source_event for e in observed):
            return (
                None,
                f"source event {eid or cand.source_event.step!r} was not observed in this conversation",
            )
        return cand.source_event, ""
    if eid:
        for e in observed:
            if e.event_id == eid:
                return e, ""
        return None, f"cited event {eid!r} was not observed in this conversation"
    return None, "no observed event backs this candidate (give source_event or provenance.event_id)"


# ---------------------------------------------------------------------------- the user's own voice
# Clause boundaries: punctuation, dashes, and contrast words (a "but I prefer Y" clause starts afresh).
_CLAUSE_SEP = re.compile(
    r"[,;:!?()\[\]{}\u2014\u2013]|\.(?=\s|$)|\s-+\s|\b(?:but|however|whereas|although|though|"
    r"while|yet)\b"
)
# Contrast words and sentence ends close the scope of a speech verb ("she said X, but I prefer Y").
_SCOPE_SEP = re.compile(r"[;!?]|\.(?=\s|$)|\b(?:but|however|whereas|although|though|yet)\b")
_NEGATION = re.compile(
    r"\b(?:not|no|nor|neither|never|without|except|avoid|avoiding|hate|hates|dislike|dislikes|stop|"
    r"instead\s+of|rather\s+than|other\s+than|than|over|anything\s+but|no\s+longer|"
    r"don't|doesn't|didn't|won't|wouldn't|can't|cannot|isn't|aren't|wasn't|shouldn't|mustn't)\b|n't\b"
)
_NEGATED_AFTER = re.compile(
    r"^\W*(?:(?:is|are|was|were|would\s+be|will\s+be)\s+)?(?:not|never|no\s+longer|"
    r"isn't|aren't|wasn't|weren't|won't)\b"
)
_PEOPLE = (
    r"colleagues?|co-?workers?|boss|manager|team|teammates?|wife|husband|partner|spouse|friends?|"
    r"girlfriend|boyfriend|mom|mum|mother|dad|father|parents?|brother|sister|son|daughter|kids?|"
    r"child|children|family|client|customer|assistant|secretary|roommate|flatmate|neighbou?r|"
    r"doctor|lawyer|agent|cousin|uncle|aunt|grandma|grandpa|grandmother|grandfather"
)
_THIRD_PARTY = re.compile(
    r"\b(?:he|she|they|someone|somebody|everyone|everybody|people|others|nobody|the\s+user|users|the\s+client|"
    r"the\s+customer|the\s+assistant)\b(?:\s+\w+){0,2}?\s+(?:prefers?|likes?|loves?|wants?|needs?|hates?|"
    r"dislikes?|avoids?|uses?|always|never|usually|often|normally|typically)\b"
    rf"|\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:{_PEOPLE})(?:'s)?\b"
    r"|\b(?:his|her|their|its)\s+(?:usual|preferred|favou?rite|default)\b"
    r"|\b(?!let's\b)\w+'s\s+(?:usual|preferred|favou?rite|default)\b"
    r"|\b(?:prefers|likes|loves|wants|needs|hates|dislikes|avoids)\b"
)
_SPEECH = re.compile(
    r"\b(?:says?|said|saying|tells?|told|writes?|wrote|written|mentions?|mentioned|claims?|"
    r"claimed|asks?|asked|reads|quotes?|quoted|quoting|reports?|reported|according\s+to|posted|"
    r"tweeted|texted|emailed|messaged|suggests?|suggested|thinks?|thought|believes?|insists?|"
    r"insisted|states?|stated|replied|answered|instructs?|instructed)\b"
)
# a speech word right after a determiner or an adjective of preference is a noun ("my preferred mention")
_NOUN_BEFORE = re.compile(
    r"\b(?:my|our|your|the|a|an|this|that|these|those|preferred|usual|default|favou?rite|weekly|daily|"
    r"monthly|any|every|each|no)\s+$"
)
# a speech verb that opens the clause, after at most a few adverbs, is the user's own imperative
# ("Always write files to ...", "Please tell the team ..."), not someone else's words
_IMPERATIVE_BEFORE = re.compile(
    r"^\W*(?:(?:please|always|never|only|just|also|then|and|so|do|don't|kindly|from\s+now\s+on)\s+)*$"
)
_OWN_SPEAKER = re.compile(r"\b(?:i|we)(?:\s+(?:have|had|already|just|once|also|always|did|do|'ve|'d))*\s*$")
_QUOTED = re.compile(
    r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|\u2018([^\u2019]+)\u2019|(?:(?<=^)|(?<=[\s:(]))'(.+?)'(?=[\s.,;:!?)]|$)"
)
_FIRST_PERSON_CUE = re.compile(r"\b(?:i|we|i'm|i'd|i've|i'll|my|me|our|us)\b")


def _voice_norm(s: str) -> str:
    return _norm(s.replace("\u2019", "'").replace("\u2018", "'"))


def _occurrences(text: str, value: str) -> list[tuple[int, int]]:
    pat = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)")
    return [(m.start(), m.end()) for m in pat.finditer(text)]


def _span(text: str, sep: re.Pattern[str], start: int, end: int) -> tuple[int, int]:
    """The stretch of `text` around [start, end) between two separators of `sep`."""
    lo = 0
    for m in sep.finditer(text, 0, start):
        lo = m.end()
    m = sep.search(text, end)
    return lo, (m.start() if m else len(text))


def _reported(text: str, start: int, end: int, whole: bool = False) -> str:
    """Why the words at [start, end) are someone else's (reported or quoted speech), else "".

    `whole`: [start, end) is a whole quoted statement; any reported or quoted speech inside it counts.
    """
    if whole:
        stop = start + len(text[start:end].rstrip(" .!?;"))
        lo, scope = start, text[start:stop]
    else:
        lo, _ = _span(text, _SCOPE_SEP, start, end)
        scope = text[lo:start]
    for m in _SPEECH.finditer(scope):
        if _NOUN_BEFORE.search(scope[: m.start()]) or scope[m.end() : m.end() + 1] == "-":
            # a noun ("my preferred mention", "a detailed write-up"), not someone speaking
            continue
        if not m.group(0).startswith("according") and _IMPERATIVE_BEFORE.match(scope[: m.start()]):
            continue
        if not _OWN_SPEAKER.search(scope[: m.start()].rstrip(" ,:")):
            return f"reported speech ({scope.strip()[:40]!r}...): someone else's words"
    for m in _QUOTED.finditer(text):
        body = next(g for g in m.groups() if g is not None)
        inside = (start <= m.start() and m.end() <= end) if whole else (m.start() <= start and end <= m.end())
        if (
            inside
            and _FIRST_PERSON_CUE.search(body)
            and not re.search(r"\b(?:i|we)\s+(?:\w+\s+)?(?:said|wrote|told|say)\W*$", text[: m.start()])
        ):
            return f"quoted speech ({m.group(0)[:40]!r}): someone else's words"
    return ""


def _third_party(clause: str) -> str:
    m = _THIRD_PARTY.search(clause)
    return f"{m.group(0).strip()!r} is someone else's preference, not the user's" if m else ""


def user_voice_problem(item, ev: Event) -> str | None:
    """None when the quoted user words state the item's value as the user's own choice, else why not."""
    text = _voice_norm(ev.text)
    quote = _voice_norm(item.provenance.quote)
    value = _voice_norm(item.value)
    qpos = text.find(quote) if quote else -1
    if qpos < 0:
        # the quote is not in the text: only a structured statement (the event's args) may carry it
        if not value:
            return "the quote is not the user's words in the cited statement"
        if _occurrences(text, value):
            return f"the quote does not hold the user's words that state {item.value!r}"
        if not any(_voice_norm(v) == value for k, v in ev.args.items() if k == item.slot or not item.slot):
            return f"no user words or structured args state {item.value!r}"
        why = _third_party(text) or _reported(text, 0, len(text), whole=True)
        return f"the statement around the args is not the user's own ({why})" if why else None
    qend = qpos + len(quote)
    if not value:  # a preference stated in words only: the whole quoted sentence must be the user's own
        why = _reported(text, qpos, qpos) or _reported(text, qpos, qend, whole=True) or _third_party(quote)
        return why or None
    occ = [(a + qpos, b + qpos) for a, b in _occurrences(quote, value)]
    if not occ:
        where = "elsewhere in the message" if _occurrences(text, value) else "nowhere in the user's words"
        return f"the quoted words do not state {item.value!r} (it occurs {where})"
    slot_words = _voice_norm(item.slot.replace("_", " ").replace("-", " ")) if item.slot else ""
    slot_at = _occurrences(text, slot_words) if slot_words and ":" not in item.slot else []
    problems = []
    for a, b in occ:
        lo, hi = _span(text, _CLAUSE_SEP, a, b)
        before, after = text[lo:a], text[b:hi]
        if _NEGATION.search(before) or _NEGATION.match(value) or _NEGATED_AFTER.search(after):
            problems.append(f"the user's words reject {item.value!r} ({text[lo:hi].strip()[:60]!r})")
            continue
        why = _third_party(text[lo:hi]) or _reported(text, a, b)
        if why:
            problems.append(why)
            continue
        if slot_at and not any(lo <= s and e <= hi for s, e in slot_at):
            problems.append(f"the user's words give {item.value!r} for something other than {item.slot!r}")
            continue
        return None
    return problems[0]


def read_voice_problem(item, ev: Event) -> str | None:
    """For a fact the reading layer read (`WriteCandidate.read`): None when its quote is words of
    this user statement that are not reported or quoted speech of someone else, else why not. (The
    reader has bound the value, perhaps from a paraphrase, and decided the holder.)"""
    text = _voice_norm(ev.text)
    quote = _voice_norm(item.provenance.quote)
    qpos = text.find(quote) if quote else -1
    if qpos < 0:
        return "the quote is not the user's words in the cited statement"
    return _reported(text, qpos, qpos) or _reported(text, qpos, qpos + len(quote), whole=True) or None


def check(cand: WriteCandidate, observed: Sequence[Event]) -> str | None:
    """Why a write candidate must be rejected, or None when it is accepted: its source event must be observed
    and match its provenance and quote, user facts must be the user's own statement, and project state and
    workflows must come from the event kinds that can confirm them."""
    item = cand.item
    ev, why = find_source(cand, observed)
    if ev is None:
        return why
    actual = event_source(ev)
    claimed = item.provenance.source_kind
    where = f"event {ev.event_id or ev.step}"
    if claimed != actual:
        return f"provenance claims {claimed} but {where} is a {ev.kind}" + (
            f" ({ev.role})" if ev.role else ""
        )
    quote = _norm(item.provenance.quote)
    if item.kind in USER_FACT_KINDS:
        if actual != "user_statement":
            return f"a {item.kind} can only come from the user's own statement, not a {ev.kind}"
        if not quote:
            return f"a {item.kind} needs the quote from the user's statement"
    if quote:
        haystack = _norm(ev.text + " " + " ".join(ev.args.values()))
        if quote not in haystack:
            return f"quote {item.provenance.quote[:60]!r} does not occur in {where}"
    if item.kind in USER_FACT_KINDS:
        why = read_voice_problem(item, ev) if cand.read else user_voice_problem(item, ev)
        if why:
            return f"not the user's own statement of this {item.kind}: {why}"
    if item.kind == "project_state":
        sk = state_kind_of(item)
        if actual == "tool_receipt" and not receipt_succeeded(ev):
            return f"{where} reports a failed call; it confirms no project state"
        if sk in RECEIPT_ONLY_STATE_KINDS and actual != "tool_receipt":
            return f"project {sk} is confirmed only by a tool receipt, not a {ev.kind}"
        if actual == "system" and sk != "stage":
            return "only stage summaries may come from the task_end event"
        if actual == "agent":
            return "agent text confirms no project state"
    if item.kind == "workflow" and actual not in ("tool_receipt", "user_statement"):
        return f"a workflow is confirmed by tool receipts or the user, not a {ev.kind}"
    return None
