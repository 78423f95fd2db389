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
  yield none;
- refusals are read the right way round: an aversion ("allergic to chicken", "mushrooms make me
  queasy") is an avoid, refusing what an absence value leaves out states it ("I can't eat gluten":
  `gluten_free`, `absence.py`), and a yes/no setting is switched by its own words, not its tool's
  nouns ("six tickets" is not ticket insurance).

Knobs (`OfflineReader(...)`): `min_similarity`, `margin`, `strong_similarity`, `arg_similarity`.
Their defaults and the cues were set while looking at the generated suites' seed statements and at
errors on `eval/reading/data` (a sweep on 5 of its domains): its figures are development figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from pulse.core.conditions import opposite
from pulse.reading.absence import names_head, refused_absences, says_marker
from pulse.reading.clauses import (
    COND_TRAIL,
    ONCE_CLAUSE,
    SUBORDINATOR,
    Clause,
    about_holder,
    analyse,
    has_lasting_cue,
    is_not_condition,
    one_off_alone,
    refused_predicates,
    speaker_name,
    split_clauses,
    split_sentences,
    withdrawn_span,
)
from pulse.reading.enumerated import EnumeratedValues
from pulse.reading.facts import ReadFact, Schema
from pulse.reading.lexicon import STOPWORDS, StaticLexicon, content_words, shared_lexicon
from pulse.reading.typed import arg_unit, clock_times, in_unit, quantities
from pulse.reading.typed_binding import TypedBinding
from pulse.reading.value_space import ValueSpace, build_value_space
from pulse.reading.words import Stems, Token, has_words, normalise, occurrences, root, stem, tokens

_IMPERATIVE = re.compile(
    r"^(?:(?:please|just|and|also|oh|so|ok|okay|then)[,]?\s+)*(?:book|use|send|make|pay|ship|put|get|choose"
    r"|pick|"
    r"go|set|refund|order|keep|reserve|schedule|format|write|cite|deliver|give|add|include|stick|switch|move|"
    r"file|charge|bill|route|mark|label|save|default|select|opt|do|let|have|arrange|sign|reply|address|"
    r"submit|plot|render|export|run|merge|deploy|push|return|reimburse|tag|assign|apply|turn|leave|skip|drop|"
    r"tell|cap|limit|warn|remind|notify|alert|target|open|dim|bump|lower|raise|hand|bring|take|transfer|pull)\b",
    re.I,
)
_CUE = re.compile(
    r"\b(?:(?:prefer|like|love|want|wish|need|hate|dislike|avoid|insist)(?:s|es|d|ed)?|please|always|never"
    r"|should|must|rather|"
    r"perfect|ideal|best|suits?|works for me|fine by me|good for me|great for me|sweet spot|"
    # (what is "rarely worth it" is judged, not wished or refused)
    r"easiest|easier|simplest|most convenient|handiest|(?<!rarely )(?<!seldom )(?<!hardly )worth (?:it|the)|"
    r"favou?rite|choice|pick|go-to|preference|standing|go for|go with|stick|remember|keep in mind|note|"
    r"from now on|going forward|from here on|future|every time|each time|default|usually|normally|"
    r"typically|tend|habit|end up|often|mostly|i'm|i am|don't|do not|can't|cannot|allergic|allergy|allergies|"
    r"intolerant|intolerance|makes me|"
    # a change of mind states the new value ("I used to squash, but these days I rebase")
    r"these days|nowadays|used to|"
    # a standing rule named as such ("The house rule is eco when nobody's home")
    r"rule|policy|"
    r"decided|agreed|settled|decision|let's|lets|approved|this time|for this|just|only|instead|switched|"
    r"moved|changed|gone from|went from|gone back|went back|"
    r"no longer|any ?more|is what|should be|has to be|needs to be|works best|suits me|"
    r"(?:is|'s) fine|(?:is|'s) best|(?:is|'s) better|"
    r"make it|make sure|set it|put it|use|book|send|pay|ship|get|choose|"
    r"refund|order|insist|requires?|go|generally|in general|as always|same as|stands|my|enough|plenty|tops"
    r"|at most|at least|max|maximum|minimum|can be|could be|(?:is|'s) okay|(?:is|'s) ok"
    r"|are fine|are okay|are ok"
    # a choice made: "Bank transfer it is."; the new value of a change of mind: "..., now it's aisle"
    r"|it is(?=\s*[.!]*\s*$)|now it's|now it is)\b|:",
    re.I,
)
# a habit said in the plain present of what people do over and over ("I eat lamb or turkey", "she'll
# eat lamb and that's it", "we fly out of Newark"), its subject leading the clause (not "the routes I
# take"): a standing fact about the person, not a report
_HABITUAL = re.compile(
    r"^\W*(?:[a-z]+,?\s+){0,2}?(?:i|we|she|he|they)(?:'ll| will)?\s+(?:only\s+|just\s+|mainly\s+|still\s+)?"
    r"(?:eat|drink|wear|drive|fly|ride|take|read|watch|listen to|shop|cook|sleep|work|study|train|"
    r"play|buy|stay|travel|run|swim|cycle|bike|walk|write|code|commute|start|finish|stop|leave|"
    r"wake up|get up|go to bed|log off|knock off|clock off)s?\b",
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


@dataclass
class OfflineReader(EnumeratedValues, TypedBinding):
    """See the module docstring."""

    min_similarity: float = 0.40  # a value's best span, when the clause speaks of its argument
    margin: float = 0.08  # ahead of the argument's next value by at least this
    strong_similarity: float = 0.95  # enough without the argument named ...
    strong_margin: float = 0.10  # ... when this far ahead
    arg_similarity: float = 0.55  # the clause speaks of the argument (name or description head)
    lexicon: StaticLexicon | None = None
    name: str = "offline"
    _spaces: dict[str, ValueSpace] = field(default_factory=dict, repr=False)

    @property
    def reader_id(self) -> str:
        return (
            f"offline:v16:{self.min_similarity}/{self.margin}/{self.strong_similarity}/{self.strong_margin}/"
            f"{self.arg_similarity}"
        )

    def _lex(self) -> StaticLexicon:
        if self.lexicon is None:
            self.lexicon = shared_lexicon()
        return self.lexicon

    def _space(self, schema: Schema) -> ValueSpace:
        key = schema.fingerprint
        space = self._spaces.get(key)
        if space is None:
            space = self._spaces[key] = build_value_space(schema, self._lex())
        return space

    # -- reading ------------------------------------------------------------------------------------
    def read(self, text: str, schema: Schema, speaker: str = "user", project: str = "") -> list[ReadFact]:
        """Facts `text` states about `schema`'s arguments (see the module docstring)."""
        text = normalise(text)
        speaker = f"person:{speaker_name(text)}" if speaker_name(text) else speaker
        facts: list[ReadFact] = []
        withdrawn: dict[tuple[str, str], str] = {}  # (argument, holder) -> the value withdrawn
        # arguments an earlier clause of the statement spoke of ("No longer the lunch hour; from
        # here on it is after dinner": the second clause is about the same argument)
        context: set[str] = set()
        clause_of: list[int] = []  # each fact's clause, in reading order
        rejected: list[ReadFact] = []  # values a clause turned down ("X is too much", "no more X")
        n_clause = 0
        last_part = ""
        previous: Clause | None = None
        branch_of = ""  # the condition the last clause's facts were read under ("otherwise" turns it)
        sentences = split_sentences(text)
        for n_sentence, sentence in enumerate(sentences):
            context |= self._named_args(sentence, schema)
            parts = split_clauses(sentence)
            once_after = _one_off_after_dash(sentence, parts, speaker, project)
            # "Heating: eco. Just for tonight though.": a one-off said alone in the next sentence
            once_next = n_sentence + 1 < len(sentences) and one_off_alone(sentences[n_sentence + 1])
            for k, part in enumerate(parts):
                # a later clause with its own verb states something by its own cue ("I'm a morning
                # person -- my brain is mush after lunch": the second clause describes)
                first = k == 0
                clause = analyse(sentence, part, speaker, project)
                if clause.holder.startswith("person:") and self._is_value(clause.holder[7:], schema):
                    # "onto Ruff's formatter": a name that is one of the tools' values is no person
                    clause = replace(clause, holder=speaker)
                if (
                    (k < once_after or once_next)
                    and clause.lasting
                    and clause.kind == "preference"
                    and not has_lasting_cue(part)
                ):
                    # "Move 2,000 into checking — it has to land right away": the one-off after the dash
                    # is said of the request before it
                    clause = replace(clause, kind="requirement", lasting=False)
                clause = _in_turn(clause, part, k, previous, speaker, branch_of)
                previous = clause
                # a short fragment ("Twenty minutes tops.") is about what the clause before it spoke of
                lead_in = last_part if len(tokens(part)) <= _FRAGMENT_WORDS else ""
                last_part = part
                if not clause.statement or not _states(part, clause, sentence if first else part):
                    continue
                n_clause += 1
                turned_down: set[tuple[str, str]] = set()
                bound = self._bind(part, clause, schema, frozenset(context), project, lead_in, turned_down)
                if clause.condition:
                    bound = _set_against(bound, part, clause, facts, clause_of, n_clause, schema)
                branch_of = bound[-1].condition if bound else ""
                for fact in bound:
                    if (fact.argument, fact.value) in turned_down:
                        rejected.append(fact)  # "Weekly is too much for me" (see `_rejected_then_new`)
                    clause_of.append(n_clause)
                    context.add(fact.argument)
                    if fact.withdraws:
                        withdrawn[fact.argument, fact.holder] = fact.value
                    facts.append(fact)
        # quotes and conditions in the person's own characters: a quote must stay a span of what they wrote
        return [
            replace(f, quote=text.back(f.quote), condition=text.back(f.condition))
            for f in _settled(facts, clause_of, rejected, withdrawn)
        ]

    def _bind(
        self,
        part: str,
        clause: Clause,
        schema: Schema,
        context: frozenset[str] = frozenset(),
        project: str = "",
        lead_in: str = "",
        turned_down: set[tuple[str, str]] | None = None,
    ) -> list[ReadFact]:
        """The clause's facts; the (argument, value) pairs it turns down are added to `turned_down`."""
        space = self._space(schema)
        scan = _masked_names(part)  # same length: spans stay the part's
        toks = tokens(scan)
        found = _candidates(self, part, scan, toks, clause, space, schema, context, lead_in)
        if not found:
            return []
        cond = clause.condition
        facts, olds, old_span, cond, found = _facts_of(self, part, clause, schema, found, cond, turned_down)
        if (
            old_span
            and not clause.withdraws
            and facts
            and space.pairs
            and not any(old_span[0] <= s0 < old_span[1] for _a, _v, s0, _e, _s in found)
        ):
            # "moved my alerts from text messages to the app": the old value's words, read on their own
            # where the clause read them as none, for an argument the clause states a new value of
            args = frozenset(f.argument for f in facts) - set(olds)
            old_text = scan[old_span[0] : old_span[1]]
            for arg, value, *_ in self._enumerated(old_text, tokens(old_text), space, schema, args, args):
                olds.setdefault(arg, value)
        if cond and self._not_a_condition(cond, space, found, part, project):
            cond = ""
        if any(f.confidence >= 1.0 for f in facts):
            # "2,200 calories a day", "at 8 in the morning": beside a value said in the tools' own words
            # or form, a faint guess by meaning is those words read a second time, not a second wish
            # (nor a value a condition runs into: "economy for flights under 4 hours")
            facts = [f for f in facts if f.confidence >= _FAINT_BESIDE_EXACT]
            found = [f for f in found if f[4] >= _FAINT_BESIDE_EXACT]
        trailing, inside = (
            ({}, set()) if cond or not facts else _trailing(self, part, clause, space, found, project)
        )
        return [
            replace(
                f,
                condition=cond or trailing.get((f.argument, f.value), ""),
                revises=olds.get(f.argument, "") if olds.get(f.argument) != f.value else "",
            )
            for f in facts
            if (f.argument, f.value) not in inside
        ]

    def _not_a_condition(self, cond: str, space: ValueSpace, found: list, part: str, project: str) -> bool:
        return (
            _scope_only(cond, space, self._lex())
            or _names_value(cond, found, part)
            or _names_project(cond, project)
            or _names_argument_in_project(cond, space, project)
        )

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
                toks = tokens(part)
                stems = Stems(stem(t.word) for t in toks)
                for arg in space.args:
                    own = space.own_words[arg]
                    if arg not in out and any(
                        _assigns(toks, i, i + len(words), part, own)
                        for words in space.arg_words[arg]
                        for i in occurrences(stems, words)
                    ):
                        out.append(arg)
        return out

    def _is_value(self, name: str, schema: Schema) -> bool:
        said = tuple(stem(t.word) for t in tokens(name))
        return bool(said) and said in self._space(schema).words

    def _named_args(self, sentence: str, schema: Schema) -> set[str]:
        space = self._space(schema)
        stems = Stems(stem(t.word) for t in tokens(sentence))
        return {a for a in space.args if any(has_words(stems, w) for w in space.arg_words[a])}

    def _tool(self, arg: str, part: str, schema: Schema) -> str:
        owner = schema.owner(arg)
        if owner:
            return owner
        tools = sorted({a.tool for a in schema.by_name.get(arg, ())})
        low = set(stem(w) for w in content_words(part))
        hits = [t for t in tools if set(stem(w) for w in content_words(t)) & low]
        return hits[0] if len(hits) == 1 else ""


# indifference: "I'm fine with whatever", "I don't mind which", "it doesn't matter", "not fussy" (not
# "I don't mind paying more": willingness, a wish)
_INDIFFERENT = re.compile(
    r"\b(?:(?:i'm|i am|we're|we are)\s+(?:fine|happy|ok|okay|good|easy|flexible)\s+with"
    r"\s+(?:whatever|anything|any)"
    r"|(?:don't|do not)\s+(?:really\s+)?(?:mind|care)\b(?!\s+(?:\w+ing|to|if|when)\b)"
    r"|(?:doesn't|does not|don't|do not)\s+(?:really\s+)?matter|not\s+(?:fussy|picky|particular)"
    r"|whatever(?:'s| is)\s+(?:fine|easiest|available)|anything\s+(?:goes|works))",
    re.I,
)


def _folded(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


_OR_BETWEEN = re.compile(r"\s*(?:,\s*|/\s*)?(?:or\s+|/\s*)(?:the\s+|a\s+|an\s+)?", re.I)
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


# a value as a subject: a determiner before it, a verb after it that takes an object ("the journal
# charges a fortune", "the conference wants EPS", "the new journal runs its own check") or an auxiliary
_DETERMINED = re.compile(r"\b(?:the|a|an|this|that|our|their|his|her|its|your|my)(?:\s+[a-z-]+)?\s+$", re.I)
_ACTS = re.compile(
    r"\s+(?:(?:is|are|was|were|has|have|had|does|did|will|would|can|could|should|must|may|might)\b"
    r"|[a-z]+(?:s|ed)\s+(?:them|it|us|me|him|her|a|an|the|its|their|our|my|your|this|that|these|those)\b"
    # a verb of wanting after the value makes it who wants ("the conference wants EPS figures")
    r"|(?:wants|needs|requires|expects|insists|prefers|demands|asks)\b)",
    re.I,
)
_INTO = re.compile(r"\b(?:to|into|onto|towards?)\s+(?:the\s+|my\s+|our\s+)?$", re.I)
# ("leaves" is left out: "Where to leave the parcel" is where it goes)
_SOURCE = re.compile(r"\b(?:from|origin|withdrawn|debited)\b", re.I)


def _in_turn(
    clause: Clause, part: str, k: int, previous: Clause | None, speaker: str, branch_of: str
) -> Clause:
    """The clause as read after the one before it (`previous`, `k` its index in the sentence)."""
    if branch_of and _OTHERWISE.match(part):
        # "If it's a long flight, business; otherwise economy": the other branch holds where the
        # condition before (`branch_of`, the last clause's facts') does not
        clause = replace(clause, condition=opposite(branch_of))
    # "we decided on regular rooms — no suites", "When I'm travelling, keep calls short. Twenty minutes
    # tops.": a fragment continues the clause before (a short one across a sentence break), its holder,
    # kind and situation
    continues = (
        previous is not None
        and not _CLAUSE_VERB.search(part)
        and (k > 0 or len(tokens(part)) <= _FRAGMENT_WORDS)
    )
    if not continues or previous is None:
        return clause
    if clause.holder == speaker and (k > 0 or not _OWN.search(part)):
        clause = replace(clause, holder=previous.holder, kind=previous.kind, lasting=previous.lasting)
    if not clause.condition and previous.condition:
        clause = replace(clause, condition=previous.condition)
    return clause


def _is_source(arg: str, schema: Schema) -> bool:
    """An argument that says where something comes from ("from_account": "Account the money leaves")."""
    spec = schema.by_name[arg][0]
    return bool(_SOURCE.search(f"{arg.replace('_', ' ')} {spec.description}"))


# a reason or purpose with its own subject, after the clause's wish ("because the ...", "so they ...")
_REASON_CLAUSE = re.compile(
    r"\b(?:because|cause|since|so that|so)\s+(?:i|we|you|they|he|she|it|there|the|my|our|your|their|his|her"
    r"|its|this|that|these|those|people|everyone|nobody|someone)\b",
    re.I,
)


_ONE_NEGATOR = {"nor": "neither"}


def _negated(part: str, start: int, spans: list[tuple[int, int]]) -> bool:
    """Whether a negation governs the value at `start`. Two different negators over it cancel ("never
    substitute without asking first", "don't skip the salad"); one repeated ("no forks and no
    napkins") is one negation."""
    over = [a for a, b in spans if a <= start < b]
    # "neither X nor Y": the pair is one negator
    words = {_ONE_NEGATOR.get(w, w) for w in (part[a:].split(maxsplit=1)[0].lower() for a in over)}
    if len(words) > 1:
        return len(over) % 2 == 1
    return bool(over)


# right after a value: it is kept clear of what the argument books ("early mornings free of calls")
_KEPT_CLEAR = re.compile(r"\s+(?:free|clear)\s+(?:of|from)\b|\s+(?:off[- ]limits|blocked off)\b", re.I)
# an argument whose value is where something is kept out ("Weekday kept free of meetings")
_ABSENCE = re.compile(r"\b(?:free|without|blocked|blackout|excluded?|off[- ]limits|quiet)\b", re.I)


def _keeps_free(arg: str, schema: Schema) -> bool:
    spec = schema.by_name[arg][0]
    return bool(_ABSENCE.search(f"{arg.replace('_', ' ')} {spec.description}"))


# a clause that opens with the other branch of the condition before it
_OTHERWISE = re.compile(
    r"^\W*(?:otherwise|else|or else|if not|other ?times|the rest of the time|any other time)\b", re.I
)
# a clause of at most this many words is a fragment that continues the one before it
_FRAGMENT_WORDS = 5
# below this similarity a value read by meaning does not stand beside one said exactly (`_bind`)
_FAINT_BESIDE_EXACT = 0.6
# a comparison right before a number: "over", "more than", "below" ...
_BOUND_BEFORE = re.compile(
    r"\b(?:over|above|beyond|past|exceed(?:s|ing)?|more than|higher than|greater than|under|below|less than"
    r"|fewer than|lower than|longer than|shorter than|later than|earlier than|bigger than|smaller than)"
    r"\s+[$£€]?$",
    re.I,
)
# a turn from what was to what is: "used to like it medium, *now* I want it hot"
_NOW = re.compile(r"\b(?:now|nowadays|these days|but|instead|from now on|going forward|since then)\b", re.I)


def _withdrawn_then_new_in_clause(
    part: str, found: list[tuple[str, str, int, int, float]]
) -> tuple[list[tuple[str, str, int, int, float]], dict[str, str]]:
    """In a withdrawing clause, an argument's value followed, after a turn to the present ("now",
    "but", "these days"), by another of its values is one revision: the earlier value is what is
    replaced, the later the new wish. `found` is in text order; returns the values kept and, per
    argument, the value replaced."""
    olds: dict[str, str] = {}
    drop: set[int] = set()
    for i, (arg, value, _s, end, _sc) in enumerate(found):
        later = next(
            (j for j in range(i + 1, len(found)) if found[j][0] == arg and found[j][1] != value), None
        )
        if later is not None and arg not in olds and _NOW.search(part, end, found[later][2]):
            olds[arg] = value
            drop.add(i)
    return [f for i, f in enumerate(found) if i not in drop], olds


def _echoes_dropped(facts: list[ReadFact]) -> list[ReadFact]:
    """A value read in the schema's own words is not read again by a paraphrase elsewhere in the
    statement ("always go out in a warm, friendly voice -- even when ..."): the paraphrase is an echo
    of it, whatever kind or polarity its clause gave it (someone else's is their own)."""
    sure = {(f.argument, f.value, f.holder) for f in facts if f.confidence >= 1.0}
    # a paraphrase in a clause with no holder of its own ("the support team agreed on a friendly
    # voice -- even when the customer is rude") echoes the value whoever said it in its own words
    sure_any = {(a, v) for a, v, _ in sure}
    return [
        f
        for f in facts
        if f.confidence >= 1.0
        or (
            (f.argument, f.value, f.holder) not in sure
            and not (f.holder == "user" and (f.argument, f.value) in sure_any)
        )
    ]


def _replaces(new: ReadFact, old: ReadFact) -> bool:
    """`new` states another wanted value of the argument `old` (withdrawn or turned down) was about, for
    the same holder: the two are one revision."""
    return (
        new.argument == old.argument
        and new.holder == old.holder
        and new.value != old.value
        and new.polarity == "prefer"
        and not new.withdraws
    )


def _withdrawn_then_new(facts: list[ReadFact], clause_of: list[int]) -> list[ReadFact]:
    """ "I've stopped using X; send it by Y instead", "I used to ask for X, but these days Y": a
    withdrawal followed in a later clause by another value of the same argument is one revision (Y,
    revising X), not a withdrawal and a new wish."""
    out = list(facts)
    for i, w in enumerate(facts):
        if not w.withdraws or w.polarity != "prefer":
            continue
        j = next(
            (j for j in range(i + 1, len(facts)) if clause_of[j] > clause_of[i] and _replaces(facts[j], w)),
            None,
        )
        if j is not None:
            out[i] = None  # type: ignore[call-overload]
            out[j] = replace(out[j] or facts[j], revises=w.value)
    return [f for f in out if f is not None]


def _one_off_after_dash(sentence: str, parts: list[str], speaker: str, project: str) -> int:
    """The index of the first clause after a dash that asks for this task only ("... — just this
    once", "... — it has to land right away"), 0 when none."""
    at = 0
    for k, part in enumerate(parts[1:], start=1):
        at = sentence.find(part, at)
        if (
            at > 0
            and re.search(r"\s[-—]\s*$", sentence[:at])
            and not analyse(sentence, part, speaker, project).lasting
        ):
            return k
    return 0


def _withdrawn_beside_new(
    part: str, found: list[tuple[str, str, int, int, float]], olds: dict[str, str]
) -> tuple[list[tuple[str, str, int, int, float]], dict[str, str]]:
    """ "Forget daily, weekly from now on", "Make it weekly, not daily anymore": of two values of one
    argument, the one the withdrawal governs is replaced by the one outside it (in either order)."""
    span = withdrawn_span(part)
    if span is None:
        return found, olds
    olds = dict(olds)
    inside = [f for f in found if span[0] <= f[2] < span[1] and f[0] not in olds]
    drop = set()
    for f in inside:
        if any(g[0] == f[0] and g[1] != f[1] and not span[0] <= g[2] < span[1] for g in found):
            olds.setdefault(f[0], f[1])
            drop.add(f)
    return [f for f in found if f not in drop], olds


_REFUSED_BEFORE = re.compile(r"\b(?:rather than|instead of)\s+$", re.I)


# the speaker named in a fragment ("Window for me"): the fragment is the speaker's own
_OWN = re.compile(r"\b(?:me|my|mine|myself)\b", re.I)


def _rejected_then_new(facts: list[ReadFact], rejected: list[ReadFact]) -> list[ReadFact]:
    """ "Weekly is too much for me - I've moved them to once a month", "No more paper, e-mail it": a value
    turned down, then another value of the same argument by the same holder, is one revision (the new
    value revising the old), not an avoid and a wish."""
    out = list(facts)
    for r in rejected:
        i = next((i for i, f in enumerate(out) if f is r), None)
        if i is None:
            continue
        j = next(
            (j for j in range(i + 1, len(out)) if _replaces(out[j], r)),
            None,
        )
        if j is not None:
            out[j] = replace(out[j], revises=out[j].revises or r.value)
            out[i] = None  # type: ignore[call-overload]
            out = [f for f in out if f is not None]
    return out


# what is left of a clause that only refuses what the clause before it asked ("for internal ones, don't")
_ELLIPTIC_REFUSAL = re.compile(
    r"^\W*(?:but\s+|and\s+)?(?:please\s+)?(?:don'?t(?:\s+bother)?|do not(?:\s+bother)?|no need|not needed|"
    r"not necessary|skip it|not there|never)\W*$",
    re.I,
)


def _set_against(
    bound: list[ReadFact],
    part: str,
    clause: Clause,
    facts: list[ReadFact],
    clause_of: list[int],
    n_clause: int,
    schema: Schema,
) -> list[ReadFact]:
    """A clause under its own condition set against the clause before it ("For open-source repos, sign
    off every commit; for internal ones, don't"; "Write formally for funders; for the blog, keep it
    casual"): a bare refusal refuses what the clause before asked, under this clause's condition; and a
    value read by meaning that repeats the one the clause before stated under another condition is the
    other side of the contrast (an antonym sits next to its opposite in word vectors: "casual" reads as
    near "formal"): of a two-value argument, the other value; else nothing."""
    before = [f for f, n in zip(facts, clause_of) if n == n_clause - 1 and f.condition != clause.condition]
    if not before:
        return bound
    rest = part.replace(clause.condition, " ") if clause.condition in part else part
    if not bound and _ELLIPTIC_REFUSAL.match(rest):
        switch = {f.argument: schema.by_name[f.argument][0].type == "boolean" for f in before}
        return [
            replace(
                f,
                value=("false" if f.value == "true" else "true") if switch[f.argument] else f.value,
                polarity=f.polarity if switch[f.argument] else "avoid",
                condition=clause.condition,
                quote=part,
            )
            for f in before
        ]
    if not bound:
        # "on rest days drop my target to 1,800; on training days, bump it to 2,600": one amount said
        # under the new condition is the same argument's
        clocks = clock_times(rest)
        amounts = [q for q in quantities(rest) if not any(c.start <= q.start < c.end for c in clocks)]
        numeric = [
            f for f in before if schema.by_name[f.argument][0].kind == "number" and f.polarity == "prefer"
        ]
        if len(amounts) == 1 and len({f.argument for f in numeric}) == 1:
            f = numeric[0]
            value = in_unit(amounts[0], arg_unit(f.argument, schema.by_name[f.argument][0].description))
            if value is not None and value != f.value:
                return [replace(f, value=value, condition=clause.condition, quote=part, revises="")]
    out = []
    for f in bound:
        repeated = any(b.argument == f.argument and b.value == f.value for b in before)
        if not repeated or f.confidence >= 1.0:
            out.append(f)
            continue
        others = [v for v in schema.values(f.argument) if v != f.value]
        if len(schema.values(f.argument)) == 2 and len(others) == 1:
            out.append(replace(f, value=others[0]))
    return out


def _states(part: str, clause: Clause, sentence: str) -> bool:
    """The clause states something: a wish or habit cue in it or in its sentence, an instruction, or a
    verbless fragment (which in a conversation with an assistant answers for a wish)."""
    return bool(
        clause.withdraws
        or clause.rejected_text  # "Weekly is out, monthly is in"
        # another's practice or decision, read from its verb ("Our design team keeps its albums ...")
        or (clause.holder.split(":")[0] in ("team", "project") and clause.kind in ("decision", "habit"))
        or _CUE.search(part)
        or _HABITUAL.search(part)
        or _IMPERATIVE.match(clause.text)
        or _CUE.search(sentence)
        # a thing ruled out in so many words ("The middle seat is a no", "economy is too cramped")
        or next(refused_predicates(part), None) is not None
        # (the clause without its conditions and its reason: "Same-day delivery when it's groceries",
        # "Window so I can sleep")
        or not _CLAUSE_VERB.search(_REASON.split(_without_trailing_condition(clause.text), maxsplit=1)[0])
        # a refusal in so few words, whatever is said around it ("No evening meetings, I have kids")
        or _NO_FRAGMENT.search(clause.text) is not None
    )


# "no" opening the clause or a comma's stretch of it, before what it refuses (not "no idea", "no need")
_NO_FRAGMENT = re.compile(
    r"(?:^|[,;:]\s*)no\s+(?!(?:idea|one|way|problem|matter|longer|more|worries|rush|need|doubt|thanks)\b)[a-z]",
    re.I,
)


def _without_trailing_condition(text: str) -> str:
    cond = _trailing_condition(text, 0)
    at = text.lower().find(cond.lower()) if cond else -1
    return text[:at] if at > 0 else text


def _masked_names(text: str) -> str:
    return _QUOTED_NAME.sub(lambda m: " " * len(m.group(0)), text)


def _assigns(toks: list[Token], i: int, j: int, part: str, own: set[str]) -> bool:
    """Whether the argument named by tokens [i, j) is given a value in a construction: "X for the
    <arg>", "the <arg> should be X", "<arg>: X", "make the <arg> X" -- with some X besides the
    argument's own words and the statement's frame. ("on the site" is where, not a value.)"""
    rest = [
        t.word
        for k, t in enumerate(toks)
        if not i <= k < j and t.word not in STOPWORDS and t.word not in _FRAME and stem(t.word) not in own
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


def _trailing_condition(part: str, after: int, lasting: bool = True, upto: int | None = None) -> str:
    """The subordinate phrase after the value (before `upto`, the next value) that says when it applies
    ("... business class on flights over nine hours", "... a call, when it's an emergency"), "" when none
    attaches to the value's clause."""
    limit = len(part) if upto is None else upto
    m = COND_TRAIL.search(part, after, limit)
    if m is None:
        return ""
    start, end = m.start(), m.end()
    while end + 1 < limit and part[end] in ",." and part[end - 1].isdigit() and part[end + 1].isdigit():
        end = _NUMBER_TAIL.match(part, end, limit).end()  # type: ignore[union-attr]  # "over $1,000"
    said = part[start:end]
    if is_not_condition(said):
        return ""
    if (
        upto is not None
        and upto < len(part)
        and end >= upto
        and not re.search(r"\s(?:and|or|but|then)\s*$", said)
    ):
        return ""  # the phrase runs into the next value ("for every hire car"): that value's phrase
    gap = part[after:start]
    if re.search(r"[;:]", gap) or ("," in gap and gap.rsplit(",", 1)[-1].strip()):
        # past a comma only a phrase that opens the next part ("..., when it's an emergency", "my
        # manager, lee@x.co, on anything external"); in "a vegetarian meal, the caterers forgot me on my
        # last trip" the phrase is another clause's
        return ""
    if _GAP_CLAUSE.search(gap):
        # inside a reason or a relative clause after the value ("so I can sleep on long flights", "a bag
        # that sits for weeks on the shelf"): that clause's phrase, not the value's
        return ""
    if (
        not gap.strip()
        and re.match(r"(?:before|after|between)\b", said, re.I)
        and re.search(
            r"\b(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?)\s*$", part[:after], re.I
        )
    ):
        return ""  # an amount of time's own anchor ("one day before any visit", "five minutes between talks")
    if re.search(r"\beven\s+$", gap, re.I):
        return ""  # "not even for the board": emphasis that the rule holds everywhere
    if not lasting and said.lower().startswith("for "):
        # in a one-off request a "for" phrase says what this task is for ("a big room for Thursday's
        # workshop"), not where a lasting rule applies
        return ""
    # a reason after it is not part of when it applies ("on Saturdays since I have more time"), nor a
    # conjunction before the next value ("on long flights and ...")
    cond = _REASON.split(said, maxsplit=1)[0].strip()
    # nor a conjunction or an adverb of the whole statement at its end ("on long hauls too")
    return re.sub(
        r"(?:\s+(?:and|or|but|then|anymore|any more|again|too|as well|please|instead))+$",
        "",
        cond,
        flags=re.I,
    )


# a subordinate clause with its own subject and verb ("when the card has expired", "if the fare is over 300")
_NUMBER_TAIL = re.compile(r"[,.]\d[^,;.!?]*")
_CLAUSAL_COND = re.compile(
    rf"(?:only\s+)?(?:when(?:ever)?|if|unless|while|{ONCE_CLAUSE}|as long as)\s+\S+\s+\S+", re.I
)
_REASON = re.compile(r"\s+(?:so|since|because|as|so that|to make sure|which)\s+", re.I)
_GAP_CLAUSE = re.compile(
    r"\b(?:so|since|because|as|that|which|who|whom|whose|where|cause|'cause|otherwise)\b(?!\s*(?:as|well)\b)",
    re.I,
)


def _names_project(cond: str, project: str) -> bool:
    """ "For harbor-audit, let's settle ...": the statement's own project is its scope (the memory
    keeps it), not a situation within it."""
    if not project:
        return False
    said = {w for w in content_words(cond) if w not in ("project", "team", "the")}
    return bool(said) and said <= set(content_words(project))


def _names_argument_in_project(cond: str, space: ValueSpace, project: str) -> bool:
    """ "for the review gate in payments-migration": an argument's own name in the statement's project is
    the statement's scope, not a situation within it."""
    if not project:
        return False
    names = {root(w) for n in space.arg_words.values() for p in n for w in p}
    own = {root(w) for w in content_words(project)}
    said = {root(w) for w in content_words(cond) if w not in ("project", "team")}
    return bool(said & names) and said <= names | own


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
    "setting do doing arrange arranging it's about regarding concerned concerns matter question part"
    # whom a tool acts for, said without narrowing it ("when you email people for me" is every email)
    " people someone somebody folks".split()
)


def _scope_only(cond: str, space: ValueSpace, lex: StaticLexicon) -> bool:
    """ "For email, ...", "When you handle the seat, ...", "whenever I fly": the phrase names a tool,
    its action or an argument, not a situation."""
    # a noun phrase ("vendor payments", `clauses._scope_phrase`) keeps its first word; a subordinate
    # phrase loses its subordinator
    np = not _OPENS_PHRASE.match(cond)
    words = [w for w in content_words(cond if np else re.sub(r"^\w+\s+", "", cond)) if w not in _GENERIC]
    if not words:
        return True
    names = {root(w) for n in space.arg_words.values() for p in n for w in p}
    if {root(w) for w in words} <= names:  # "for the posting time" names `post_time`
        return True
    if _BOUNDED.search(cond):
        return False  # "for flights under 4 hours": a bound narrows the thing to a situation
    if len(words) > 3 or re.match(r"^\w+\s+(?:anything|everything|anyone|anybody)\s+\S", cond, re.I):
        # "on anything with a discount code": a quantifier with its restriction picks out a situation
        return False
    clausal = bool(_CLAUSE_VERB.search(cond))
    if clausal and len(words) > 2:
        # a subordinate clause with its own subject and more than a verb and its object ("when checking
        # runs low") is a situation, even where its words are near an argument's
        return False
    if clausal and any(stem(w) in space.tool_things for w in words):
        # "if it's a long flight": a word beside the tool's own thing that names no argument narrows
        # the thing to a situation (a flight, not every flight)
        others = [w for w in words if stem(w) not in space.tool_things and root(w) not in names]
        if others and len(others) < len(words):
            return False
    v = lex.phrase(tuple(words))
    sims = sorted((space.arg_vectors @ v).tolist(), reverse=True) if len(space.args) else [0.0]
    # close to one argument's name, or clearly closer to one than to any other ("the posting time")
    near_arg = sims[0] >= 0.6 or (sims[0] >= 0.45 and sims[0] - (sims[1] if len(sims) > 1 else 0.0) >= 0.15)
    if clausal and len(words) > 1:
        # a subordinate clause with its own subject or verb ("if it's Friday afternoon") is a situation,
        # even where its words are near an argument's; one verb alone ("whenever I fly") names the
        # tool's action: a scope
        near_arg = False
    tool = float((space.tool_vectors @ v).max()) if len(space.tool_vectors) else 0.0
    # a clause about the tool's action and its object ("whenever you get me a plane ticket") names it
    near_tool = tool >= (0.55 if clausal else 0.6)
    # (a noun with a phrase after it is narrowed by it: "gifts for my nieces", though "gift" is an argument's)
    body = cond if np else re.sub(r"^\w+\s+", "", cond)
    postmodified = bool(re.search(r"\b\w+\s+(?:for|with|from|of|over|under|above|below|by)\s+\w", body, re.I))
    if (
        len(words) > 1
        and (clausal or np or postmodified or not {root(w) for w in words} & names)
        and any(_far(w, space, lex) for w in words)
    ):
        # a word far from every tool and argument narrows the tool's object: "in school newsletters" and
        # "supplier invoices" are situations ("for the cabin class", an argument's own name with another
        # word, stays a scope)
        return False
    if (
        len(words) == 2
        and re.match(r"(?:for|on)\s", cond, re.I)
        and _COMPOUND.fullmatch(body)
        and _narrowed_head(words, names, space)
    ):
        return False
    return near_arg or near_tool


def _narrowed_head(words: list[str], names: set[str], space: ValueSpace) -> bool:
    """ "for release branches", "on weekend flights": the tools' own thing (the phrase's last word) with a
    word before it that is none of the schema's names, things or values narrows the thing to a kind of
    it, a situation."""
    head, mods = words[-1], words[:-1]
    if root(head) not in names and stem(head) not in space.tool_things:
        return False
    values = {w for ws in space.value_words.values() for w in ws}
    return any(
        root(w) not in names and stem(w) not in space.tool_things and stem(w) not in values for w in mods
    )


# a two-word noun compound, nothing else ("release branches", "the weekend flights")
_COMPOUND = re.compile(r"(?:(?:the|all|any|my|our)\s+)?[a-z]+(?:-[a-z]+)?\s+[a-z]+", re.I)
_BOUNDED = re.compile(
    r"\b(?:under|over|above|below|more than|less than|fewer than|longer than|shorter than|at least|at most"
    r"|up to|upwards of)\s+[$£€]?\d",
    re.I,
)
_OPENS_PHRASE = re.compile(rf"{SUBORDINATOR}\b|until\b|till\b|in the\b", re.I)


def _far(word: str, space: ValueSpace, lex: StaticLexicon) -> bool:
    """The word is far from every tool and argument (a modifier that narrows the thing)."""
    v = lex.phrase((word,))
    tool = float((space.tool_vectors @ v).max()) if len(space.tool_vectors) else 0.0
    arg = float((space.arg_vectors @ v).max()) if len(space.args) else 0.0
    return max(tool, arg) < 0.3


def _dedupe(facts: list[ReadFact]) -> list[ReadFact]:
    seen: dict[tuple, ReadFact] = {}
    for f in facts:
        key = (f.argument, f.value, f.polarity, f.holder, f.condition.lower(), f.withdraws)
        if key not in seen:
            seen[key] = f
    return list(seen.values())


__all__ = ["OfflineReader"]


def _settled(
    facts: list[ReadFact],
    clause_of: list[int],
    rejected: list[ReadFact],
    withdrawn: dict[tuple[str, str], str],
) -> list[ReadFact]:
    """The statement's facts once read as a whole: what a later value revises, withdraws or repeats."""
    facts = _withdrawn_then_new(facts, clause_of)
    facts = _rejected_then_new(facts, rejected)
    # "I no longer want X; from here on it is Y": Y revises X
    out = []
    for f in facts:
        if (
            not f.withdraws
            and not f.revises
            and (f.argument, f.holder) in withdrawn
            and withdrawn[f.argument, f.holder] != f.value
        ):
            # (someone else's new value revises nothing of the speaker's)
            f = replace(f, revises=withdrawn[f.argument, f.holder])
        out.append(f)
    # "I used to ask for X, but these days Y" tells what X was, it does not ask to withdraw it: the new
    # value revising X carries the change ("I no longer want X; from now on Y" withdraws X as well)
    revised = {(f.argument, f.revises) for f in out if f.revises and not f.withdraws}
    out = [
        f
        for f in out
        if not (f.withdraws and (f.argument, f.value) in revised and re.search(r"\bused to\b", f.quote, re.I))
    ]
    return _echoes_dropped(_dedupe(out))


def _trailing(
    reader: OfflineReader, part: str, clause: Clause, space: ValueSpace, found: list, project: str
) -> tuple[dict[tuple[str, str], str], set[tuple[str, str]]]:
    """Each value's trailing condition, looked for between it and the next value ("warm light in
    the evenings, daylight during work hours"); values joined without a break share the next one's
    ("business class and a window seat on long flights"). A subordinate clause after a value is its
    condition whole, and a value read inside it is part of the situation, not stated ("refund it to
    PayPal when the gift card has expired"): those are returned apart, to be dropped."""
    spans = sorted((start, end, (arg, value)) for arg, value, start, end, _ in found)
    out: dict[tuple[str, str], str] = {}
    inside: set[tuple[str, str]] = set()
    for _start, end, key in spans:
        if key in inside:
            continue
        cond = _trailing_condition(part, end, clause.lasting)
        c0 = part.find(cond, end) if cond else -1
        later = [k for s0, _, k in spans if cond and c0 <= s0 < c0 + len(cond) and k != key]
        if later and _CLAUSAL_COND.match(cond) and not _scope_only(cond, space, reader._lex()):
            out[key] = cond
            inside.update(later)
    spans = [sp for sp in spans if sp[2] not in inside]
    following = ""
    for i in range(len(spans) - 1, -1, -1):
        start, end, key = spans[i]
        upto = spans[i + 1][0] if i + 1 < len(spans) else len(part)
        upto = max(upto, end)
        cond = _trailing_condition(part, end, clause.lasting, upto)
        if cond and (
            reader._not_a_condition(cond, space, found, part, project)
            or (clause.holder.startswith("person:") and about_holder(cond, clause.holder))
        ):
            cond = ""
        if not cond and following and not re.search(r"[,;:.!?]", part[end:upto]):
            cond = following
        out.setdefault(key, cond)
        following = out[key]
    return out, inside


def _contrasted(
    reader: OfflineReader,
    scan: str,
    clause: Clause,
    space: ValueSpace,
    schema: Schema,
    context: frozenset[str],
    found: list[tuple[str, str, int, int, float]],
) -> list[tuple[str, str, int, int, float]]:
    """ "PDF scans, not phone pictures": a clause that wants one value of an argument and refuses
    another states two values of it, one on each side of its negation, but the clause as a whole
    gives each argument one value (the best). Each side is also read alone (an argument spoken of
    anywhere in the clause counts as spoken of on both): what it gives for an argument that side
    did not already have, on words no value was read from, is added."""
    neg = [(a, b) for a, b in clause.negated_spans if b > a]
    if not neg:
        return []
    inside = "".join(ch if any(a <= i < b for a, b in neg) else " " for i, ch in enumerate(scan))
    outside = "".join(" " if any(a <= i < b for a, b in neg) else ch for i, ch in enumerate(scan))
    if not inside.strip() or not outside.strip():
        return []
    # an argument one of whose values the clause names is spoken of too ("text me ..., I never
    # check my email": email is an alert channel, so is what "text" means)
    ctx = frozenset(context | reader._named_args(scan, schema) | {a for a, *_ in found})
    out = []
    for negated, text in ((True, inside), (False, outside)):
        have = {a for a, _, st, _, _ in found if any(x <= st < y for x, y in neg) == negated}
        # the arguments the clause speaks of by name (a value in the schema's own words was read
        # already; a side adds a paraphrase, which needs its argument spoken of)
        if not ctx - have:
            continue
        for claim in reader._enumerated(text, tokens(text), space, schema, ctx, only=ctx - have):
            arg, _, st, en, _ = claim
            if arg not in have and not any(st < e and s < en for _, _, s, e, _ in found):
                out.append(claim)
    return out


def _candidates(
    reader: OfflineReader,
    part: str,
    scan: str,
    toks: list,
    clause: Clause,
    space: ValueSpace,
    schema: Schema,
    context: frozenset[str],
    lead_in: str,
) -> list[tuple[str, str, int, int, float]]:
    """The values the clause names (argument, value, start, end, score), less those it does not state: a
    reference to memory, a value inside its own leading condition, an actor, a source, a reason."""
    found: list[tuple[str, str, int, int, float]] = []  # arg, value, start, end, score
    found.extend(reader._typed(scan, toks, schema, _masked_names(lead_in)))
    # "at 8 in the morning" bound as a time: its "morning" is the time's own word, not a second value;
    # "an hour" bound as a length: its "hour" is no guess by meaning at an afternoon (a value said in
    # the tools' own words there, "thirty minutes" for a `thirty_minutes` alert, still stands)
    day_parts = [(en, _day_part_after(scan, en)) for _a, _v, _st, en, _s in found]
    typed_spans = [(st, en) for _a, _v, st, en, _s in found if en > st]
    if space.pairs and toks:
        found.extend(
            f
            for f in reader._enumerated(scan, toks, space, schema, context)
            if not any(a <= f[2] and f[3] <= b for a, b in day_parts if b > a)
            and not (f[4] < 1.0 and any(a <= f[2] and f[3] <= b for a, b in typed_spans))
        )
        found.extend(_contrasted(reader, scan, clause, space, schema, context, found))
        said = {(a, v) for a, v, *_ in found}
        absent = refused_absences(scan, space.pairs, clause.negated_spans, found)
        found.extend(f for f in absent if f[:2] not in said)
    if not found:
        return []
    if _MEMORY_REFERENCE.search(part) and all(s < 1.0 for *_, s in found):
        return []  # "use my usual seat": a reference to memory, nothing stated
    found = _not_free_text_of_a_value(found, scan, space)
    cond = clause.condition
    cond_span = _span_of(part, cond)
    if cond_span and space.pairs and all(cond_span[0] <= st < cond_span[1] for _, _, st, _, _ in found):
        # "When the paper goes to a British journal, switch to UK spelling": the condition's words
        # took the value the main clause says in other words; read the clause without them
        rest = scan[: cond_span[0]] + " " * (cond_span[1] - cond_span[0]) + scan[cond_span[1] :]
        again = reader._typed(rest, tokens(rest), schema, _masked_names(lead_in))
        again += reader._enumerated(rest, tokens(rest), space, schema, context)
        found = again or found
    if cond_span and any(not (cond_span[0] <= st < cond_span[1]) for _, _, st, _, _ in found):
        # "For docs, my preferred format is sheet": a value inside the leading condition says
        # where the statement applies, not what it states
        found = [f for f in found if not (cond_span[0] <= f[2] < cond_span[1])]
    # "the journal charges a fortune", "the conference wants EPS figures": a value that is the
    # subject of a verb is who acts, not what is wished (unless it is all the clause names)
    acting = [f for f in found if _ACTS.match(part, f[3]) and _DETERMINED.search(part, 0, f[2])]
    if acting and len(acting) < len(found):
        found = [f for f in found if f not in acting]
    # "move 2,000 from savings into checking": where money or a thing goes to is not the argument
    # it comes from
    found = [f for f in found if not (_INTO.search(part, 0, f[2]) and _is_source(f[0], schema))]
    reason = _REASON_CLAUSE.search(part)
    if reason and reason.start() > 0 and not _CUE.search(part, reason.end()):
        # "... so they stay crisp when the journal scales them", "... because the journal charges
        # for colour": a reason after the wish says why, not what (unless it states a wish itself),
        # also where the wish itself was said in words no value matched
        found = [f for f in found if f[2] < reason.start()]
    # "keep the living room lights at 60": a value naming what qualifies another tool's thing (the lights,
    # not the speaker in the living room) is no value of its own argument
    found = [f for f in found if not _qualifies_other_tool(part, f[0], f[3], space, reader._lex())]
    if _INDIFFERENT.search(part):
        # "I'm fine with whatever time", "not fussy": indifference names no value by meaning (a word
        # near a value is not a wish for it); a value in the tools' own words still stands
        found = [f for f in found if f[4] >= 1.0]
        found = _alternatives_dropped(found, part)
    # one value is read once per clause: where two spans name it ("Don't ever mail me tickets, our
    # mailbox ..."), the closer reading stands
    best: dict[tuple[str, str], tuple[str, str, int, int, float]] = {}
    for f in found:
        if f[:2] not in best or f[4] > best[f[:2]][4]:
            best[f[:2]] = f
    return [f for f in found if best[f[:2]] is f]


def _not_free_text_of_a_value(
    found: list[tuple[str, str, int, int, float]], scan: str, space: ValueSpace
) -> list[tuple[str, str, int, int, float]]:
    """ "refund to PayPal", "remind me five minutes before": words that are another argument's value in
    the tools' own words are that value, not free text of an addressee, an order id or an amount."""
    said = [
        (st, en)
        for a, v, st, en, _sc in found
        if space.pair_index.get(a) and _folded(scan[st:en]) == _folded(v)
    ]
    return [
        f for f in found if space.pair_index.get(f[0]) or not any(st < f[3] and f[2] < en for st, en in said)
    ]


def _alternatives_dropped(
    found: list[tuple[str, str, int, int, float]], part: str
) -> list[tuple[str, str, int, int, float]]:
    """ "Window or aisle, I don't care": in an indifferent clause, values of one argument offered as
    alternatives are none of them wished."""
    alternatives = {
        i
        for i, f in enumerate(found)
        for j, g in enumerate(found)
        if i != j and f[0] == g[0] and _OR_BETWEEN.fullmatch(part, min(f[3], g[3]), max(f[2], g[2]))
    }
    return [f for i, f in enumerate(found) if i not in alternatives]


_DAY_PART_AFTER = re.compile(r"\s*(?:in the|at)\s+(?:morning|afternoon|evening|night)\b", re.I)


def _day_part_after(text: str, end: int) -> int:
    """Where a clock time ends once its part of the day is counted ("8 in the morning")."""
    m = _DAY_PART_AFTER.match(text, end)
    return m.end() if m else end


def _qualifies_other_tool(part: str, arg: str, end: int, space: ValueSpace, lex: StaticLexicon) -> bool:
    """The word right after a value is the thing another tool acts on (the last word of its name:
    `control_lights` -> "lights"), not the thing of the value's own tool or argument."""
    m = _NEXT_WORD.match(part, end)
    if not m:
        return False
    head = stem(m.group(1).lower())
    if head not in space.tool_things or head in space.arg_things[arg]:
        return False
    # "same-day delivery" for a shipping speed: a word that means the argument's own thing is its own
    return float(space.arg_vectors[space.args.index(arg)] @ lex.word_vector(m.group(1).lower())) < 0.4


_NEXT_WORD = re.compile(r"[ -]([A-Za-z]+)\b")


def _refusal_read(
    part: str, arg: str, value: str, start: int, end: int, negated: bool, schema: Schema
) -> bool | None:
    """Whether the value at part[start:end] is refused, once what refusing means for it is read: None
    when the clause names an absence value's thing without refusing it."""
    if names_head(value, part[start:end], arg) and not says_marker(part, start, end):
        # "allergic to nuts": the refused thing states the nut-free value
        return False if negated else None
    if _KEPT_CLEAR.match(part, end) and not _keeps_free(arg, schema):
        # "keep early mornings free of calls": the value is kept clear of what the argument
        # books (for an argument that is itself what is kept free, it is its value)
        negated = not negated
    if negated and _keeps_free(arg, schema) and not _ABSENCE.search(part):
        # "meetings never on Mondays" for a `meeting_free_day` ("Weekday kept free of
        # meetings"): refusing the thing the argument keeps out states its value
        negated = False
    if negated and _BOUND_BEFORE.search(part[:start]) and schema.by_name[arg][0].kind == "number":
        # "don't go over 50", "never less than 3": the refused side of a bound sets the bound
        negated = False
    return negated


def _facts_of(
    reader: OfflineReader,
    part: str,
    clause: Clause,
    schema: Schema,
    found: list[tuple[str, str, int, int, float]],
    cond: str,
    turned_down: set[tuple[str, str]] | None,
) -> tuple[list[ReadFact], dict[str, str], tuple[int, int] | None, str, list]:
    """One fact per value the clause states, with its polarity; the old values it replaces (by argument),
    the span of those old values, the condition (emptied when it was a value's own phrase) and the values
    in the order the clause says them (a withdrawal's old value taken out)."""
    old_span = _span_of(part, clause.old_values_text)
    rejected_span = _span_of(part, clause.rejected_text)
    found.sort(key=lambda f: f[2])  # in the order the clause says them
    olds: dict[str, str] = {}
    if clause.withdraws:
        found, olds = _withdrawn_then_new_in_clause(part, found)
        found, olds = _withdrawn_beside_new(part, found, olds)
    facts = []
    for arg, value, start, _end, score in found:
        withdraws = clause.withdraws and arg not in olds
        in_old = bool(old_span and old_span[0] <= start < old_span[1] and not clause.withdraws)
        paired = in_old and any(
            a == arg and not old_span[0] <= s0 < old_span[1] for a, _v, s0, _e, _s in found
        )
        # "an app notification rather than clogging my inbox with emails", the notification not read as a
        # value: what "rather than" turns down is avoided
        # (only a value said in its own words: a guess by meaning, "economy" for a cabin whose values are
        # coach / premium / business, must not become an avoid of what the user may well want)
        refused = (
            in_old
            and not paired
            and score >= reader.strong_similarity
            and bool(_REFUSED_BEFORE.search(part, 0, old_span[0]))  # type: ignore[index]
        )
        if paired or (in_old and not clause.old_paired and not refused):
            olds[arg] = value  # "rather than X": X is what is replaced, not a new fact
            continue
        if cond and cond.lower() in part.lower():
            c0 = part.lower().index(cond.lower())
            if c0 <= start < c0 + len(cond):
                cond = ""  # the "condition" was the value's own phrase ("on my Visa")
        negated = _negated(part, start, clause.negated_spans) or refused
        rejected = bool(rejected_span and rejected_span[0] <= start < rejected_span[1]) and not withdraws
        if rejected and turned_down is not None:
            turned_down.add((arg, value))
        negated = negated or rejected  # "Weekly is too much for me": turned down
        negated = _refusal_read(part, arg, value, start, _end, negated, schema)
        if negated is None:
            continue  # "I love nuts" says nothing of a nut-free order
        if schema.by_name[arg][0].type == "boolean":
            # a yes/no setting carries its refusal in its value; withdrawing it names the setting
            negated, value = False, "true" if withdraws else value
        facts.append(
            ReadFact(
                argument=arg,
                value=value,
                tool=reader._tool(arg, part, schema),
                polarity="avoid" if negated and not withdraws else "prefer",
                holder=clause.holder if clause.kind != "decision" or clause.holder != "user" else "project:",
                kind=clause.kind,
                condition="",
                lasting=clause.lasting,
                withdraws=withdraws,
                quote=part,
                confidence=round(min(1.0, score), 3),
            )
        )
    return facts, olds, old_span, cond, found
