"""What a request or message *states*, parsed from its text by Pulse itself.

A deployed memory agent sees text (the user's request, user and agent messages) and structured
tool calls; it is never handed a benchmark's own parse of the request. `parse_statement` is the one
parser the listener (`pulse.agent.listener`), the data generator and the simulated agent's plan
messages all go through, so training prefixes and run-time prefixes carry the same `args`.

The vocabulary comes from what the task agent's tools publish (argument names, enum values, and the
words that name an argument) -- `SlotTerms` per slot:
- a slot is stated with a value when one of its values occurs in the text as a whole token
  ("in size 32x32", "use citation style IEEE"); a value several slots share ("none", "pdf") counts
  only right after the slot's name ("use signature none"); the last mention wins ("X, actually Y");
- a slot is referred to without a value (`IMPLICIT`, "?") when one of its names follows a
  possessive or habitual cue within a few words ("in my usual size", "my home airport");
- a typed slot (`SlotTerms.kind`: a domain, an e-mail, a number, a date; from the tool's JSON schema)
  is stated by any value of that form ("on seatgeek.com"), in canonical form (pulse.core.values);
  when several slots share the form, or the form is a number or a date, only right after the
  slot's name ("my preferred budget is 300");
- otherwise the slot is not mentioned (absent from the result).

The listener adds what the reading layer reads in the user's words on top (`read_statement`): a
value the parser missed, or `UNREAD` where the user gave the slot a value it could not bind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pulse.core.values import PATTERNS as _TYPED
from pulse.core.values import find_typed

IMPLICIT = "?"  # the text refers to the slot ("my usual size") without stating a value
# the user gives the slot a value for this task in words Pulse could not read ("go with the cheapest
# cabin for the cabin"): the user's own choice, which memory must not override (set by the reading
# layer, `pulse.reading.BoundReader.stated`, never by `parse_statement`)
UNREAD = "!"


def is_value(value: str) -> bool:
    """Whether a parsed slot value is a value (not absent, `IMPLICIT` or `UNREAD`)."""
    return isinstance(value, str) and bool(value.strip()) and value not in (IMPLICIT, UNREAD)


# Words that mark a reference to the user's standing choice ("my usual size", "my home airport").
_CUES = frozenset(
    {
        "my",
        "usual",
        "usually",
        "always",
        "preferred",
        "home",
        "regular",
        "normal",
        "normally",
        "standard",
        "typical",
        "typically",
    }
)
# How many words before a slot name a cue may stand ("that meet my usual rating standard").
_CUE_WINDOW = 3
_WORD = re.compile(r"[a-z0-9][a-z0-9_+.$-]*")


@dataclass(frozen=True)
class SlotTerms:
    """How text talks about one slot: its values and the words that name it."""

    values: tuple[str, ...]
    names: tuple[str, ...] = ()  # e.g. ("size",), ("budget", "fare"); defaults to the slot's words
    # a typed slot without an enum (from its JSON schema, pulse.core.values): "domain" | "email" |
    # "number" | "date"; its values are recognised by their form, stated in canonical form.
    # "" = an enumerated slot (only `values` count)
    kind: str = ""

    def name_words(self, slot: str) -> tuple[tuple[str, ...], ...]:
        names = self.names or (slot.replace("_", " "),)
        return tuple(tuple(n.lower().split()) for n in names)


SlotVocab = Mapping[str, SlotTerms]


def vocab_from_params(
    params: Mapping[str, Iterable[str]], names: Mapping[str, Iterable[str]] | None = None
) -> dict[str, SlotTerms]:
    """A vocabulary from tool argument enums (`{slot: values}`), optionally with extra slot names."""
    names = names or {}
    out: dict[str, SlotTerms] = {}
    for slot, values in params.items():
        prev = out.get(slot)
        vals = tuple(dict.fromkeys((*(prev.values if prev else ()), *map(str, values))))
        extra = tuple(names.get(slot, ()))
        nm = tuple(dict.fromkeys((slot.replace("_", " "), *extra)))
        out[slot] = SlotTerms(vals, nm)
    return out


def _value_pattern(value: str) -> re.Pattern:
    # a value is a whole token: not glued to other token characters on either side ("new" is not
    # in "newegg", "queen" is not in "2-queen"); a sentence's final period may follow it
    return re.compile(r"(?<![\w$+./-])" + re.escape(value.lower()) + r"(?![\w+/-]|\.\w)")


_PATTERNS: dict[str, re.Pattern] = {}


def _find_last(value: str, text: str, names: tuple[tuple[str, ...], ...] | None = None) -> int:
    """Start of the last whole-token occurrence of `value` (-1 if none); with `names`, only an
    occurrence that one of the slot's names precedes within a few words counts."""
    pat = _PATTERNS.get(value)
    if pat is None:
        pat = _PATTERNS[value] = _value_pattern(value)
    last = -1
    for m in pat.finditer(text):
        if names is None or _named_before(text[: m.start()], names):
            last = m.start()
    return last


def _named_before(before: str, names: tuple[tuple[str, ...], ...]) -> bool:
    words = [w.strip(".,;:") for w in _WORD.findall(before)][-(_CUE_WINDOW + 2) :]
    return any(tuple(words[i : i + len(n)]) == n for n in names for i in range(len(words) - len(n) + 1))


def parse_statement(text: str, vocab: SlotVocab) -> dict[str, str]:
    """Slot -> stated value (or `IMPLICIT`) for the slots `text` mentions, in vocabulary order."""
    low = (text or "").lower()
    if not low or not vocab:
        return {}
    words = _WORD.findall(low)
    owners: dict[str, int] = {}
    for terms in vocab.values():
        for v in set(terms.values):
            owners[v.lower()] = owners.get(v.lower(), 0) + 1
    kinds: dict[str, int] = {}
    for terms in vocab.values():
        if terms.kind:
            kinds[terms.kind] = kinds.get(terms.kind, 0) + 1
    found: dict[str, str] = {}
    for slot, terms in vocab.items():
        best, best_value = -1, ""
        if terms.kind in _TYPED:
            named = kinds[terms.kind] > 1 or terms.kind in ("number", "date")
            for pos, value in find_typed(terms.kind, text or ""):
                if (not named or _named_before(low[:pos], terms.name_words(slot))) and pos > best:
                    best, best_value = pos, value
        for v in terms.values:
            # a value several slots share ("none", "pdf") counts only where this slot is named
            pos = _find_last(v, low, terms.name_words(slot) if owners[v.lower()] > 1 else None)
            if pos > best:
                best, best_value = pos, v
        if best >= 0:
            found[slot] = best_value
        elif _refers_to(words, terms.name_words(slot)):
            found[slot] = IMPLICIT
    return found


def _refers_to(words: list[str], names: tuple[tuple[str, ...], ...]) -> bool:
    words = [w.strip(".,;:") for w in words]
    for name in names:
        n = len(name)
        for i in range(len(words) - n + 1):
            if tuple(words[i : i + n]) == name and any(
                w in _CUES for w in words[max(0, i - _CUE_WINDOW) : i]
            ):
                return True
    return False
