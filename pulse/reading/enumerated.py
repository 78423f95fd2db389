"""The offline reader's enumerated values: which of an argument's schema values a clause names.

Stages of `EnumeratedValues._enumerated` (a mixin of `OfflineReader`, which supplies the knobs,
the lexicon and the value space):
1. `_scan`: the clause's stems, content words, 1-3-word spans and their vectors, each argument's
   mention score (its name or description said, by word or by meaning, or spoken of earlier);
2. `_exact`: values in the schema's own words (stem-folded, across a small word; a two-word value
   also in the other order or another form), values that are an amount said in other words ("sixty
   minutes" is full_hour), how often ("every other week" is biweekly), parts of the day a clock time
   falls in; an amount or a clock time a typed argument also takes is left to it unless the clause
   speaks of the enumerated argument (`_yield_amounts`, `_day_parts`); a value several arguments
   share goes to the tool whose other values the clause names (`_sided_by_tool`);
3. `_claims`: per argument, its best value (the schema's own words first, else the closest
   paraphrase when clearly ahead and either strong or of an argument the clause speaks of);
4. `_resolve`: one phrase states one argument's value, the best claim wins (of values in the schema's
   own words, the one covering more of the phrase).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from pulse.reading.clauses import NEGATION
from pulse.reading.lexicon import STOPWORDS
from pulse.reading.typed import (
    Mention,
    arg_unit,
    clock_times,
    compound_numbers,
    day_parts,
    in_unit,
    quantities,
    same_amount,
)
from pulse.reading.typed_binding import _typed_kind
from pulse.reading.value_space import ValueSpace
from pulse.reading.words import TOKEN, Stems, Token, covered_positions, has_words, root, stem

Claim = tuple[float, str, str, int, int]  # score, argument, value, start, end


@dataclass
class _Scan:
    """One clause as the value matching sees it (built once per clause)."""

    toks: list[Token]
    stems: Stems
    said: list[Mention]  # the amounts it states
    content: list[int]  # positions of content words
    spans: list[tuple[int, int]]  # 1-3-word spans of content words (first, last position)
    inside: list[tuple[int, ...]]  # each span's content words (positions), read for every argument
    span_vecs: np.ndarray
    tok_arg: dict[int, np.ndarray]  # each content word against each argument's name
    arg_mention: dict[str, float]  # how much the clause speaks of each argument


class EnumeratedValues:
    """Mixin: the enumerated half of `OfflineReader` (see the module docstring)."""

    arg_similarity: float
    min_similarity: float
    margin: float
    strong_similarity: float
    strong_margin: float

    def _lex(self) -> Any:  # supplied by OfflineReader
        raise NotImplementedError

    def _enumerated(
        self,
        part: str,
        toks: list[Token],
        space: ValueSpace,
        schema: Any,
        context: frozenset[str] = frozenset(),
        only: frozenset[str] | None = None,  # the arguments to read (None: all)
    ) -> list[tuple[str, str, int, int, float]]:
        scan = self._scan(part, toks, space, context)
        exact = _exact_words(scan, space)
        self._amounts(scan, space, exact)
        _frequencies(part, space, exact)
        _calendar_groups(part, space, exact)
        if space.typed_rivals is None:
            space.typed_rivals = _typed_rivals(schema)
        rivals, clock_args = space.typed_rivals
        self._day_parts(part, space, scan.arg_mention, exact, clock_args)
        withheld = self._yield_amounts(scan, space, exact, rivals)
        owners: dict[str, int] = {}
        for _, v in space.pairs:
            owners[v] = owners.get(v, 0) + 1
        sided = _sided_by_tool(space, schema, exact, owners)
        # positions each argument's full (several-word) name covers: never another argument's value
        covered = {
            other: covered_positions(scan.stems, space.arg_words[other][0])
            for other in space.args
            if len(space.arg_words[other][0]) > 1
        }
        candidates: list[Claim] = []
        for col_arg, arg in enumerate(space.args):
            if only is not None and arg not in only:
                continue
            candidates.extend(
                self._claims(scan, space, exact, owners, covered, col_arg, arg, withheld, sided)
            )
        return _resolve(candidates)

    def _scan(self, part: str, toks: list[Token], space: ValueSpace, context: frozenset[str]) -> _Scan:
        stems = Stems(stem(t.word) for t in toks)
        said = quantities(part) + [Mention(0, 0, n) for n in compound_numbers(part)]
        content = [
            k
            for k, t in enumerate(toks)
            if t.word not in STOPWORDS and t.word not in _NO_MEANING and not t.word.isdigit()
        ]
        # a span never reaches across a negator: "My son hates spicy food" has no "son ... spicy" that
        # would name a value outside the refusal
        negators = [k for k, t in enumerate(toks) if NEGATION.fullmatch(t.word)]
        spans, inside = [], []  # as in _Scan
        for a in range(len(content)):
            for b in range(a, min(a + 3, len(content))):
                if content[b] - content[a] <= 3 and not any(content[a] < k < content[b] for k in negators):
                    spans.append((content[a], content[b]))
                    inside.append(tuple(content[a : b + 1]))
        lex = self._lex()
        tok_arg = {
            t: v
            for t, v in zip(
                content,
                (np.stack([lex.word_vector(toks[t].word) for t in content]) @ space.arg_vectors.T)
                if content
                else [],
            )
        }
        if spans:
            span_vecs = np.stack([lex.phrase(tuple(toks[k].word for k in ks)) for ks in inside])
        else:
            span_vecs = np.zeros((0, lex.dim), np.float32)
        span_arg = span_vecs @ space.arg_vectors.T if spans else np.zeros((0, len(space.args)), np.float32)
        # how much the clause speaks of each argument: its best span by meaning, +1 when it names the
        # argument's words or an earlier clause of the statement spoke of it
        arg_best = span_arg.max(axis=0).tolist() if spans else [0.0] * len(space.args)
        mention = {
            a: arg_best[i]
            + (1.0 if any(has_words(stems, w) for w in space.arg_words[a]) or a in context else 0.0)
            for i, a in enumerate(space.args)
        }
        return _Scan(toks, stems, said, content, spans, inside, span_vecs, tok_arg, mention)

    def _amounts(self, scan: _Scan, space: ValueSpace, exact: dict[int, tuple[int, int]]) -> None:
        """A value that is an amount is named by the same amount in other words ("sixty minutes" is
        full_hour, "72 hours" three_days): the schema's value, as sure as its own words where both give
        a unit or the clause speaks of the argument."""
        for i, (arg, value) in enumerate(space.pairs):
            amount = _amount(value)
            if amount is None or i in exact:
                continue
            for q in scan.said:
                if (
                    q.end > q.start
                    and same_amount(amount, q)
                    and ((amount.unit and q.unit) or scan.arg_mention[arg] >= self.arg_similarity)
                ):
                    exact[i] = (q.start, q.end)
                    break

    def _yield_amounts(
        self, scan: _Scan, space: ValueSpace, exact: dict[int, tuple[int, int]], rivals: frozenset[str]
    ) -> set[int]:
        """An amount that a numeric argument of the schema also takes ("fifteen minutes" where the
        schema has both a reminder value fifteen_minutes and a `buffer_minutes` number) is that
        enumerated value only where the clause speaks of its argument: one amount, several arguments
        that could hold it, and the clause's words decide (the typed binding weighs the numbers).
        Returns the values withheld (neither named nor paraphrased by the amount)."""
        withheld = set()
        for i in list(exact):
            arg, value = space.pairs[i]
            amount = _amount(value)
            if (
                amount is not None
                and scan.arg_mention[arg] < self.arg_similarity
                and any(in_unit(amount, unit) is not None for unit in rivals)
            ):
                del exact[i]
                withheld.add(i)
        return withheld

    def _day_parts(
        self,
        part: str,
        space: ValueSpace,
        arg_mention: dict[str, float],
        exact: dict[int, tuple[int, int]],
        clock_args: tuple[str, ...] = (),
    ) -> None:
        """A clock time names the part of the day it falls in ("after six" is an evening value) for the
        one argument whose values are parts of the day, or the one the clause speaks of. Where the
        schema also has arguments that take the clock time itself (a start time, HH:MM), the time is
        theirs where the clause speaks of one of them, unless it speaks of the part-of-day argument at
        least as much."""
        rival = max((arg_mention[a] for a in clock_args), default=0.0)
        for clock in clock_times(part):
            words = day_parts(clock.value)
            hits: dict[str, int] = {}
            for word in words:
                want = tuple(stem(w) for w in word.split())
                for arg in space.args:
                    # the value that is the word itself first ("9:15" is morning, not early_morning)
                    for i in sorted(space.pair_index[arg], key=lambda j: space.words[j] != want):
                        vw = space.words[i]
                        if arg not in hits and any(vw[k : k + len(want)] == want for k in range(len(vw))):
                            hits[arg] = i
            if len(hits) > 1:
                hits = {a: i for a, i in hits.items() if arg_mention[a] >= self.arg_similarity}
            if rival >= self.arg_similarity:
                hits = {a: i for a, i in hits.items() if arg_mention[a] >= rival}
            if len(hits) == 1:
                (i,) = hits.values()
                exact.setdefault(i, (clock.start, clock.end))

    def _claims(
        self,
        scan: _Scan,
        space: ValueSpace,
        exact: dict[int, tuple[int, int]],
        owners: dict[str, int],
        covered: dict[str, set[int]],
        col_arg: int,
        arg: str,
        withheld: set[int] = frozenset(),  # type: ignore[assignment]
        sided: set[int] = frozenset(),  # type: ignore[assignment]
    ) -> list[Claim]:
        """`arg`'s claims on the clause: every value in the schema's own words, else its best
        paraphrase when clearly ahead of the argument's other values."""
        idx = space.pair_index[arg]
        usable, vecs = _usable_spans(scan, space, covered, col_arg, arg, self._lex())
        sims = vecs @ space.arg_value_vectors[arg].T if usable else None
        # each value's closest span and its similarity (plain lists: read once per value below)
        best_rows = sims.argmax(axis=0).tolist() if sims is not None else None
        best_sims = sims.max(axis=0).tolist() if sims is not None else None
        mention = scan.arg_mention[arg]
        best: list[tuple[float, int, int, int]] = []  # score, pair index, start, end
        for col, i in enumerate(idx):
            if i in withheld or (i not in exact and not _same_quantity(space.pairs[i][1], scan.said)):
                continue  # "half an hour" is not the value one_hour, "every day" not one_day
            if i in exact:
                shared = owners[space.pairs[i][1]] > 1
                sure = not shared or mention >= self.arg_similarity or i in sided
                best.append((1.0 if sure else 0.5, i, *exact[i]))
            elif best_rows is not None:
                r = best_rows[col]
                a, b = scan.spans[usable[r]]
                # a paraphrase never counts as the schema's own words (those score exactly 1.0)
                score = min(best_sims[col], 0.99)
                if set(scan.stems[a : b + 1]) < _word_set(space.words[i]):
                    # part of a several-word value ("commit" of merge_commit, "person" of in_person)
                    # is not the value unless the clause speaks of its argument
                    score = min(score, self.strong_similarity - 0.01)
                best.append((score, i, scan.toks[a].start, scan.toks[b].end))
        if not best:
            return []
        best.sort(reverse=True)
        exact_hits = [b for b in best if b[0] >= 1.0]
        if exact_hits and all(_as_verb(scan, b[2]) for b in exact_hits):
            return []  # "without checking with me": the value's word is a verb here, no value is named
        if exact_hits:  # every value the clause names in the schema's own words outranks any paraphrase
            bonus = 1.0 + 0.1 * min(mention, 1.0)
            return [(s + bonus, arg, space.pairs[i][1], a, e) for s, i, a, e in exact_hits]
        top = best[0]
        if set(space.words[top[1]]) <= _EMPTY_VALUE:
            # a value that is the absence of one ("none") has no meaning to paraphrase: closest to the
            # clause's words, it only says no other value is
            return []
        lead = top[0] - (best[1][0] if len(best) > 1 else 0.0)
        named = mention >= self.arg_similarity
        if (named and top[0] >= self.min_similarity and lead >= self.margin) or (
            top[0] >= self.strong_similarity and lead >= self.strong_margin
        ):
            return [(top[0] + 0.1 * min(mention, 1.0), arg, space.pairs[top[1]][1], top[2], top[3])]
        return []


def _usable_spans(
    scan: _Scan, space: ValueSpace, covered: dict[str, set[int]], col_arg: int, arg: str, lex: Any
) -> tuple[list[int], np.ndarray]:
    """The spans that may name `arg`'s value, and each one's meaning without the argument's own
    words ("a seat by the corridor" -> "corridor"), one row per span (read only: it may be the
    scan's own table)."""
    own = space.own_words[arg]
    own_toks = {t for t in scan.content if scan.stems[t] in own}
    # words that name this argument by meaning ("food" names `meal`) are not its value, unless the
    # word is one of its values' own words ("small" of small_plates for `portion_size`)
    value_words = space.value_words[arg]
    names_arg = {
        t
        for t in scan.content
        if t not in own_toks and scan.tok_arg[t][col_arg] >= 0.6 and scan.stems[t] not in value_words
    }
    # another argument's full name ("doc format") is that argument, never this one's value
    named_other = {t for other, ts in covered.items() if other != arg for t in ts}
    excluded = own_toks | names_arg
    if not excluded and not named_other:
        return list(range(len(scan.inside))), scan.span_vecs  # every span as it is (the usual case)
    usable, reread = [], {}  # reread: row -> the span's meaning without those words
    for k, inside in enumerate(scan.inside):
        if named_other and not named_other.isdisjoint(inside):
            continue
        if excluded.issuperset(inside):
            continue  # a span of the argument's own words alone never names a value
        if names_arg and not names_arg.isdisjoint(inside):
            # a word naming the argument by meaning ("food" for `meal`) says nothing of its value
            words = tuple(scan.toks[t].word for t in inside if t not in names_arg)
            reread[len(usable)] = lex.phrase(words)
        usable.append(k)
    vecs = scan.span_vecs[usable]  # a copy: the rows re-read below change it only
    for row, vec in reread.items():
        vecs[row] = vec
    return usable, vecs


def _as_verb(scan: _Scan, start: int) -> bool:
    """A value's word ending in -ing after a preposition that takes a verb ("without checking with
    me", "before booking"), or with a particle after a modal ("should pop up"), is that verb, not the
    value. (After "is" or "by" it may be the value itself: "my travel mode is walking", "get there by
    cycling".)"""
    toks = scan.toks
    k = next((k for k, t in enumerate(toks) if t.start == start), None)
    if k is None or k == 0:
        return False
    if k + 1 < len(toks) and toks[k + 1].word in _PARTICLES and toks[k - 1].word in _BEFORE_A_VERB:
        return True  # "alerts should pop up on my phone": a phrasal verb, not the genre pop
    if not toks[k].word.endswith("ing") or len(toks[k].word) < 6:
        return False
    return toks[k - 1].word in _TAKES_A_VERB


_PARTICLES = frozenset("up out off down".split())
# words after which a value's word with a particle is a verb ("should pop up", "to rock out")
_BEFORE_A_VERB = frozenset(
    "to should will would can could may might must shall please just always never".split()
)


# words that may stand between a several-word value's own words (`_with_fillers`)
_FILLERS = frozenset("it them the a an my our your this that these those".split())


def _with_fillers(stems: Sequence[str], vw: tuple[str, ...]) -> tuple[int, int] | None:
    """Token positions (first, last) of `vw` said in order with at most one filler word (`_FILLERS`)
    before each of its later words; None when it is not said so."""
    for j in range(len(stems)):
        if stems[j] != vw[0]:
            continue
        k, ok = j, True
        for w in vw[1:]:
            if k + 1 < len(stems) and stems[k + 1] == w:
                k += 1
            elif k + 2 < len(stems) and stems[k + 1] in _FILLERS and stems[k + 2] == w:
                k += 2
            else:
                ok = False
                break
        if ok:
            return j, k
    return None


def _exact_words(scan: _Scan, space: ValueSpace) -> dict[int, tuple[int, int]]:
    """Values whose words occur in the clause (stem-folded; a several-word value also across a small
    word: "beer and wine" is beer_wine): pair index -> character span."""
    toks, stems = scan.toks, scan.stems
    pos = [k for k, t in enumerate(toks) if t.word not in STOPWORDS]  # positions of non-small words
    exact: dict[int, tuple[int, int]] = {}
    bases: dict[int, str] | None = None  # each non-small word's base form (built when first needed)
    said_stems = stems.set  # a value none of whose words is said is skipped without a scan
    for i, vw in enumerate(space.words):
        n = len(vw)
        if not n:
            continue
        for j in range(len(stems) - n + 1) if vw[0] in said_stems else ():
            if tuple(stems[j : j + n]) == vw:
                # a plural of a one-word value ("team" for the value "teams") is a paraphrase
                raw = TOKEN.findall(space.pairs[i][1].lower().replace("_", " ").replace("-", " "))
                if n == 1 and toks[j].word != raw[0] and stem(toks[j].word) == toks[j].word:
                    continue
                if (
                    toks[j + n - 1].word.endswith("'s")
                    and not _owns_its_argument(toks, j + n, space, i)
                    and not _is_after(toks, j + n)
                ):
                    continue  # "Thursday's workshop" says when the workshop is; "Ruff's formatter" is ruff
                exact[i] = (toks[j].start, toks[j + n - 1].end)
        if i not in exact and n > 1 and said_stems.issuperset(vw):
            for j in range(len(pos) - n + 1):
                run = pos[j : j + n]
                if run[-1] - run[0] <= 2 * n - 2 and tuple(stems[k] for k in run) == vw:
                    exact[i] = (toks[run[0]].start, toks[run[-1]].end)
                    break
        if i not in exact and n > 1 and said_stems.issuperset(vw):
            # the value's words with a pronoun or an article between them: "leave it at the door" is
            # leave_at_door, "hand it to me" hand_to_me
            at = _with_fillers(stems, vw)
            if at is not None:
                exact[i] = (toks[at[0]].start, toks[at[1]].end)
        short = space.short_names.get(i)
        if i not in exact and short:
            # the value's words less its argument's own ("8x10" of size_8x10, "lunch" of lunchtime)
            k = len(short)
            for j in range(len(stems) - k + 1):
                if tuple(stems[j : j + k]) == short:
                    exact[i] = (toks[j].start, toks[j + k - 1].end)
                    break
        if i not in exact and n == 2 and not set(vw) & _NOT_CONTENT:
            # a two-word value in the other order or another form of its words, within a few words
            # ("forward the vendor's email" is email_forward, "printing double-sided" double_sided)
            want = {_base(w) for w in vw}
            if bases is None:
                bases = {k: _base(toks[k].word) for k in pos}
            if len(want) < 2 or not want <= set(bases.values()):
                continue
            for j, a in enumerate(pos):
                for b in pos[j + 1 : j + 3]:
                    if b - a <= 3 and {bases[a], bases[b]} == want:
                        exact[i] = (toks[a].start, toks[b].end)
                        break
                if i in exact:
                    break
    _glossed(scan, space, exact)
    return exact


def _is_after(toks: list[Token], k: int) -> bool:
    """The "'s" before is "is", not a possessive: "Economy's fine", "Window's best", "Aisle's what I want"
    (at the end of a clause it is a place: "at the groomer's")."""
    if k >= len(toks):
        return False
    if toks[k].word in _STARTS_PREDICATE:
        return True
    # an adjective ends the predicate ("Economy's fine, ...", "Window's best for me"); before a noun it
    # is the possessive's ("Luna's best food")
    ends = k + 1 == len(toks) or toks[k + 1].word in _AFTER_PREDICATE
    return toks[k].word in _ADJECTIVE_AFTER_IS and ends


# words that open what follows "is" and never follow a possessive (adverbs, "what", articles, pronouns)
_STARTS_PREDICATE = frozenset("what too always just really totally still also a an the it my".split())
_ADJECTIVE_AFTER_IS = frozenset(
    "fine ok okay good great best better perfect ideal enough plenty easiest easier simplest handiest".split()
)
_AFTER_PREDICATE = frozenset("for with by to if when as but and so i".split())


def _owns_its_argument(toks: list[Token], k: int, space: ValueSpace, i: int) -> bool:
    """The word after a possessive value names the value's argument ("Ruff's formatter")."""
    return k < len(toks) and stem(toks[k].word) in space.own_words[space.pairs[i][0]]


def _glossed(scan: _Scan, space: ValueSpace, exact: dict[int, tuple[int, int]]) -> None:
    """Codes said in words ("francs" is `chf`, "a text" is `sms`, `glosses.py`): as exact as the value's
    own words, unless the words are part of a longer value of the same argument ("canadian dollars") or
    stand right before one ("Visa debit card")."""
    stems, toks = scan.stems, scan.toks
    found: dict[int, tuple[int, int]] = {}
    for i, glosses in space.glosses.items():  # built once per schema
        if i in exact:
            continue
        for gloss in glosses:
            n = len(gloss)
            j = next((j for j in range(len(stems) - n + 1) if tuple(stems[j : j + n]) == gloss), None)
            if j is not None:
                span = (toks[j].start, toks[j + n - 1].end)
                if i not in found or span[1] - span[0] > found[i][1] - found[i][0]:
                    found[i] = span
    for i, (a, b) in found.items():
        arg = space.pairs[i][0]
        rivals = [found.get(k) or exact.get(k) for k in space.pair_index[arg] if k != i]
        if not any(r and r[0] <= a and b <= r[1] and r[1] - r[0] > b - a for r in rivals) and not any(
            r and 0 < r[0] - b <= 1 for r in rivals
        ):  # ... nor the word before another value's own words ("a Visa debit card" is the debit card)
            exact[i] = (a, b)


# how often, said in words: "every (single) day" is daily, "once a month" monthly, "every other week"
# biweekly
_EVERY = re.compile(
    r"\b(?:(?P<other>every (?:other|second|two|2)|twice an?|twice per|two times an?)"
    r"|every(?:\s+single)?|each|once an?|once per|per)"
    r"\s+(?P<unit>hour|day|night|week|month|quarter|year)s?\b",
    re.I,
)
_ADVERB = {
    "day": "daily",
    "hour": "hourly",
    "night": "nightly",
    "week": "weekly",
    "month": "monthly",
    "quarter": "quarterly",
    "year": "yearly",
}


def _frequencies(part: str, space: ValueSpace, exact: dict[int, tuple[int, int]]) -> None:
    """A value that is how often ("daily", "biweekly", "monthly") named by a phrase of frequency."""
    for m in _EVERY.finditer(part):
        word = _ADVERB[m.group("unit").lower()]
        if m.group("other"):
            word = "bi" + word  # every other week / twice a week: the schema's "biweekly" either way
        for i, vw in enumerate(space.words):
            if i not in exact and vw in ((word,), tuple(word.replace("bi", "bi ", 1).split())):
                exact[i] = (m.start(), m.end())


def _calendar_groups(part: str, space: ValueSpace, exact: dict[int, tuple[int, int]]) -> None:
    """A value that is a group of days ("weekends", "weekdays") named by its days: "Saturdays or
    Sundays", "Saturday and Sunday" are the weekend, "Monday to Friday" / "Mon-Fri" the working week.
    (One day alone is that day: a schema with day values reads it by its own word.)"""
    for m in _DAY_GROUP.finditer(part):
        word = "weekend" if m.group("weekend") else "weekday"
        for i, vw in enumerate(space.words):
            if i not in exact and vw == (word,):  # the group itself, not "weekday_evenings"
                exact[i] = (m.start(), m.end())


_DAY_GROUP = re.compile(
    r"\b(?:(?P<weekend>saturdays?\s*(?:,|or|and|&|/)\s*sundays?|sat\s*(?:/|-|and|&)\s*sun"
    r"|sundays?\s*(?:,|or|and|&|/)\s*saturdays?)"
    r"|(?P<weekday>mondays?\s*(?:to|through|thru|till|until|-|–)\s*fridays?|mon\s*(?:-|–|to)\s*fri"
    r"|working days|work days|workdays|business days))\b",
    re.I,
)


@lru_cache(maxsize=65536)
def _base(word: str) -> str:
    """A word without its plural or verb ending, and without a final e ("sharing", "shared", "share"
    -> "shar")."""
    r = root(word)
    return r[:-1] if len(r) > 4 and r.endswith("e") else r


# words after which an -ing word is a verb (`_as_verb`)
_TAKES_A_VERB = frozenset("without before after while upon".split())
# negators and auxiliaries: they say whether, never what, so a span of them names no value by meaning
# ("Don't ever put cash down": "don't ever" is close to no value)
_NO_MEANING = frozenset(
    "not no don't doesn't didn't won't wouldn't can't cannot isn't aren't wasn't weren't shouldn't "
    "mustn't haven't hasn't ever it's that's there's "
    "still even though again actually literally honestly basically maybe probably "
    "ok okay yeah lol ugh how why who whom whose where whatever whichever".split()
)
# values that say there is none: named in their own words or by refusing the argument, never by meaning
_EMPTY_VALUE = frozenset("none no nothing nobody neither any anything".split())
# a claim's score from values in the schema's own words (`_claims`: 1.0 or 0.5, plus at least 1.0)
_OWN_WORDS = 1.5
# words of a value that say how much or whether, not what ("no_bags", "any_seat"): they bind only in
# their place
_NOT_CONTENT = frozenset("no not non none any all only each every extra more less".split())


def _resolve(candidates: list[Claim]) -> list[tuple[str, str, int, int, float]]:
    """One phrase states one argument's value: the best claim first; of two equal claims the longer
    phrase ("early mornings" is early_morning). Of values in the schema's own words, the one that
    covers more of the phrase ("forward the email" is email_forward, not the value email of another
    argument)."""

    def rank(c: Claim) -> tuple:
        own_words = c[0] >= _OWN_WORDS
        return (own_words, c[4] - c[3] if own_words else 0, round(c[0], 6), c[4] - c[3])

    candidates.sort(key=rank, reverse=True)
    taken: list[tuple[int, int]] = []
    out = []
    for score, arg, value, s, e in candidates:
        if any(s < te and ts < e for ts, te in taken):
            continue
        taken.append((s, e))
        out.append((arg, value, s, e, score))
    return out


@lru_cache(maxsize=65536)
def _word_set(words: tuple[str, ...]) -> frozenset[str]:
    """A value's words less its numbers (asked per value of every argument of every clause)."""
    return frozenset(w for w in words if not w.isdigit())


@lru_cache(maxsize=4096)
def _amount(value: str) -> Mention | None:
    """The amount an enumerated value is ("one_hour" -> 1 hour, "forty_five" -> 45), None when the value
    is something else ("gift_card_2222222", "two_doubles", "sev3")."""
    text = value.replace("_", " ").replace("-", " ")
    stated = quantities(text)
    whole = len(stated) == 1 and stated[0].end - stated[0].start >= len(text.strip()) - 1
    if not whole or len(stated[0].value) > 4:
        return None  # the value is not an amount alone (an id, a thing counted)
    return stated[0]


def _sided_by_tool(
    space: ValueSpace,
    schema: Any,
    exact: dict[int, tuple[int, int]],
    owners: dict[str, int],
) -> set[int]:
    """A value several arguments have ("economy": a flight's cabin, a rental car's class), said in
    the schema's own words, is the one argument's whose tool the clause is about: a tool one of whose
    values only it has the clause also names ("Window seat, economy, vegetarian meal": seat and meal
    are the flight's). (Earlier clauses' arguments were tried as evidence too: no better.) Pair
    indices."""

    def tools(arg: str) -> set[str]:
        return {spec.tool for spec in schema.by_name[arg]}

    in_play: set[str] = set()
    for i in exact:
        if owners[space.pairs[i][1]] == 1:
            in_play |= tools(space.pairs[i][0])
    out = set()
    for value in {space.pairs[i][1] for i in exact if owners[space.pairs[i][1]] > 1}:
        hits = [i for i in exact if space.pairs[i][1] == value and tools(space.pairs[i][0]) & in_play]
        if len(hits) == 1:
            out.add(hits[0])
    return out


def _typed_rivals(schema: Any) -> tuple[frozenset[str], tuple[str, ...]]:
    """The units the schema's numeric arguments take ("" for a bare count), and the arguments that
    take a clock time: what an amount or a clock time could fill besides an enumerated value."""
    out, clocks = set(), []
    for specs in schema.by_name.values():
        spec = specs[0]
        if spec.enum:
            continue
        kind = _typed_kind(spec)
        if kind == "number":
            out.add(arg_unit(spec.name, spec.description))
        elif kind == "time":
            clocks.append(spec.name)
    return frozenset(out), tuple(clocks)


def _same_quantity(value: str, said: list[Mention]) -> bool:
    """A value that is an amount ("one_hour", "fifteen_minutes") is meant only where the clause says
    that amount ("72 hours" for three_days); any other value is unconstrained."""
    amount = _amount(value)
    return amount is None or any(same_amount(amount, q) for q in said)
