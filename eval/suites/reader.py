"""The suite's own reader: what a task agent takes from any text memory hands it.

With the simulated task agent a method influences the agent only through text it delivers (a
start-of-task block, a supplement, a reminder, an injected bank, an intervention's evidence). Every
delivery of every method, Pulse included, is read by this one reader, which is *not* Pulse's
statement parser (`pulse.core.statements`): it knows only the suite's own value vocabulary
(`Suite.vocabulary`: every surface form the suite's texts use for each canonical value, synonyms
included; for a suite without one, the tools' enum values as written) and the phrases that name
each context (`Suite.conditions`).

Reading, per line and sentence:
1. the first ISO date in a line (`2024-05-01`, optionally with a time: a log line's stamp, a
   record's "(since 2024-05-01)") dates its sentences; otherwise the delivery's time does;
2. every surface form in the sentence (whole words, case-insensitive, longest first, no overlaps) is
   a *mention* of its value; a form that several slots share is attributed to the slot whose name
   the sentence also uses, and left unread when none or several are named;
3. a mention preceded in its clause by a withdrawing cue ("not", "no longer", "instead of",
   "rather than", "used to", "never", "avoid", "stopped", ...) or followed by "until" is *withdrawn*:
   a reader would not act on it ("A instead of B" reads A);
4. a sentence that names a context (a condition phrase) marks its values with that context: the
   agent applies them fully only in a task where that context holds.
`mention_counts` says how many mentions a text holds and how many the reader attributed to one slot
(read or withdrawn): the reader's recall on a method's delivered text, reported per run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from eval.suites.schema import ToolSpec

_DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)")
_SENT = re.compile(r"(?<=[.!?;])\s+")
_CLAUSE = re.compile(r"[,:()\[\]]|\b(?:but|and then|now|whereas|while)\b", re.I)
_BEFORE = re.compile(
    r"\b(not|no longer|never|instead of|rather than|used to|formerly|previously|stopped|"
    r"avoids?|dislikes?|hates?|don't|doesn't|do not|does not|anymore|no more|old|superseded|replaced|"
    r"(?:changed|switched|updated|moved) (?:away )?from)\b[^.]*$",
    re.I,
)
_AFTER = re.compile(r"^\W*(?:until|no longer|anymore|any more)\b", re.I)


@dataclass(frozen=True)
class ReadValue:
    """One value the reader read: slot, value, the date it carries, the context it names and its order in the
    text."""

    slot: str
    value: str
    time: str  # the line's date, else the delivery's time
    condition: str = ""  # the context tag the sentence names ("" = unconditional)
    position: int = 0  # order in the text (a later mention of equal date is taken as newer)


def tool_vocabulary(tools: Iterable[ToolSpec]) -> dict[str, dict[str, tuple[str, ...]]]:
    """A suite without its own vocabulary: each enum value as written (and with spaces for '_')."""
    vocab: dict[str, dict[str, tuple[str, ...]]] = {}
    for t in tools:
        for slot, values in t.params.items():
            for v in values:
                vocab.setdefault(slot, {})[v] = tuple(dict.fromkeys((v, v.replace("_", " "))))
    return vocab


class ValueReader:
    """The suite's reader (the module docstring), built from a value vocabulary, condition phrases and
    optionally the slots to read: `read(text, default_time)` gives the `ReadValue`s a text states,
    `mention_counts(text)` its recall."""

    def __init__(
        self,
        vocabulary: Mapping[str, Mapping[str, Sequence[str]]],
        conditions: Mapping[str, Sequence[str]] = (),
        slots: Iterable[str] | None = None,
    ):
        keep = set(slots) if slots is not None else None
        forms: dict[str, set[tuple[str, str]]] = {}
        for slot, values in vocabulary.items():
            if keep is not None and slot not in keep:
                continue
            for value, surfaces in values.items():
                for f in (value, *surfaces):
                    forms.setdefault(f.lower().strip(), set()).add((slot, value))
        self.forms = {f: sorted(sv) for f, sv in forms.items() if f}
        alts = "|".join(re.escape(f) for f in sorted(self.forms, key=len, reverse=True))
        self._mention = re.compile(rf"(?<![\w-])(?:{alts})(?![\w-])", re.I) if alts else None
        self.slot_words = {s: s.replace("_", " ").lower() for s in vocabulary if keep is None or s in keep}
        self.conditions = {tag: tuple(p.lower() for p in ph) for tag, ph in dict(conditions or {}).items()}

    def _condition(self, sent: str) -> str:
        low = sent.lower()
        for tag, phrases in self.conditions.items():
            if any(re.search(rf"(?<!\w){re.escape(p)}(?!\w)", low) for p in phrases):
                return tag
        return ""

    def _mentions(self, sent: str):
        """(slot, value, withdrawn) per mention; slot "" when the mention cannot be attributed."""
        if self._mention is None:
            return
        low = sent.lower()
        for m in self._mention.finditer(sent):
            cands = self.forms[m.group(0).lower()]
            slots = {s for s, _ in cands}
            if len(slots) > 1:
                named = [s for s in slots if self.slot_words[s] in low]
                if len(named) != 1:
                    yield "", "", False
                    continue
                cands = [(s, v) for s, v in cands if s == named[0]]
            if len({v for _, v in cands}) != 1:  # one form, two values of one slot: unreadable
                yield "", "", False
                continue
            clause = _CLAUSE.split(sent[: m.start()])[-1]
            withdrawn = bool(_BEFORE.search(clause)) or bool(_AFTER.match(sent[m.end() :]))
            yield cands[0][0], cands[0][1], withdrawn

    def read(self, text: str, default_time: str = "") -> tuple[ReadValue, ...]:
        out: list[ReadValue] = []
        pos = 0
        for line in (text or "").splitlines():
            d = _DATE.search(line)
            when = d.group(1).replace(" ", "T") if d else default_time
            for sent in _SENT.split(line.strip()):
                cond = self._condition(sent)
                for slot, value, withdrawn in self._mentions(sent):
                    if slot and not withdrawn:
                        pos += 1
                        out.append(ReadValue(slot, value, when, cond, pos))
        return tuple(out)

    def mention_counts(self, text: str) -> tuple[int, int]:
        """(mentions of any vocabulary value, mentions attributed to one slot): the reader's recall."""
        total = read = 0
        for line in (text or "").splitlines():
            for sent in _SENT.split(line.strip()):
                for slot, _, _ in self._mentions(sent):
                    total += 1
                    read += bool(slot)
        return total, read
