"""A schema's enumerated values and argument names as vectors, built once per schema: what the offline
reader compares a clause's words with."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from pulse.reading.facts import Schema
from pulse.reading.glosses import expanded_code, gloss_stems
from pulse.reading.lexicon import StaticLexicon, content_words
from pulse.reading.words import TOKEN, stem


@dataclass
class ValueSpace:
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
    # a yes/no setting's own words: its name's words that no tool name and no other argument share
    # ("ticket_insurance" of `buy_tickets` is named by "insurance", not by every "ticket")
    switch_words: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # rows of `pairs` whose value is a code people say in other words (`glosses.py`) -> those words' stems
    glosses: dict[int, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # each argument's own words (every word of its names), and the values named by their words less
    # those: a code ("size_8x10" of `print_size` -> "8x10"), a compound's head ("lunchtime" of
    # `time_of_day` -> "lunch"; never a unit of time, which the compound changes: "weekday" is not "week")
    own_words: dict[str, frozenset[str]] = field(default_factory=dict)
    short_names: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # what else than an enumerated value an amount or a clock time could fill (enumerated.py, set on
    # first use)
    typed_rivals: tuple[frozenset[str], tuple[str, ...]] | None = None
    # the thing each tool acts on (its name's last word, stem-folded: `control_lights` -> "light"), and
    # each argument's own tools' things
    tool_things: frozenset[str] = frozenset()
    arg_things: dict[str, frozenset[str]] = field(default_factory=dict)
    # every word of each argument's values (stem-folded): built once here, read for every clause
    value_words: dict[str, frozenset[str]] = field(default_factory=dict)
    # each argument's rows of `vectors` (in `pair_index` order): built once here, read for every clause
    arg_value_vectors: dict[str, np.ndarray] = field(default_factory=dict)


# words of argument names that say nothing about which argument it is
_GENERIC_ARG_WORDS = frozenset(
    "kind type style level mode option options setting settings choice value name id format method"
    " preference "
    "spot slot class size number count amount rate plan time".split()
    # the particle of a phrasal name ("sign_off", "opt_in"): alone it is in every other sentence
    + "off on up out in over down back away".split()
)


def _arg_phrases(name: str, description: str) -> list[str]:
    head = re.sub(r"\(.*?\)", "", description.lower())
    head_words = [w for w in content_words(head) if len(w) > 2][:3]
    out = [" ".join(content_words(name)) or name.replace("_", " ")]
    if head_words:
        out.append(" ".join(head_words))
    return out


def build_value_space(schema: Schema, lex: StaticLexicon) -> ValueSpace:
    """The value space of `schema` in `lex`'s vectors."""
    pairs, words, vecs = [], [], []
    for arg in schema.by_name:
        own = {stem(w) for w in content_words(arg)}
        for v in schema.values(arg):
            # a code built of abbreviations means what its pieces said in full ("std_dev")
            raw = tuple(TOKEN.findall((expanded_code(v) or v).lower().replace("_", " ").replace("-", " ")))
            # a value's meaning without its argument's own words ("any_seat" of `seat` -> "any")
            # or an id's digits ("gift_card_2222222" -> "gift card")
            meant = (
                tuple(w for w in content_words(v) if stem(w) not in own and not w.isdigit())
                or tuple(w for w in raw if stem(w) not in own)
                or raw
            )
            pairs.append((arg, v))
            words.append(tuple(stem(x) for x in raw))
            vecs.append(lex.phrase(meant))
    args = list(schema.by_name)
    arg_vecs, arg_words = [], {}
    for arg in args:
        spec = schema.by_name[arg][0]
        phrases = _arg_phrases(arg, spec.description)
        arg_vecs.append(lex.phrase(tuple(content_words(" ".join(phrases)))))
        # the argument's name, its description's head, and each distinctive word of its name
        # ("reminder_rhythm" is spoken of as "the reminders")
        singles = tuple((stem(w),) for w in content_words(arg) if w not in _GENERIC_ARG_WORDS and len(w) > 2)
        arg_words[arg] = tuple(
            dict.fromkeys((*(tuple(stem(x) for x in p.split()) for p in phrases if p), *singles))
        )
    space = ValueSpace(
        pairs,
        words,
        np.array(vecs, np.float32).reshape(len(pairs), lex.dim),
        args,
        np.array(arg_vecs, np.float32).reshape(len(args), lex.dim),
        arg_words,
        np.array(
            [lex.phrase(tuple(content_words(t) or [t])) for t in dict.fromkeys(a.tool for a in schema.args)],
            np.float32,
        ).reshape(-1, lex.dim),
        np.array(
            [
                lex.phrase(
                    tuple(
                        content_words(f"{arg} {re.sub(r'[(].*?[)]', '', schema.by_name[arg][0].description)}")
                    )
                )
                for arg in args
            ],
            np.float32,
        ).reshape(len(args), lex.dim),
    )
    space.switch_words = _switch_words(schema, arg_words)
    space.own_words = {a: frozenset(w for name in arg_words[a] for w in name) for a in args}
    for i, (arg, _) in enumerate(pairs):
        short = _short_name(words[i], space.own_words[arg])
        if short:
            space.short_names[i] = short
    space.glosses = {i: g for i, (_, v) in enumerate(pairs) if (g := gloss_stems(v))}
    space.tool_things = frozenset(_thing(a.tool) for a in schema.args)
    space.arg_things = {arg: frozenset(_thing(spec.tool) for spec in schema.by_name[arg]) for arg in args}
    for i, (arg, _) in enumerate(pairs):
        space.pair_index.setdefault(arg, []).append(i)
    for arg in args:
        space.pair_index.setdefault(arg, [])
    space.value_words = {a: frozenset(w for i in space.pair_index[a] for w in words[i]) for a in args}
    space.arg_value_vectors = {a: space.vectors[space.pair_index[a]] for a in args}
    return space


def _thing(tool: str) -> str:
    return stem(tool.replace("-", "_").split("_")[-1].lower())


def _short_name(value_words: tuple[str, ...], own: frozenset[str]) -> tuple[str, ...]:
    """What names a value without its argument's own words: a code left over ("8x10"), or the head of
    a one-word compound with an own word ("lunch" of "lunchtime"); () when nothing distinctive is."""
    if len(value_words) > 1:
        rest = tuple(w for w in value_words if w not in own)
        if 0 < len(rest) < len(value_words) and any(ch.isdigit() for w in rest for ch in w):
            return rest
        return ()
    (word,) = value_words
    head = next((word[: -len(w)] for w in own if len(w) >= 3 and word != w and word.endswith(w)), "")
    if len(head) >= 3 and head not in own and head not in _TIME_UNITS:
        return (head,)
    return ()


_TIME_UNITS = frozenset("hour day night week month year minute second".split())


def _switch_words(schema: Schema, arg_words: dict[str, tuple[tuple[str, ...], ...]]) -> dict:
    """Each boolean argument's naming words less those its tool's name or another argument's name
    also has: a word every call of the tool says cannot be what turns this one setting on."""

    def stems(name: str) -> set[str]:
        return {stem(w) for w in content_words(name)}

    out = {}
    for arg, specs in schema.by_name.items():
        if specs[0].type != "boolean":
            continue
        common = set().union(*(stems(s.tool) for s in specs), *(stems(o) for o in schema.by_name if o != arg))
        out[arg] = tuple(w for w in arg_words[arg] if not (len(w) == 1 and w[0] in common))
    return out
