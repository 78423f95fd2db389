"""Robustness of a reader to the ways people type: each annotated statement rewritten as people also write
it (all in lower case, "i" for "I", commas for dashes, negations spelled out, curly apostrophes, no final
period), read again, and scored against the same gold facts.

The rewrites keep the meaning, so a reader that reads the original right should read the rewrite right
too. What is reported per rewrite: the statements it changes, and of their gold facts how many the reader
matched before and after (`score.match`: argument, value and polarity), and the facts lost and gained.
A rewrite is a plain function of the text: no reader's rule, vocabulary or parser is used to make it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args

from eval.reading.dataset import Example
from eval.reading.score import match

# contractions written out; the keys folded to lower case ("Don't" keeps its capital)
_CONTRACTIONS = {
    "don't": "do not",
    "doesn't": "does not",
    "didn't": "did not",
    "can't": "cannot",
    "won't": "will not",
    "isn't": "is not",
    "aren't": "are not",
    "i'm": "I am",
    "i'd": "I would",
}
_CONTRACTION = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in _CONTRACTIONS) + r")(?![\w'])", re.I)


def _spell_out(text: str) -> str:
    def full(m: re.Match) -> str:
        said = _CONTRACTIONS[m.group(0).lower()]
        return said[0].upper() + said[1:] if m.group(0)[0].isupper() else said

    return _CONTRACTION.sub(full, text)


Rewrite = Literal[
    "lower_case", "lower_case_i", "no_final_period", "commas_for_dashes", "spelled_out", "curly_apostrophes"
]

REWRITES: dict[str, tuple[str, Callable[[str], str]]] = {
    "lower_case": ("everything in lower case, as in a chat", str.lower),
    "lower_case_i": ('"i" for "I"', lambda t: re.sub(r"\bI\b", "i", t)),
    "no_final_period": ("no final period", lambda t: re.sub(r"[.!]+\s*$", "", t)),
    "commas_for_dashes": ("a comma where a dash was", lambda t: re.sub(r"\s+[-—–]\s+", ", ", t)),
    "spelled_out": ('negations and "I\'m" spelled out ("do not", "I am")', _spell_out),
    "curly_apostrophes": ("curly apostrophes, as phones type them", lambda t: t.replace("'", "\u2019")),
}
assert set(get_args(Rewrite)) == set(REWRITES)  # one list: the config's choices are these rewrites


def robustness(
    reader: Any, examples: Sequence[Example], names: Sequence[str], originals: dict[str, int]
) -> dict[str, dict[str, Any]]:
    """Per rewrite: statements changed, gold facts matched on the originals (`originals`: statement id ->
    facts matched, from the run that scored them) and on the rewrites, facts lost and gained (each
    statement's own difference, so a loss here is not hidden by a gain there)."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        what, rewrite = REWRITES[name]
        changed = before = after = lost = gained = 0
        for e in examples:
            text = rewrite(e.text)
            if text == e.text:
                continue
            n = len(match(e.gold, reader.read(text, e.schema, project=e.project)))
            changed += 1
            before += originals[e.id]
            after += n
            lost += max(0, originals[e.id] - n)
            gained += max(0, n - originals[e.id])
        out[name] = {
            "what": what,
            "statements_changed": changed,
            "facts_matched_before": before,
            "facts_matched_after": after,
            "facts_lost": lost,
            "facts_gained": gained,
        }
    return out


def robustness_table(result: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| rewrite | statements changed | gold facts matched (original -> rewrite) | lost | gained |",
        "|---|---|---|---|---|",
    ]
    for name, r in result.items():
        lines.append(
            f"| {name}: {r['what']} | {r['statements_changed']} | {r['facts_matched_before']} -> "
            f"{r['facts_matched_after']} | {r['facts_lost']} | {r['facts_gained']} |"
        )
    return lines
