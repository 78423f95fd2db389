"""Words of a clause for the offline reader: tokens with their character spans, plural folding, roots,
and the lookups of an argument's or a value's words among a clause's stems."""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(w: str) -> str:
    """Plural and possessive folded: "cities" -> "city", "boxes" -> "box", "notes" -> "note", "maps" ->
    "map", "Ruff's" -> "ruff"; an adverb of manner in -ally to its adjective ("formally" -> "formal")."""
    if w.endswith("'s") and len(w) > 3:
        w = w[:-2]
    if len(w) > 6 and w.endswith("ally") and w not in _STANCE_ADVERBS:
        return w[:-2]  # the manner of an adjective value: "formally" -> "formal", "casually" -> "casual"
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


# adverbs in -ally that say how often or how sure, never the manner a value names
_STANCE_ADVERBS = frozenset(
    "usually normally generally typically actually really totally basically literally originally finally"
    " especially occasionally additionally personally ideally technically practically virtually"
    " naturally obviously apparently eventually essentially initially traditionally".split()
)
# apostrophes as typed on phones and in word processors, and contractions typed without one
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_BARE_CONTRACTION = re.compile(
    r"\b(do|does|did|ca|wo|is|are|was|were|should|would|could|have|has|had|must|need)(nt)\b|\b(i)(m|ve)\b",
    re.I,
)


class Normalised(str):
    """Text as the cues expect it (`normalise`), and the way back to the person's own characters."""

    source: list[int]  # the original text's index of each character (an inserted one: the next's)
    original: str

    def back(self, span_text: str) -> str:
        """`span_text` (a span of this normalised text: a quote, a condition) in the original's own
        characters; unchanged when it is not a span of it."""
        i = self.find(span_text) if span_text else -1
        if i < 0:
            return span_text
        j = i + len(span_text)
        start = self.source[i]
        end = self.source[j - 1] + 1 if j > i else start
        return self.original[start:end]


def normalise(text: str) -> Normalised:
    """Straight apostrophes and quotes, and "dont", "cant", "im", "ive" with their apostrophe ("dont let
    me hit snooze" is a refusal like "don't"); `.back()` maps a span to the person's own characters
    (a quote must stay a quote of what they wrote)."""
    straight = text.translate(_APOSTROPHES)  # one character for one: indices unchanged
    out: list[str] = []
    source: list[int] = []
    at = 0
    for m in _BARE_CONTRACTION.finditer(straight):
        out.append(straight[at : m.start()])
        source.extend(range(at, m.start()))
        stem_end = m.start(2) + 1 if m.group(1) else m.end(3)  # "do|n|'t", "i|'m"
        out.append(straight[m.start() : stem_end] + "'" + straight[stem_end : m.end()])
        source.extend([*range(m.start(), stem_end), stem_end, *range(stem_end, m.end())])
        at = m.end()
    out.append(straight[at:])
    source.extend(range(at, len(straight)))
    norm = Normalised("".join(out))
    norm.source, norm.original = source, text
    return norm


@dataclass
class Token:
    """One word of a clause (lower-cased) with its character span in the clause."""

    word: str
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    low = text.lower().replace("_", " ")
    return [Token(m.group(0), m.start(), m.end()) for m in TOKEN.finditer(low)]


class Stems(list):
    """A clause's stems, with the lookups `has_words` repeats per argument built once."""

    def __init__(self, stems):
        super().__init__(stems)
        self.set = frozenset(self)
        self.by_prefix: dict[str, list[str]] = {}
        for s in self.set:
            self.by_prefix.setdefault(s[:4], []).append(s)


def has_words(stems: list[str], words: tuple[str, ...]) -> bool:
    n = len(words)
    if n == 1:  # one word: also its derivations ("spicy" names `spice`, "meetings" names `meeting`)
        w = words[0]
        if isinstance(stems, Stems):  # two words of one root share at least their first 4 letters
            return w in stems.set or any(same_root(s, w) for s in stems.by_prefix.get(w[:4], ()))
        return any(same_root(s, w) for s in stems)
    if not n or (isinstance(stems, Stems) and not all(w in stems.set for w in words)):
        return False
    return any(tuple(stems[j : j + n]) == words for j in range(len(stems) - n + 1))


def same_root(a: str, b: str) -> bool:
    if a == b:
        return True
    n = min(len(a), len(b)) - 1
    return n >= 4 and a[:n] == b[:n]


def covered_positions(stems: list[str], words: tuple[str, ...]) -> set[int]:
    n = len(words)
    return {j + k for j in range(len(stems) - n + 1) if tuple(stems[j : j + n]) == words for k in range(n)}


def occurrences(stems: list[str], words: tuple[str, ...]) -> list[int]:
    n = len(words)
    return [j for j in range(len(stems) - n + 1) if n and tuple(stems[j : j + n]) == words]


def root(word: str) -> str:
    """A word without its plural or verb ending ("posting" -> "post", "booked" -> "book")."""
    w = stem(word)
    for end in ("ing", "ed"):
        if len(w) > len(end) + 3 and w.endswith(end):
            return w[: -len(end)]
    return w
