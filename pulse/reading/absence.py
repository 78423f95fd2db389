"""Values that name an absence ("nut_free", "non_smoking", "no_preference"): refusing the thing they
leave out states them.

"I'm allergic to nuts" does not say "nut-free", and read as a negated "nut" it would become an avoid
of the one value the person needs. A value whose words are an absence marker plus the thing left out
is found where a negation or an aversion governs that thing, and then it is what is wanted; the thing
named with no refusal over it ("I love nuts") states nothing about the absence value.
"""

from __future__ import annotations

from functools import lru_cache

from pulse.reading.lexicon import STOPWORDS
from pulse.reading.words import stem, tokens

# words that make a value an absence of the other words ("gluten free", "non smoking", "no fees")
_MARKERS = frozenset("free no non without zero".split())


# diets named by what they leave out, not by a marker: "I don't eat meat" states `vegetarian` (and never
# avoids it), "no animal products" `vegan`
_DIETS = {
    "vegetarian": "meat",
    "veggie": "meat",
    "vegan": "animal product",
    "plant based": "animal product",
}


@lru_cache(maxsize=8192)  # asked per clause for every value of the schema
def absence_head(value: str) -> tuple[str, ...]:
    """The stems of what an absence value leaves out ("nut_free" -> ("nut",), "vegetarian" ->
    ("meat",)); () for other values."""
    diet = _DIETS.get(" ".join(value.lower().replace("-", " ").replace("_", " ").split()))
    if diet:
        return tuple(stem(w) for w in diet.split())
    words = [t.word for t in tokens(value.replace("-", " "))]
    if not any(w in _MARKERS for w in words):
        return ()
    head = tuple(stem(w) for w in words if w not in _MARKERS and not w.isdigit())
    return head if 1 <= len(head) <= 2 else ()


# verbs of eating or drinking, which leave the thing they take whole ("eat meat" names "meat")
_CONSUMING = frozenset("eat eats eating ate drink drinks drinking drank have having".split())


def names_head(value: str, text: str, arg: str = "") -> bool:
    """Whether `text` (a matched span) is the left-out thing itself ("nuts" for "nut_free", "eat meat"
    for "vegetarian": a verb of eating or drinking around it changes nothing; "the greeting" for
    `greeting`'s value "none")."""
    head = left_out(arg, value)
    words = [t.word for t in tokens(text) if t.word not in _CONSUMING]
    return bool(head) and len(words) == len(head) and all(_names(w, h) for w, h in zip(words, head))


# words between a refusal and the thing it refuses that leave the thing whole ("don't eat any eggs")
_REFUSING = frozenset(
    "no not never don't doesn't didn't won't can't cannot without avoid skip allergic allergy intolerant"
    " eat eating drink drinking take taking handle tolerate touch digest stand need".split()
)
# an aversion said after the thing ("a soy allergy", "lactose intolerant", "eggs make me sick")
_AVERSION_WORDS = frozenset("allergy allergies intolerance intolerant make makes made".split())


def says_marker(part: str, start: int, end: int) -> bool:
    """Whether the absence is said with the thing at part[start:end] ("gluten-free", "non-smoking",
    "nut free"), not only refused around it ("no gluten", "allergic to nuts")."""
    inside = [t.word for t in tokens(part[start:end].replace("-", " "))]
    after = tokens(part[end : end + 8].replace("-", " "))
    before = tokens(part[max(0, start - 6) : start].replace("-", " "))
    return (
        any(w in _MARKERS for w in inside)
        or bool(after and after[0].word == "free")
        or bool(before and before[-1].word in ("non", "zero"))
    )


# words of an argument's name that do not name the thing ("notify_via", "gift_wrap_type")
_NOT_THING = frozenset("via type kind style mode level option setting choice by of to for on in at".split())


def left_out(arg: str, value: str) -> tuple[str, ...]:
    """What `arg`'s absence value `value` leaves out: its own thing ("nut_free" -> ("nut",)), or for the
    value "none" the argument itself ("No emoji", "Skip the signature" state it); () for other values."""
    head = absence_head(value)
    return head or (_argument_head(arg) if arg and value.lower() == "none" else ())


@lru_cache(maxsize=4096)
def _argument_head(arg: str) -> tuple[str, ...]:
    """The stems of the thing an argument is ("emoji" -> ("emoji",), "gift_wrap" -> ("gift", "wrap"));
    () when its name is more than two such words."""
    words = [stem(w) for w in arg.lower().replace("-", "_").split("_") if w and w not in _NOT_THING]
    return tuple(words) if 1 <= len(words) <= 2 else ()


def _names(word: str, head: str) -> bool:
    # the thing itself, its plural, or a compound ending in it ("peanuts", "walnut" for "nut")
    s = stem(word)
    return s == head or (len(head) >= 3 and len(s) > len(head) + 2 and s.endswith(head))


def refused_absences(
    part: str,
    pairs: list[tuple[str, str]],
    negated: list[tuple[int, int]],
    found: list[tuple[str, str, int, int, float]],
) -> list[tuple[str, str, int, int, float]]:
    """Absence values whose left-out thing a negation or aversion of the clause governs: (argument,
    value, start, end, score) with the thing's span. Where the refusal already names another value of
    the argument ("no plastic bags": `plastic`, not `no_bags`), that value is what is refused."""
    if not negated:
        return []
    toks = tokens(part)
    out = []
    for arg, value in pairs:
        head = left_out(arg, value)
        if not head:
            continue
        for i in range(len(toks) - len(head) + 1):
            run = toks[i : i + len(head)]
            if not all(_names(t.word, h) for t, h in zip(run, head)):
                continue
            start, end = run[0].start, run[-1].end
            if says_marker(part, start, end):
                continue  # "gluten-free" said outright: the enumerated match reads it
            span = next(((a, b) for a, b in negated if a <= start < b), None)
            # (for "none" a guess by meaning on the argument's own word, "emoji" as `liberal`, is no value)
            guesses_ok = value.lower() == "none"
            if span is None or any(
                f[0] == arg and span[0] <= f[2] < span[1] and not (guesses_ok and f[4] < 1.0) for f in found
            ):
                continue
            before = [t.word for t in toks if span[0] <= t.start < start]
            after = toks[i + len(head)].word if i + len(head) < len(toks) else ""
            # the thing itself is refused, not a kind of it: "no gluten", "can't eat eggs", "a peanut
            # allergy", but not "no big shares" (big ones refused, sharing kept)
            if after in _AVERSION_WORDS or all(w in STOPWORDS or w in _REFUSING for w in before):
                out.append((arg, value, start, end, 1.0))
                break
    return out
