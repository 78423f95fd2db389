"""The offline reader: deterministic, no network, paraphrase-aware.

A statement is split into sentences and clauses (`clauses.py`: holder, kind, condition, one-off,
withdrawal, revision, negation). Each clause is bound to the schema's value space:

- an enumerated argument's value is found in the clause's words exactly (stem-folded), or by
  meaning: every 1-3-word span of the clause's content words is compared with every value's words
  and every argument's name + description through static MiniLM word vectors (`lexicon.py`); a
  value is taken when its best span is close enough, clearly ahead of the argument's other values,
  and either the clause speaks of the argument or the match is strong on its own;
- a typed argument (number, date, e-mail, domain) is found by its form (`pulse.core.values`), bound
  to the argument of that kind the clause names (or the only one the schema has);
- a clause yields facts only when it states something (a wish, a habit, an attribute, a decision, an
  instruction, a one-off request): questions, hedges and references to memory ("use my usual seat")
  yield none.

Knobs (`OfflineReader(...)`): `min_similarity`, `margin`, `strong_similarity`, `arg_similarity`.
Their defaults and the cues were set while looking at the generated suites' seed statements and at
errors on `eval/reading/data` (a sweep on 5 of its domains): its figures are development figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from pulse.core.values import canonical, find_typed
from pulse.reading.clauses import (
    COND_TRAIL,
    NOT_NAMES,
    Clause,
    analyse,
    is_not_condition,
    speaker_name,
    split_clauses,
    split_sentences,
)
from pulse.reading.facts import ReadFact, Schema
from pulse.reading.lexicon import STOPWORDS, StaticLexicon, content_words, shared_lexicon
from pulse.reading.typed import (
    Mention,
    arg_unit,
    clock_times,
    codes,
    compound_numbers,
    day_parts,
    in_unit,
    notes,
    proper_names,
    quantities,
    same_amount,
    time_zones,
)

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_IMPERATIVE = re.compile(
    r"^(?:(?:please|just|and|also|oh|so|ok|okay|then)[,]?\s+)*(?:book|use|send|make|pay|ship|put|get|choose"
    r"|pick|"
    r"go|set|refund|order|keep|reserve|schedule|format|write|cite|deliver|give|add|include|stick|switch|move|"
    r"file|charge|bill|route|mark|label|save|default|select|opt|do|let|have|arrange|sign|reply|address|"
    r"submit|plot|render|export|run|merge|deploy|push|return|reimburse|tag|assign|apply|turn|leave|skip|drop|"
    r"tell|cap|limit|warn|remind|notify|alert|target|open|dim|bump|lower|raise)\b",
    re.I,
)
_CUE = re.compile(
    r"\b(?:(?:prefer|like|love|want|wish|need|hate|dislike|avoid|insist)(?:s|es|d|ed)?|please|always|never"
    r"|should|must|rather|"
    r"perfect|ideal|best|suits?|works for me|fine by me|good for me|great for me|"
    r"favou?rite|choice|pick|go-to|preference|standing|go for|go with|stick|remember|keep in mind|note|"
    r"from now on|going forward|from here on|future|every time|each time|default|usually|normally|"
    r"typically|tend|habit|end up|often|mostly|i'm|i am|don't|do not|can't|cannot|allergic|"
    r"decided|agreed|settled|decision|let's|lets|approved|this time|for this|just|only|instead|switched|"
    r"moved|changed|no longer|any ?more|is what|should be|has to be|needs to be|works best|suits me|"
    r"is fine|is best|is better|make it|make sure|set it|put it|use|book|send|pay|ship|get|choose|"
    r"refund|order|insist|requires?|go|generally|in general|as always|same as|stands|my)\b|:",
    re.I,
)
# a clause with a subject or a finite verb ("The weather is lovely", "we went to Rome") is a sentence of
# its own; one without either is a fragment that answers for a wish ("Window seat, economy."; "No
# plastic bags, ever."; "Tabs. Not spaces.")
_CLAUSE_VERB = re.compile(
    r"\b(?:i|we|you|he|she|they|it|there|this|that|i'm|i've|i'd|i'll|we're|we've|you're|he's|she's|it's"
    r"|they're|that's|there's|is|are|was|were|am|be|been|being|has|have|had|do|does|did|will|would|can"
    r"|could|may|might|shall|\w+ed)\b",
    re.I,
)
_MEMORY_REFERENCE = re.compile(
    r"\b(?:my usual|the usual|as usual|same as (?:always|before|last time|usual)|as always|as i normally|"
    r"as i usually|like last time|what i (?:always|usually|normally) (?:have|get|use)|"
    r"my (?:normal|regular|standard|default)(?:\s+\w+)?$)\b",
    re.I,
)


def _stem(w: str) -> str:
    """Plural folded: "cities" -> "city", "boxes" -> "box", "notes" -> "note", "maps" -> "map"."""
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


@dataclass
class _Token:
    word: str
    start: int
    end: int


def _tokens(text: str) -> list[_Token]:
    low = text.lower().replace("_", " ")
    return [_Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(low)]


@dataclass
class _ValueSpace:
    """A schema's enumerated values and argument names as vectors (built once per schema)."""

    pairs: list[tuple[str, str]]  # (argument, value)
    words: list[tuple[str, ...]]  # stem-folded words of each value
    vectors: np.ndarray  # one row per pair
    args: list[str]
    arg_vectors: np.ndarray  # argument name (+ description head) per arg
    arg_words: dict[str, tuple[tuple[str, ...], ...]]  # exact names of each argument
    tool_vectors: np.ndarray  # each tool's name (the action it does: "book flight")
    desc_vectors: np.ndarray  # each argument's name + whole description ("... note for the courier")
    pair_index: dict[str, list[int]] = field(default_factory=dict)  # argument -> its rows of `pairs`


# words of argument names that say nothing about which argument it is
_GENERIC_ARG_WORDS = frozenset(
    "kind type style level mode option options setting settings choice value name id format method"
    " preference "
    "spot slot class size number count amount rate plan time".split()
)


def _arg_phrases(name: str, description: str) -> list[str]:
    head = re.sub(r"\(.*?\)", "", description.lower())
    head_words = [w for w in content_words(head) if len(w) > 2][:3]
    out = [" ".join(content_words(name)) or name.replace("_", " ")]
    if head_words:
        out.append(" ".join(head_words))
    return out


@dataclass
class OfflineReader:
    """See the module docstring."""

    min_similarity: float = 0.40  # a value's best span, when the clause speaks of its argument
    margin: float = 0.08  # ahead of the argument's next value by at least this
    strong_similarity: float = 0.95  # enough without the argument named ...
    strong_margin: float = 0.10  # ... when this far ahead
    arg_similarity: float = 0.55  # the clause speaks of the argument (name or description head)
    lexicon: StaticLexicon | None = None
    name: str = "offline"
    _spaces: dict[str, _ValueSpace] = field(default_factory=dict, repr=False)

    @property
    def reader_id(self) -> str:
        return (
            f"offline:v2:{self.min_similarity}/{self.margin}/{self.strong_similarity}/{self.strong_margin}/"
            f"{self.arg_similarity}"
        )

    def _lex(self) -> StaticLexicon:
        if self.lexicon is None:
            self.lexicon = shared_lexicon()
        return self.lexicon

    def _space(self, schema: Schema) -> _ValueSpace:
        key = schema.fingerprint
        space = self._spaces.get(key)
        if space is not None:
            return space
        lex = self._lex()
        pairs, words, vecs = [], [], []
        for arg in schema.by_name:
            own = {_stem(w) for w in content_words(arg)}
            for v in schema.values(arg):
                raw = tuple(_TOKEN.findall(v.lower().replace("_", " ").replace("-", " ")))
                # a value's meaning without its argument's own words ("any_seat" of `seat` -> "any")
                # or an id's digits ("gift_card_2222222" -> "gift card")
                meant = (
                    tuple(w for w in content_words(v) if _stem(w) not in own and not w.isdigit())
                    or tuple(w for w in raw if _stem(w) not in own)
                    or raw
                )
                pairs.append((arg, v))
                words.append(tuple(_stem(x) for x in raw))
                vecs.append(lex.phrase(meant))
        args = list(schema.by_name)
        arg_vecs, arg_words = [], {}
        for arg in args:
            spec = schema.by_name[arg][0]
            phrases = _arg_phrases(arg, spec.description)
            arg_vecs.append(lex.phrase(tuple(content_words(" ".join(phrases)))))
            # the argument's name, its description's head, and each distinctive word of its name
            # ("reminder_rhythm" is spoken of as "the reminders")
            singles = tuple(
                (_stem(w),) for w in content_words(arg) if w not in _GENERIC_ARG_WORDS and len(w) > 2
            )
            arg_words[arg] = tuple(
                dict.fromkeys((*(tuple(_stem(x) for x in p.split()) for p in phrases if p), *singles))
            )
        space = _ValueSpace(
            pairs,
            words,
            np.array(vecs, np.float32).reshape(len(pairs), lex.dim),
            args,
            np.array(arg_vecs, np.float32).reshape(len(args), lex.dim),
            arg_words,
            np.array(
                [
                    lex.phrase(tuple(content_words(t) or [t]))
                    for t in dict.fromkeys(a.tool for a in schema.args)
                ],
                np.float32,
            ).reshape(-1, lex.dim),
            np.array(
                [
                    lex.phrase(
                        tuple(
                            content_words(
                                f"{arg} {re.sub(r'[(].*?[)]', '', schema.by_name[arg][0].description)}"
                            )
                        )
                    )
                    for arg in args
                ],
                np.float32,
            ).reshape(len(args), lex.dim),
        )
        for i, (arg, _) in enumerate(pairs):
            space.pair_index.setdefault(arg, []).append(i)
        for arg in args:
            space.pair_index.setdefault(arg, [])
        self._spaces[key] = space
        return space

    # -- reading ------------------------------------------------------------------------------------
    def read(self, text: str, schema: Schema, speaker: str = "user", project: str = "") -> list[ReadFact]:
        """Facts `text` states about `schema`'s arguments (see the module docstring)."""
        speaker = f"person:{speaker_name(text)}" if speaker_name(text) else speaker
        facts: list[ReadFact] = []
        withdrawn: dict[str, str] = {}
        # arguments an earlier clause of the statement spoke of ("No longer the lunch hour; from
        # here on it is after dinner": the second clause is about the same argument)
        context: set[str] = set()
        for sentence in split_sentences(text):
            context |= self._named_args(sentence, schema)
            previous = None
            for part in split_clauses(sentence):
                clause = analyse(sentence, part, speaker, project)
                if previous is not None and not _CLAUSE_VERB.search(part) and clause.holder == speaker:
                    # "we decided on regular rooms — no suites": a fragment continues the clause before
                    clause = replace(
                        clause, holder=previous.holder, kind=previous.kind, lasting=previous.lasting
                    )
                previous = clause
                if not clause.statement or not _states(part, clause, sentence):
                    continue
                for fact in self._bind(part, clause, schema, frozenset(context), project):
                    context.add(fact.argument)
                    if fact.withdraws:
                        withdrawn[fact.argument] = fact.value
                    facts.append(fact)
        # "I no longer want X; from here on it is Y": Y revises X
        out = []
        for f in facts:
            if (
                not f.withdraws
                and not f.revises
                and f.argument in withdrawn
                and withdrawn[f.argument] != f.value
            ):
                f = replace(f, revises=withdrawn[f.argument])
            out.append(f)
        return _dedupe(out)

    def _bind(
        self,
        part: str,
        clause: Clause,
        schema: Schema,
        context: frozenset[str] = frozenset(),
        project: str = "",
    ) -> list[ReadFact]:
        space = self._space(schema)
        scan = _masked_names(part)  # same length: spans stay the part's
        toks = _tokens(scan)
        found: list[tuple[str, str, int, int, float]] = []  # arg, value, start, end, score
        found.extend(self._typed(scan, toks, schema))
        if space.pairs and toks:
            found.extend(self._enumerated(scan, toks, space, schema, context))
        if not found:
            return []
        if _MEMORY_REFERENCE.search(part) and all(s < 1.0 for *_, s in found):
            return []  # "use my usual seat": a reference to memory, nothing stated
        cond = clause.condition
        cond_span = _span_of(part, cond)
        if cond_span and any(not (cond_span[0] <= st < cond_span[1]) for _, _, st, _, _ in found):
            # "For docs, my preferred format is sheet": a value inside the leading condition says
            # where the statement applies, not what it states
            found = [f for f in found if not (cond_span[0] <= f[2] < cond_span[1])]
        old_span = _span_of(part, clause.old_values_text)
        facts = []
        olds: dict[str, str] = {}
        for arg, value, start, _end, score in found:
            if old_span and old_span[0] <= start < old_span[1] and not clause.withdraws:
                olds[arg] = value  # "rather than X": X is what is replaced, not a new fact
                continue
            if cond and cond.lower() in part.lower():
                c0 = part.lower().index(cond.lower())
                if c0 <= start < c0 + len(cond):
                    cond = ""  # the "condition" was the value's own phrase ("on my Visa")
            negated = any(a <= start < b for a, b in clause.negated_spans)
            if schema.by_name[arg][0].type == "boolean":
                # a yes/no setting carries its refusal in its value; withdrawing it names the setting
                negated, value = False, "true" if clause.withdraws else value
            facts.append(
                ReadFact(
                    argument=arg,
                    value=value,
                    tool=self._tool(arg, part, schema),
                    polarity="avoid" if negated and not clause.withdraws else "prefer",
                    holder=clause.holder
                    if clause.kind != "decision" or clause.holder != "user"
                    else "project:",
                    kind=clause.kind,
                    condition="",
                    lasting=clause.lasting,
                    withdraws=clause.withdraws,
                    quote=part,
                    confidence=round(min(1.0, score), 3),
                )
            )
        if not cond and facts:
            cond = _trailing_condition(part, max(end for _, _, _, end, _ in found))
        if cond and (
            _scope_only(cond, space, self._lex())
            or _names_value(cond, found, part)
            or _names_project(cond, project)
        ):
            cond = ""
        return [
            replace(
                f, condition=cond, revises=olds.get(f.argument, "") if olds.get(f.argument) != f.value else ""
            )
            for f in facts
        ]

    def link_tool(
        self, text: str, schema: Schema, tools=None, min_similarity: float = 0.45, margin: float = 0.05
    ) -> str:
        """The tool whose name and description `text` means ("book the sample pickup" ->
        `schedule_courier` "Schedule a courier to collect a parcel."), "" when none is close enough
        and clearly ahead of the next."""
        lex = self._lex()
        names = [t for t in dict.fromkeys(a.tool for a in schema.args) if tools is None or t in set(tools)]
        words = content_words(text)
        if not names or not words:
            return ""
        desc = {a.tool: a.tool_description for a in schema.args}
        v = lex.phrase(tuple(words))
        scored = sorted(
            ((float(v @ lex.phrase(tuple(content_words(f"{t} {desc.get(t, '')}")))), t) for t in names),
            reverse=True,
        )
        top, second = scored[0][0], (scored[1][0] if len(scored) > 1 else 0.0)
        return scored[0][1] if top >= min_similarity and top - second >= margin else ""

    def spoken_of(self, text: str, schema: Schema, speaker: str = "user", project: str = "") -> list[str]:
        """Arguments a clause of `text` gives a value to ("a car service for the ride", "the section
        should be Climate", "seat: window", "make the portions light"), whether or not the value is
        one the reader can bind; a reference to memory ("my usual seat"), a question or a habit
        gives none. What a request says of the task when its words are not the tools' words."""
        space = self._space(schema)
        out: list[str] = []
        for sentence in split_sentences(text):
            for part in split_clauses(sentence):
                clause = analyse(sentence, part, speaker, project)
                if not clause.statement or clause.kind == "habit" or _REFERS_TO_MEMORY.search(part):
                    continue
                toks = _tokens(part)
                stems = _Stems(_stem(t.word) for t in toks)
                for arg in space.args:
                    own = {w for n in space.arg_words[arg] for w in n}
                    if arg not in out and any(
                        _assigns(toks, i, i + len(words), part, own)
                        for words in space.arg_words[arg]
                        for i in _occurrences(stems, words)
                    ):
                        out.append(arg)
        return out

    def _named_args(self, sentence: str, schema: Schema) -> set[str]:
        space = self._space(schema)
        stems = _Stems(_stem(t.word) for t in _tokens(sentence))
        return {a for a in space.args if any(_has_words(stems, w) for w in space.arg_words[a])}

    def _typed(self, part: str, toks: list[_Token], schema: Schema) -> list[tuple[str, str, int, int, float]]:
        """Values given by their form (`typed.py`), each bound to the argument of its kind that the
        clause's words mean; several of that kind: the closest by meaning, clearly ahead."""
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
                out.extend(self._by_meaning(kind, part, args, schema))
            elif kind == "boolean":
                out.extend(self._switches(part, toks, args, schema))
        return out

    def _arg_closeness(
        self, part: str, span: tuple[int, int], args: list[str], schema: Schema
    ) -> list[float]:
        """How much the clause's words outside `span` speak of each argument: the best 1-3-word
        phrase against the argument's name + description, +1 when it names the argument's words."""
        space = self._space(schema)
        rest = part[: span[0]] + " " + part[span[1] :]
        toks = [t for t in _tokens(rest) if t.word not in STOPWORDS and not t.word.isdigit()]
        stems = _Stems(_stem(t.word) for t in _tokens(rest))
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
            out.append(best + (1.0 if any(_has_words(stems, w) for w in space.arg_words[arg]) else 0.0))
        return out

    def _by_meaning(
        self, kind: str, part: str, args: list[str], schema: Schema
    ) -> list[tuple[str, str, int, int, float]]:
        out = []
        # a clock time's hour is not a quantity ("no calls after five")
        clocks = [(c.start, c.end) for c in clock_times(part)] if kind == "number" else []
        for m in _MENTIONS[kind](part):
            if not m.unit and any(a <= m.start < b for a, b in clocks):
                continue
            fits = []
            for arg in args:
                spec = schema.by_name[arg][0]
                value = in_unit(m, arg_unit(arg, spec.description)) if kind == "number" else m.value
                if value is not None:
                    fits.append((arg, value))
            if not fits:
                continue
            close = self._arg_closeness(part, (m.start, m.end), [a for a, _ in fits], schema)
            ranked = sorted(zip(close, fits), key=lambda c: -c[0])
            top = ranked[0][0]
            second = ranked[1][0] if len(ranked) > 1 else 0.0
            # a unit the argument takes ("minutes") is the argument's own word
            unit_named = (
                kind == "number"
                and bool(m.unit)
                and m.unit == arg_unit(ranked[0][1][0], schema.by_name[ranked[0][1][0]][0].description)
            )
            need = _TYPED_MIN_CLOSENESS.get(kind, self.arg_similarity)
            # a note to pass on or a city's zone is its own evidence when one argument takes it
            own_form = kind in ("note", "zone") and len(ranked) == 1
            if (top >= need or unit_named or own_form) and (top - second >= self.margin or len(ranked) == 1):
                arg, value = ranked[0][1]
                out.append((arg, value, m.start, m.end, 1.0))
        return out

    def _switches(
        self, part: str, toks: list[_Token], args: list[str], schema: Schema
    ) -> list[tuple[str, str, int, int, float]]:
        """A yes/no setting the clause speaks of: "true", or "false" when it refuses it ("skip the
        plastic forks"; a negator before the words that name it)."""
        out = []
        close = self._arg_closeness(part, (0, 0), args, schema)
        for arg, c in zip(args, close):
            if c < _SWITCH_CLOSENESS:
                continue
            refused = _REFUSAL.search(part)
            value = "false" if refused else "true"
            pos = refused.start() if refused else 0
            out.append((arg, value, pos, pos, 1.0))
        return out

    def _enumerated(
        self,
        part: str,
        toks: list[_Token],
        space: _ValueSpace,
        schema: Schema,
        context: frozenset[str] = frozenset(),
    ) -> list[tuple[str, str, int, int, float]]:
        stems = _Stems(_stem(t.word) for t in toks)
        said = quantities(part) + [Mention(0, 0, n) for n in compound_numbers(part)]
        # exact occurrences of a value's words
        exact: dict[int, tuple[int, int]] = {}
        for i, vw in enumerate(space.words):
            n = len(vw)
            if not n:
                continue
            raw = tuple(
                w for w in _TOKEN.findall(space.pairs[i][1].lower().replace("_", " ").replace("-", " "))
            )
            for j in range(len(stems) - n + 1):
                if tuple(stems[j : j + n]) == vw:
                    # a plural of a one-word value ("team" for the value "teams") is a paraphrase
                    if n == 1 and toks[j].word != raw[0] and _stem(toks[j].word) == toks[j].word:
                        continue
                    exact[i] = (toks[j].start, toks[j + n - 1].end)
            if i not in exact and n > 1:
                # the value's words with a small word between them ("beer and wine" is beer_wine)
                pos = [k for k, t in enumerate(toks) if t.word not in STOPWORDS]
                for j in range(len(pos) - n + 1):
                    run = pos[j : j + n]
                    if run[-1] - run[0] <= 2 * n - 2 and tuple(stems[k] for k in run) == vw:
                        exact[i] = (toks[run[0]].start, toks[run[-1]].end)
                        break
        # spans of content words for meaning
        content = [k for k, t in enumerate(toks) if t.word not in STOPWORDS and not t.word.isdigit()]
        spans: list[tuple[int, int]] = []
        for a in range(len(content)):
            for b in range(a, min(a + 3, len(content))):
                if content[b] - content[a] <= 3:
                    spans.append((content[a], content[b]))
        lex = self._lex()
        # each content word against each argument's name (one product per clause)
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
            span_vecs = np.stack(
                [lex.phrase(tuple(toks[k].word for k in content if a <= k <= b)) for a, b in spans]
            )
            arg_sims = span_vecs @ space.arg_vectors.T  # spans × args
        else:
            span_vecs = np.zeros((0, lex.dim), np.float32)
            arg_sims = np.zeros((0, len(space.args)), np.float32)
        arg_mention = {
            a: (float(arg_sims[:, i].max()) if len(spans) else 0.0)
            + (1.0 if any(_has_words(stems, w) for w in space.arg_words[a]) or a in context else 0.0)
            for i, a in enumerate(space.args)
        }
        # a value that is an amount is named by the same amount in other words ("sixty minutes" is
        # full_hour, "72 hours" three_days): the schema's value, as sure as its own words where both
        # give a unit or the clause speaks of the argument
        for i, (arg, value) in enumerate(space.pairs):
            amount = _amount(value)
            if amount is None or i in exact:
                continue
            for q in said:
                if q.end > q.start and same_amount(amount, q) and (
                    (amount.unit and q.unit) or arg_mention[arg] >= self.arg_similarity
                ):
                    exact[i] = (q.start, q.end)
                    break
        self._day_parts(part, space, arg_mention, exact)
        owners: dict[str, int] = {}
        for _, v in space.pairs:
            owners[v] = owners.get(v, 0) + 1
        # positions each argument's full (several-word) name covers: never another argument's value
        covered = {
            other: _covered(stems, space.arg_words[other][0])
            for other in space.args
            if len(space.arg_words[other][0]) > 1
        }
        inside_of = [[t for t in content if a <= t <= b] for a, b in spans]  # content tokens per span
        candidates: list[tuple[float, str, str, int, int]] = []
        for col_arg, arg in enumerate(space.args):
            idx = space.pair_index[arg]
            best: list[tuple[float, int, int, int]] = []  # score, pair index, start, end
            own = {w for n in space.arg_words[arg] for w in n}
            own_toks = {t for t in content if stems[t] in own}
            # words that name this argument by meaning ("food" names `meal`) are not its value
            names_arg = {t for t in content if t not in own_toks and tok_arg[t][col_arg] >= 0.6}
            # another argument's full name ("doc format") is that argument, never this one's value
            named_other = {t for other, ts in covered.items() if other != arg for t in ts}
            # a span's meaning without the argument's own words ("a seat by the corridor" -> "corridor")
            usable, arg_span_vecs = [], []
            for k, inside in enumerate(inside_of):
                if any(t in named_other for t in inside):
                    continue
                kept = [t for t in inside if t not in own_toks and t not in names_arg]
                if not kept:
                    continue  # a span of the argument's own words alone never names a value
                usable.append(k)
                if any(t in names_arg for t in inside):
                    # a word naming the argument by meaning ("food" for `meal`) says nothing of its value
                    arg_span_vecs.append(
                        lex.phrase(tuple(toks[t].word for t in inside if t not in names_arg))
                    )
                else:
                    arg_span_vecs.append(span_vecs[k])
            arg_sims_v = np.stack(arg_span_vecs) @ space.vectors[idx].T if usable else None
            for col, i in enumerate(idx):
                if i not in exact and not _same_quantity(space.pairs[i][1], said):
                    continue  # "half an hour" is not the value one_hour, "every day" not one_day
                if i in exact:
                    shared = owners[space.pairs[i][1]] > 1
                    score = 1.0 if not shared or arg_mention[arg] >= self.arg_similarity else 0.5
                    best.append((score, i, *exact[i]))
                elif arg_sims_v is not None:
                    r = int(np.argmax(arg_sims_v[:, col]))
                    a, b = spans[usable[r]]
                    # a paraphrase never counts as the schema's own words (those score exactly 1.0)
                    score = min(float(arg_sims_v[r, col]), 0.99)
                    if set(stems[a : b + 1]) < {w for w in space.words[i] if not w.isdigit()}:
                        # part of a several-word value ("commit" of merge_commit, "person" of
                        # in_person) is not the value unless the clause speaks of its argument
                        score = min(score, self.strong_similarity - 0.01)
                    best.append((score, i, toks[a].start, toks[b].end))
            if not best:
                continue
            best.sort(reverse=True)
            exact_hits = [b for b in best if b[0] >= 1.0]
            if exact_hits:  # every value the clause names in the schema's own words
                for score, i, s, e in exact_hits:  # the schema's own words outrank any paraphrase
                    candidates.append(
                        (score + 1.0 + 0.1 * min(arg_mention[arg], 1.0), arg, space.pairs[i][1], s, e)
                    )
                continue
            top = best[0]
            second = best[1][0] if len(best) > 1 else 0.0
            lead = top[0] - second
            named = arg_mention[arg] >= self.arg_similarity
            if (named and top[0] >= self.min_similarity and lead >= self.margin) or (
                top[0] >= self.strong_similarity and lead >= self.strong_margin
            ):
                candidates.append(
                    (top[0] + 0.1 * min(arg_mention[arg], 1.0), arg, space.pairs[top[1]][1], top[2], top[3])
                )
        # one phrase states one argument's value: the best-scoring claim on a span wins
        # the best claim first; of two equal claims the longer phrase ("early mornings" is early_morning)
        candidates.sort(key=lambda c: (round(c[0], 6), c[4] - c[3]), reverse=True)
        taken: list[tuple[int, int]] = []
        out = []
        for score, arg, value, s, e in candidates:
            if any(s < te and ts < e for ts, te in taken):
                continue
            taken.append((s, e))
            out.append((arg, value, s, e, score))
        return out

    def _day_parts(
        self, part: str, space: _ValueSpace, arg_mention: dict[str, float], exact: dict[int, tuple[int, int]]
    ) -> None:
        """A clock time names the part of the day it falls in ("after six" is an evening value) for the
        one argument whose values are parts of the day, or the one the clause speaks of."""
        for clock in clock_times(part):
            words = day_parts(clock.value)
            hits: dict[str, int] = {}
            for word in words:
                want = tuple(_stem(w) for w in word.split())
                for arg in space.args:
                    for i in space.pair_index[arg]:
                        vw = space.words[i]
                        if arg not in hits and any(vw[k : k + len(want)] == want for k in range(len(vw))):
                            hits[arg] = i
            if len(hits) > 1:
                hits = {a: i for a, i in hits.items() if arg_mention[a] >= self.arg_similarity}
            if len(hits) == 1:
                (i,) = hits.values()
                exact.setdefault(i, (clock.start, clock.end))

    def _tool(self, arg: str, part: str, schema: Schema) -> str:
        owner = schema.owner(arg)
        if owner:
            return owner
        tools = sorted({a.tool for a in schema.by_name.get(arg, ())})
        low = set(_stem(w) for w in content_words(part))
        hits = [t for t in tools if set(_stem(w) for w in content_words(t)) & low]
        return hits[0] if len(hits) == 1 else ""


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
    "string": lambda part: codes(part) + proper_names(part, NOT_NAMES),
}
# how clearly the clause must speak of the argument for a mention of that kind to fill it (a name
# or a code can be anything: the clause must be about the argument)
_TYPED_MIN_CLOSENESS = {"number": 0.5, "time": 0.45, "zone": 0.3, "note": 0.3, "string": 0.6}
_SWITCH_CLOSENESS = 0.72
_REFUSAL = re.compile(
    r"\b(?:no|not|never|don't|do not|doesn't|skip|without|drop|stop|leave out|leave off|turn off|disable"
    r"|switch off|none of|forget|hold off|no need)\b",
    re.I,
)


# a clause that points at memory rather than stating a value ("my usual seat", "as always")
_REFERS_TO_MEMORY = re.compile(
    r"\bmy (?:usual|normal|regular|standard|default|home|preferred|typical|go-to)\b"
    r"|\bas (?:usual|always|normal|before|last time)\b|\bthe usual\b|\bnormally\b|\busually\b"
    r"|\bas i (?:normally|usually|always)\b",
    re.I,
)
# words that frame a statement ("for this one, go with ... for the seat") and say nothing of a value
_FRAME = frozenset(
    "go want need like love choose pick time one please book sort handle get set should must be would "
    "make keep put also same way".split()
)


# a quoted name of a thing ("prepare a summary 'docs-5-2'") names it; its letters and digits state
# no value (a name with spaces, "'Hi there'", is still read)
_QUOTED_NAME = re.compile(r"(?<![\w])(['\"‘“])([\w.-]*[\d_-][\w.-]*)(['\"’”])")


def _states(part: str, clause: Clause, sentence: str) -> bool:
    """The clause states something: a wish or habit cue in it or in its sentence, an instruction, or a
    verbless fragment (which in a conversation with an assistant answers for a wish)."""
    return bool(
        clause.withdraws
        or _CUE.search(part)
        or _IMPERATIVE.match(clause.text)
        or _CUE.search(sentence)
        or not _CLAUSE_VERB.search(part)
    )


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


def _same_quantity(value: str, said: list[Mention]) -> bool:
    """A value that is an amount ("one_hour", "fifteen_minutes") is meant only where the clause says
    that amount ("72 hours" for three_days); any other value is unconstrained."""
    amount = _amount(value)
    return amount is None or any(same_amount(amount, q) for q in said)


def _masked_names(text: str) -> str:
    return _QUOTED_NAME.sub(lambda m: " " * len(m.group(0)), text)


def _occurrences(stems: list[str], words: tuple[str, ...]) -> list[int]:
    n = len(words)
    return [j for j in range(len(stems) - n + 1) if n and tuple(stems[j : j + n]) == words]


def _assigns(toks: list[_Token], i: int, j: int, part: str, own: set[str]) -> bool:
    """Whether the argument named by tokens [i, j) is given a value in a construction: "X for the
    <arg>", "the <arg> should be X", "<arg>: X", "make the <arg> X" -- with some X besides the
    argument's own words and the statement's frame. ("on the site" is where, not a value.)"""
    rest = [
        t.word
        for k, t in enumerate(toks)
        if not i <= k < j and t.word not in STOPWORDS and t.word not in _FRAME and _stem(t.word) not in own
    ]
    if not rest:
        return False
    before = [t.word for t in toks[max(0, i - 2) : i]]
    after = toks[j].word if j < len(toks) else ""
    if len(before) == 2 and before[0] == "for" and before[1] in ("the", "my", "our", "your"):
        return True
    if after in ("should", "must", "needs", "has", "will", "is", "to"):
        return True
    if part[toks[j - 1].end :].lstrip().startswith((":", "=")):
        return True
    return len(before) == 2 and before[0] in ("make", "set", "keep", "put") and before[1] in ("the", "my")


def _covered(stems: list[str], words: tuple[str, ...]) -> set[int]:
    n = len(words)
    return {j + k for j in range(len(stems) - n + 1) if tuple(stems[j : j + n]) == words for k in range(n)}


class _Stems(list):
    """A clause's stems, with the lookups `_has_words` repeats per argument built once."""

    def __init__(self, stems):
        super().__init__(stems)
        self.set = frozenset(self)
        self.by_prefix: dict[str, list[str]] = {}
        for s in self.set:
            self.by_prefix.setdefault(s[:4], []).append(s)


def _has_words(stems: list[str], words: tuple[str, ...]) -> bool:
    n = len(words)
    if n == 1:  # one word: also its derivations ("spicy" names `spice`, "meetings" names `meeting`)
        w = words[0]
        if isinstance(stems, _Stems):  # two words of one root share at least their first 4 letters
            return w in stems.set or any(_same_root(s, w) for s in stems.by_prefix.get(w[:4], ()))
        return any(_same_root(s, w) for s in stems)
    if not n or (isinstance(stems, _Stems) and not all(w in stems.set for w in words)):
        return False
    return any(tuple(stems[j : j + n]) == words for j in range(len(stems) - n + 1))


def _same_root(a: str, b: str) -> bool:
    if a == b:
        return True
    n = min(len(a), len(b)) - 1
    return n >= 4 and a[:n] == b[:n]


def _named_near(low: str, pos: int, arg: str, schema: Schema) -> bool:
    before = low[max(0, pos - 60) : pos]
    after = low[pos : pos + 40]
    spec = schema.by_name[arg][0]
    names = [arg.replace("_", " "), *content_words(arg)]
    names += [w for w in content_words(re.sub(r"\(.*?\)", "", spec.description.lower()))[:2] if len(w) > 3]
    return any(n and (n in before or n in after) for n in names)


def _trailing_condition(part: str, after: int) -> str:
    m = COND_TRAIL.search(part, after)
    if m is None or is_not_condition(m.group("cond")):
        return ""
    # a reason after it is not part of when it applies ("on Saturdays since I have more time")
    return _REASON.split(m.group("cond"), maxsplit=1)[0].strip()


_REASON = re.compile(r"\s+(?:so|since|because|as|so that|to make sure|which)\s+", re.I)


def _names_project(cond: str, project: str) -> bool:
    """ "For harbor-audit, let's settle ...": the statement's own project is its scope (the memory
    keeps it), not a situation within it."""
    if not project:
        return False
    said = {w for w in content_words(cond) if w not in ("project", "team", "the")}
    return bool(said) and said <= set(content_words(project))


def _names_value(cond: str, found: list[tuple[str, str, int, int, float]], part: str) -> bool:
    """The phrase holds a bound value's own words ("on my Visa"): it is the value, not a condition."""
    c0 = part.lower().find(cond.lower())
    return c0 >= 0 and any(c0 <= s < c0 + len(cond) for _, _, s, _, _ in found)


def _span_of(text: str, sub: str) -> tuple[int, int] | None:
    if not sub:
        return None
    i = text.lower().find(sub.lower())
    return (i, i + len(sub)) if i >= 0 else None


_GENERIC = frozenset(
    "handle handling deal dealing come comes coming book booking bookings choose choosing pick picking sort"
    " set "
    "setting do doing arrange arranging it's about regarding concerned concerns matter question part".split()
)


def _scope_only(cond: str, space: _ValueSpace, lex: StaticLexicon) -> bool:
    """ "For email, ...", "When you handle the seat, ...", "whenever I fly": the phrase names a tool,
    its action or an argument, not a situation."""
    words = [w for w in content_words(re.sub(r"^\w+\s+", "", cond)) if w not in _GENERIC]
    if not words:
        return True
    names = {_root(w) for n in space.arg_words.values() for p in n for w in p}
    if {_root(w) for w in words} <= names:  # "for the posting time" names `post_time`
        return True
    if len(words) > 3:
        return False
    v = lex.phrase(tuple(words))
    sims = sorted((space.arg_vectors @ v).tolist(), reverse=True) if len(space.args) else [0.0]
    # close to one argument's name, or clearly closer to one than to any other ("the posting time")
    near_arg = sims[0] >= 0.6 or (sims[0] >= 0.45 and sims[0] - (sims[1] if len(sims) > 1 else 0.0) >= 0.15)
    if _CLAUSE_VERB.search(cond) and len(words) > 1:
        # a subordinate clause with its own subject or verb ("if it's Friday afternoon") is a situation,
        # even where its words are near an argument's; one verb alone ("whenever I fly") names the
        # tool's action: a scope
        near_arg = False
    near_tool = bool(len(space.tool_vectors)) and float((space.tool_vectors @ v).max()) >= 0.6
    return near_arg or near_tool


def _root(word: str) -> str:
    """A word without its plural or verb ending ("posting" -> "post", "booked" -> "book")."""
    w = _stem(word)
    for end in ("ing", "ed"):
        if len(w) > len(end) + 3 and w.endswith(end):
            return w[: -len(end)]
    return w


def _dedupe(facts: list[ReadFact]) -> list[ReadFact]:
    seen: dict[tuple, ReadFact] = {}
    for f in facts:
        key = (f.argument, f.value, f.polarity, f.holder, f.condition.lower(), f.withdraws)
        if key not in seen:
            seen[key] = f
    return list(seen.values())


__all__ = ["OfflineReader"]
