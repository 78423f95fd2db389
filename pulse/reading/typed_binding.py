"""The offline reader's typed values: amounts, clock times, zones, notes, codes and names found by
their form (`typed.py`) and bound to the argument of that kind the clause's words mean; yes/no
settings switched on or off. A mixin of `OfflineReader` (which supplies the knobs, the lexicon and the
value space)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np

from pulse.core.values import canonical, find_typed
from pulse.reading.clauses import NEGATION, NOT_NAMES, refused_predicates
from pulse.reading.facts import Schema
from pulse.reading.lexicon import STOPWORDS, content_words
from pulse.reading.typed import (
    arg_unit,
    clock_times,
    codes,
    in_unit,
    notes,
    proper_names,
    quantities,
    time_zones,
)
from pulse.reading.words import Stems, Token, has_words, stem, tokens


class TypedBinding:
    """Mixin: the typed half of `OfflineReader` (see the module docstring)."""

    arg_similarity: float
    margin: float

    def _lex(self) -> Any:  # supplied by OfflineReader
        raise NotImplementedError

    def _space(self, schema: Schema) -> Any:  # supplied by OfflineReader
        raise NotImplementedError

    def _typed(
        self, part: str, toks: list[Token], schema: Schema, lead_in: str = ""
    ) -> list[tuple[str, str, int, int, float]]:
        """Values given by their form (`typed.py`), each bound to the argument of its kind that the
        clause's words mean; several of that kind: the closest by meaning, clearly ahead. `lead_in`:
        words before the clause that count as its own (a short fragment's topic, "Keep calls short.
        Twenty minutes tops.")."""
        out = []
        low = part.lower()
        by_kind: dict[str, list[str]] = {}
        for arg in schema.by_name:
            by_kind.setdefault(_typed_kind(schema.by_name[arg][0]), []).append(arg)
        for kind, args in by_kind.items():
            if kind in ("date", "email", "domain"):
                for pos, value in find_typed(kind, part):
                    named = [a for a in args if _named_near(low, pos, a, schema)]
                    if len(named) == 1:
                        arg = named[0]
                    elif len(args) == 1:
                        arg = args[0]
                    else:
                        continue
                    out.append((arg, canonical(kind, value), pos, pos + len(value), 1.0))
            elif kind in _MENTIONS:
                out.extend(self._by_meaning(kind, part, args, schema, lead_in))
            elif kind == "boolean":
                out.extend(self._switches(part, toks, args, schema))
        return out

    def _arg_closeness(
        self,
        part: str,
        span: tuple[int, int],
        args: list[str],
        schema: Schema,
        lead_in: str = "",
        switch: bool = False,
    ) -> list[float]:
        """How much the clause's words outside `span` speak of each argument: the best 1-3-word
        phrase against the argument's name + description, +1 when it names the argument's words."""
        space = self._space(schema)
        rest = lead_in + " " + part[: span[0]] + " " + part[span[1] :]
        toks = [t for t in tokens(rest) if t.word not in STOPWORDS and not t.word.isdigit()]
        stems = Stems(stem(t.word) for t in tokens(rest))
        lex = self._lex()
        phrases = [
            lex.phrase(tuple(t.word for t in toks[a : b + 1]))
            for a in range(len(toks))
            for b in range(a, min(a + 3, len(toks)))
        ]
        if phrases:
            stacked = np.stack(phrases)
            # the argument's name and description head first; its whole description a little behind
            sims = np.maximum(stacked @ space.arg_vectors.T, stacked @ space.desc_vectors.T - 0.15)
        else:
            sims = None
        out = []
        for arg in args:
            col = space.args.index(arg)
            best = float(sims[:, col].max()) if sims is not None else 0.0
            naming = space.switch_words[arg] if switch else space.arg_words[arg]
            out.append(best + (1.0 if any(has_words(stems, w) for w in naming) else 0.0))
        return out

    def _contrasted_with(
        self, part: str, m: Any, bound: list[tuple[str, str, int, int, float]], schema: Schema
    ) -> tuple[str, str, int, int, float] | None:
        """ "25 minutes, not 30", "400 or 500 dollars": a number set against the one just before it is
        a value of the same argument, in its unit."""
        if not bound:
            return None
        arg, _, _, end, _ = bound[-1]
        if not _AGAINST.fullmatch(part[end : m.start]):
            return None
        spec = schema.by_name[arg][0]
        value = in_unit(m, arg_unit(arg, spec.description)) if spec.kind == "number" else m.value
        return None if value is None else (arg, value, m.start, m.end, 1.0)

    def _where_named(self, part: str, arg: str, schema: Schema) -> int:
        """Where the clause speaks of `arg`: its word closest to the argument's name and description
        (so that a setting said after a leading condition is not taken for part of it)."""
        space = self._space(schema)
        toks = [t for t in tokens(part) if t.word not in STOPWORDS]
        if not toks:
            return 0
        lex = self._lex()
        col = space.args.index(arg)
        sims = np.stack([lex.word_vector(t.word) for t in toks]) @ space.arg_vectors[col]
        return toks[int(np.argmax(sims))].start

    def _tool_evidence(
        self, part: str, span: tuple[int, int], args: list[str], schema: Schema, close: list[float]
    ) -> list[float]:
        """Arguments of different tools that could hold one value ("400 dollars": a flight's maximum
        fare or a hotel's maximum nightly rate): the clause's words that name a tool ("a domestic
        flight") count for that tool's arguments, relative to the least named of them (arguments of
        one tool are left as they are)."""
        space = self._space(schema)
        order = list(dict.fromkeys(a.tool for a in schema.args))
        owners = [{order.index(spec.tool) for spec in schema.by_name[a]} for a in args]
        if len({min(o) for o in owners}) < 2 or not len(space.tool_vectors):
            return close
        rest = part[: span[0]] + " " + part[span[1] :]
        words = [t.word for t in tokens(rest) if t.word not in STOPWORDS and not t.word.isdigit()]
        if not words:
            return close
        lex = self._lex()
        vecs = np.stack([lex.word_vector(w) for w in words])
        by_tool = (vecs @ space.tool_vectors.T).max(axis=0)  # each tool: its closest word
        said = [max(float(by_tool[t]) for t in o) for o in owners]
        low = min(said)
        return [c + _TOOL_WEIGHT * (x - low) for c, x in zip(close, said)]

    def _by_meaning(
        self, kind: str, part: str, args: list[str], schema: Schema, lead_in: str = ""
    ) -> list[tuple[str, str, int, int, float]]:
        out: list[tuple[str, str, int, int, float]] = []
        # a clock time's hour is not a quantity ("no calls after five")
        clocks = [(c.start, c.end) for c in clock_times(part)] if kind == "number" else []
        schema_nouns = _schema_nouns(schema) if kind == "string" else frozenset()
        for m in _MENTIONS[kind](part):
            if not m.unit and any(a <= m.start < b for a, b in clocks) and not _counts_things(part, m.end):
                continue
            if m.value.lower() in schema_nouns:
                continue  # "with this PR": the thing the tools act on, named in their own words, is no value
            contrast = self._contrasted_with(part, m, out, schema)
            if contrast is not None:
                out.append(contrast)
                continue
            # "three long bike sessions": a bare number counting other things is no amount of a unit
            counted = (
                kind == "number"
                and not m.unit
                and not _BOUND_CUE_AFTER.match(part[m.end :])  # "ninety tops" counts nothing
                and _counted_noun(part, m.end)
            )
            fits = []
            for arg in args:
                spec = schema.by_name[arg][0]
                unit = arg_unit(arg, spec.description) if kind == "number" else ""
                if counted and unit:
                    continue
                value = in_unit(m, unit) if kind == "number" else m.value
                if value is not None:
                    fits.append((arg, value))
            if not fits:
                continue
            names = [a for a, _ in fits]
            said = [f"{a} {schema.by_name[a][0].description}".replace("_", " ") for a in names]
            close = self._arg_closeness(_gap_ends_masked(part, m), (m.start, m.end), names, schema, lead_in)
            close = [c + b for c, b in zip(close, _cue_bonuses(kind, m, part, said, lead_in))]
            # the tool the clause names separates arguments of different tools (the lead), but never
            # makes the clause speak of an argument it does not (the threshold)
            lead = self._tool_evidence(part, (m.start, m.end), names, schema, close)
            order = sorted(range(len(fits)), key=lambda k: -lead[k])
            arg, value = fits[order[0]]
            top = close[order[0]]
            gap = lead[order[0]] - lead[order[1]] if len(order) > 1 else 1.0
            # a unit the argument takes ("minutes") is the argument's own word
            unit_named = (
                kind == "number"
                and bool(m.unit)
                and m.unit == arg_unit(arg, schema.by_name[arg][0].description)
            )
            need = _TYPED_MIN_CLOSENESS.get(kind, self.arg_similarity)
            # a note to pass on is its own evidence when one argument takes it; a city is named for many
            # reasons ("emails to the Berlin office"), its zone only where the clause speaks of time
            own_form = kind == "note" and len(fits) == 1
            if (top >= need or unit_named or own_form) and gap >= self.margin:
                out.append((arg, value, m.start, m.end, 1.0))
            elif kind == "number" and not counted and (obj := self._object_of_action(part, m, fits, schema)):
                out.append((*obj, m.start, m.end, 1.0))
        if kind == "string" and out:
            out.extend(_rejected_after(part, out[-1]))
        return out

    def _object_of_action(
        self, part: str, m: Any, fits: list[tuple[str, str]], schema: Schema
    ) -> tuple[str, str] | None:
        """ "Move 2,000 from savings into checking": a bare amount right after the clause's opening verb is
        what the action is done with: the one amount of the tool the clause means that is not a bound
        (a maximum, a limit)."""
        if m.unit not in ("", "money") or not _VERB_THEN_AMOUNT.match(part[: m.start]):
            return None
        tool = self.link_tool(part, schema)  # supplied by OfflineReader
        if not tool:
            return None
        plain = [
            (arg, value)
            for arg, value in fits
            if any(spec.tool == tool for spec in schema.by_name[arg])
            and not _BOUND_ARG.search(f"{arg} {schema.by_name[arg][0].description}".replace("_", " "))
        ]
        return plain[0] if len(plain) == 1 else None

    def _switches(
        self, part: str, toks: list[Token], args: list[str], schema: Schema
    ) -> list[tuple[str, str, int, int, float]]:
        """A yes/no setting the clause speaks of: "true", or "false" when it refuses it ("skip the
        plastic forks"; a negator before the words that name it)."""
        out = []
        close = self._arg_closeness(part, (0, 0), args, schema, switch=True)
        for arg, c in zip(args, close):
            if c < _SWITCH_CLOSENESS:
                continue
            # a refusal counts where the words it governs (up to the next break) speak of the setting:
            # "skip the cutlery", not the "no exceptions" after "always include the cutlery,"
            refused = next(
                (
                    m
                    for m in _REFUSAL.finditer(part)
                    if self._arg_closeness(_governed(part, m.start()), (0, 0), [arg], schema, switch=True)[0]
                    >= _SWITCH_CLOSENESS
                ),
                None,
            ) or next(
                (
                    m  # "Certificates are pointless for me": the thing before the judgement is refused
                    for m in refused_predicates(part)
                    if self._arg_closeness(m.group("thing"), (0, 0), [arg], schema, switch=True)[0]
                    >= _SWITCH_CLOSENESS
                ),
                None,
            )
            value = "false" if refused else "true"
            pos = refused.start() if refused else self._where_named(part, arg, schema)
            out.append((arg, value, pos, pos, 1.0))
        return out


def _gap_ends_masked(part: str, m: Any) -> str:
    """The clause with what a gap is between blanked ("fifteen minutes between meetings": "meetings"
    does not name the argument; it is what a length would be the length of)."""
    gap_after = _GAP_AFTER.match(part, m.end) if m.unit in _TIME_UNITS else None
    if not gap_after:
        return part
    stop = _PHRASE_END.search(part, gap_after.end())
    cut = stop.start() if stop else len(part)
    return part[: gap_after.start()] + " " * (cut - gap_after.start()) + part[cut:]


def _cue_bonuses(kind: str, m: Any, part: str, said: list[str], lead_in: str) -> list[float]:
    """What the words around a typed value add to each argument's closeness (`said`: each argument's
    name and description): how the value is said tells which kind of argument takes it."""
    bonus = [0.0] * len(said)

    def add(weight: float, arg_cue: re.Pattern) -> None:
        for k, text in enumerate(said):
            bonus[k] += weight * bool(arg_cue.search(text))

    before, after = part[: m.start], part[m.end :]
    if m.unit in _TIME_UNITS and _FOR_A_WHILE.search(before):
        add(_DURATION_BONUS, _DURATION_ARG)  # "for 90 minutes", "lasting an hour": how long it lasts
    gap_said = (
        _GAP_AFTER.match(part, m.end)
        or _GAP_BEFORE.search(before)
        or (lead_in and _GAP_BEFORE.search(lead_in.rstrip(" .!?")))  # "Some breathing room. Ten minutes."
    )
    if m.unit in _TIME_UNITS and gap_said:
        # "fifteen minutes between meetings", "a ten-minute breather after each call": a span of time
        # said as a gap between things is for an argument that is one (a buffer, a break)
        add(_DURATION_BONUS, _GAP_ARG)
    if kind == "time":
        # "I stop working at half past five", "we kick off at nine": a clock time said as when something
        # ends or starts is for an argument that is an end or a start
        # (the nearer cue only: "starts at 8:30 and ends at 5" ends at five)
        said_as = [(c.start(), arg_cue) for cue, arg_cue in _END_OR_START if (c := cue.search(before))]
        if said_as:
            add(_DURATION_BONUS, max(said_as, key=lambda x: x[0])[1])
    rate = _PER_THING_AFTER.match(after) if kind == "number" else None
    if rate:
        # "60 a ticket", "$40 per night": an amount for each thing is for an argument priced per that
        # thing, not for the count of those things
        add(_RATE_BONUS, re.compile(rf"\bper\s+{re.escape(stem(rate.group(1).lower()))}", re.I))
    if kind == "number" and not m.unit and (_HEADS_AFTER.match(after) or _GROUP_OF_BEFORE.search(before)):
        # "it's four of us", "a party of six": how many people go is for an argument that counts them
        # (tickets, guests, seats, travellers)
        add(_HEADCOUNT_BONUS, _HEADCOUNT_ARG)
    if kind == "number" and (_BOUND_CUE_BEFORE.search(before) or _BOUND_CUE_AFTER.match(after)):
        # "don't go above fifty", "twenty minutes tops": a number said as a bound is for an argument that
        # is one (a maximum, a limit, a budget)
        add(_BOUND_BONUS, _BOUND_ARG)
    return bonus


def _counts_things(part: str, end: int) -> bool:
    """A bare number followed by a plural noun counts those things ("after three names", "at two
    reviewers"): an amount, not the hour a clock-time reading would make of it."""
    nxt = re.match(r"\s+([a-z]+)\b", part[end:], re.I)
    if nxt is None:
        return False
    word = nxt.group(1).lower()
    return stem(word) != word and word not in _NOT_COUNTED


def _counted_noun(part: str, end: int) -> bool:
    """A bare number followed, within a few describing words, by a plural noun it counts ("three long
    bike sessions", "2 spare rooms")."""
    for word in re.findall(r"[a-z]+", re.split(r"[,;:.!?()]", part[end:], maxsplit=1)[0].lower())[:3]:
        if word in STOPWORDS:
            return False
        if stem(word) != word and word not in _NOT_COUNTED and not word.endswith("ss"):
            return True
    return False


# plurals after an hour that are not things counted ("after five weekdays" is still a clock time)
_NOT_COUNTED = frozenset("afternoons evenings mornings nights weekdays weekends".split())


# between two values set against each other: "X, not Y", "X rather than Y", "X or Y"
# the clause's opening verb and nothing else before an amount ("Move 2,000", "please transfer $300")
_VERB_THEN_AMOUNT = re.compile(
    r"^\W*(?:(?:please|just|now)\s+)*(?!(?:i|we|you|it|that|this|is|was)\b)[a-z]+\s+[$£€]?\s*$", re.I
)
# a short phrase, then ", not X" ending the clause (X one word or code)
_REJECTED_LAST = re.compile(
    r"[^,;.!?]{0,30}[,;]\s*(?:but\s+)?(?:not|never|rather than|instead of)\s+(?:the\s+)?"
    r"(?P<value>[\w][\w/.-]*?)\s*[.!]*\s*$",
    re.I,
)
_AGAINST = re.compile(r"\s*[,;]?\s*(?:not|never|but not|rather than|instead of|over|or|than)\s+", re.I)


@lru_cache(maxsize=256)
def _schema_nouns(schema: Schema) -> frozenset[str]:
    """Every word of the tools' and arguments' own names and descriptions, lower-cased ("PR" of "Branch
    the PR merges into"), less the examples they give ("e.g. Europe/Paris", "(Zoom, Teams)"): those are
    values."""
    text = " ".join(f"{a.tool} {a.name} {a.description} {a.tool_description}" for a in schema.args)
    text = _EXAMPLES.sub(" ", text.replace("_", " "))
    return frozenset(w.lower().rstrip(".") for w in re.findall(r"[A-Za-z][\w/.-]*", text))


# what a description gives as examples: a parenthesis, or "e.g." / "such as" / "like" to the sentence's end
_EXAMPLES = re.compile(r"\([^)]*\)|\b(?:e\.g\.|eg\.|i\.e\.|such as|for example|like)\s[^.;]*", re.I)


def _rejected_after(
    part: str, bound: tuple[str, str, int, int, float]
) -> list[tuple[str, str, int, int, float]]:
    """ "Target release/2.4 with this PR, not main": a free-text value set against one more word at the end
    of the clause is a value of the same argument, turned down (its negation makes it an avoid)."""
    arg, _, _, end, _ = bound
    m = _REJECTED_LAST.match(part, end)
    if not m or m.group("value").lower() in STOPWORDS:
        return []
    return [(arg, m.group("value"), m.start("value"), m.end("value"), 1.0)]


def _governed(part: str, start: int) -> str:
    """The words from a negator at `start` to the next break in the clause."""
    rest = part[start:]
    brk = re.search(r"[,;:.!?()]|\s[-–—]\s", rest)
    return rest[: brk.start()] if brk else rest


def _outermost(mentions: list) -> list:
    """One stretch of text is one mention: of overlapping ones the longest ("ENG-204", not its
    capitalised "ENG")."""
    out: list = []
    for m in sorted(mentions, key=lambda m: m.start - m.end):
        if not any(m.start < o.end and o.start < m.end for o in out):
            out.append(m)
    return sorted(out, key=lambda m: m.start)


def _typed_kind(spec) -> str:
    """Which mentions can fill an argument: its value kind, refined for free strings by what its
    name and description say it holds (a clock time, a time zone, a note, a code or a name)."""
    if spec.type == "boolean":
        return "boolean"
    if spec.enum or spec.kind != "string":
        return spec.kind  # a free text (a query, an answer, a message) is what a call says, not a setting
    text = f"{spec.name.replace('_', ' ')} {spec.description}".lower()
    if "hh:mm" in text or re.search(r"\btime\b", spec.name.replace("_", " ")) and "zone" not in text:
        return "time"
    if re.search(r"\b(?:time ?zone|iana)\b", text):
        return "zone"
    if re.search(r"\b(?:free[- ]text|note|notes|instructions?|message to)\b", text):
        return "note"
    return "string"


_MENTIONS = {
    "number": quantities,
    "time": clock_times,
    "zone": time_zones,
    "note": notes,
    "string": lambda part: _outermost(codes(part) + proper_names(part, NOT_NAMES)),
}


# how clearly the clause must speak of the argument for a mention of that kind to fill it (a name
# or a code can be anything: the clause must be about the argument)
_TYPED_MIN_CLOSENESS = {"number": 0.5, "time": 0.45, "zone": 0.3, "note": 0.3, "string": 0.6}


_SWITCH_CLOSENESS = 0.72
# how much a word naming an argument's tool counts, relative to naming the argument itself
_TOOL_WEIGHT = 0.5
# how long something lasts: "for"/"lasting" right before a span of time, and the arguments that hold one
_TIME_UNITS = ("minute", "hour", "day", "week")
_FOR_A_WHILE = re.compile(r"\b(?:for|lasting|last|run|runs)\s+(?:about\s+|around\s+|roughly\s+)?$", re.I)
_DURATION_ARG = re.compile(r"duration|length|\blong\b|how long", re.I)
_DURATION_BONUS = 0.3
_PHRASE_END = re.compile(r"[,.;:!?]|\s[-–—]\s")
# a span of time said as a gap between things, and the arguments that are one
_GAP_AFTER = re.compile(
    r"\s*(?:of\s+)?(?:free\s+|clear\s+|spare\s+)?(?:between|in between|in-between|gap|break|breather|buffer|"
    r"breathing room|after each|after every|before the next)\b",
    re.I,
)
_GAP_BEFORE = re.compile(
    r"\b(?:gap|break|breather|buffer|breathing room|cushion)\b"
    r"(?:[^.;]{0,40}\b(?:between|after)\b)?[^.;]{0,30}$",
    re.I,
)
# a clock time said as when something ends or starts, and the arguments that are an end or a start
_ENDS_BEFORE = re.compile(
    r"\b(?:stop|stops|stopped|finish|finishes|wrap up|wraps up|log off|logs off|clock off|knock off|"
    r"done|until|till|end|ends|leave the office|sign off)\b[^.;,]{0,25}$",
    re.I,
)
_STARTS_BEFORE = re.compile(
    r"\b(?:start|starts|begin|begins|kick off|kicks off|log on|logs on|clock on|get in|gets in)\b"
    r"[^.;,]{0,25}$",
    re.I,
)
_END_ARG = re.compile(r"\bend|finish|until|\bclose|\bstop", re.I)
_START_ARG = re.compile(r"start|begin|\bopen", re.I)
_END_OR_START = ((_ENDS_BEFORE, _END_ARG), (_STARTS_BEFORE, _START_ARG))

_GAP_ARG = re.compile(r"buffer|\bgap|\bbreak|\bfree\b|between|\bafter\b|\bpadding", re.I)
# a number said as a bound, and the arguments that are one
_BOUND_CUE_BEFORE = re.compile(
    r"\b(?:over|above|beyond|exceed(?:s|ing)?|more than|higher than|greater than|under|below|less than"
    r"|fewer than|lower than|up to|at most|at least|no more than|max(?:imum)?(?: of)?|min(?:imum)?(?: of)?"
    r"|cap(?:ped)?(?: it)? at|limit(?: it)? to)\s+[$£€]?$",
    re.I,
)
_BOUND_CUE_AFTER = re.compile(
    r"\s*(?:tops|max|maximum|at most|at the most|or less|or fewer|or more|at least|minimum)\b", re.I
)
_BOUND_ARG = re.compile(
    r"\b(?:max|maximum|min|minimum|most|least|limit|cap|largest|smallest|highest|lowest|budget|ceiling)\b",
    re.I,
)
_BOUND_BONUS = 0.2
# a number said as how many people go, and the arguments that count them: a head count names its
# argument as surely as "N tickets" would
_HEADCOUNT_BONUS = 0.4
_HEADS_AFTER = re.compile(r"\s+(?:of us|of them|people|persons|guests|adults|travell?ers|passengers)\b", re.I)
_GROUP_OF_BEFORE = re.compile(r"\b(?:party|group|table|family) of\s+$", re.I)
_HEADCOUNT_ARG = re.compile(
    r"\b(?:count|number of|how many|guests|people|persons|party size|travell?ers|passengers|attendees"
    r"|headcount)\b",
    re.I,
)
_RATE_BONUS = 0.3
# an amount for each of something ("60 a ticket", "40 dollars per night", "$5 each person"), also the
# first of two ("from 100 to 60 a ticket", "between 80 and 120 a night")
_PER_THING_AFTER = re.compile(
    r"(?:\s*(?:to|-|–|or|and)\s*[$£€]?\d[\d,.]*)?"
    r"\s*(?:dollars?|euros?|pounds?|bucks|quid|usd|eur|gbp)?\s*(?:a|an|per|each)\s+([a-z]+)\b",
    re.I,
)


# what refuses a yes/no setting: every negation of a clause (`clauses.NEGATION`), and the verbs that
# switch something off
_REFUSAL = re.compile(
    rf"{NEGATION.pattern}|\b(?:drop|stop|leave out|leave off|turn off|disable|switch off|forget|hold off"
    r"|no need)\b",
    re.I,
)


def _named_near(low: str, pos: int, arg: str, schema: Schema) -> bool:
    before = low[max(0, pos - 60) : pos]
    after = low[pos : pos + 40]
    spec = schema.by_name[arg][0]
    names = [arg.replace("_", " "), *content_words(arg)]
    names += [w for w in content_words(re.sub(r"\(.*?\)", "", spec.description.lower()))[:2] if len(w) > 3]
    return any(n and (n in before or n in after) for n in names)
