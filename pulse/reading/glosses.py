"""Codes that tool schemas use for values and the words people say for them.

A schema's enum often holds a code, not a word: "sms", "push", "usd", "chf". Nobody says "chf"; they
say "francs", "a text", "an app notification". Word vectors cannot bridge a code to its words (the
code's pieces carry no meaning of their own), so the codes in wide use across tool APIs are read here
by the words that mean them, as exactly as the value's own words. The table is about the codes, not
about any suite: it holds ISO 4217 currency names, the message channels every notification API
names this way, the card networks people name a credit card by ("my Visa", "the Amex"), and the
abbreviations codes are built from ("std_dev" is a standard deviation). A small number in a value is
also said in its other form ("4 spaces" is `four_spaces`), and a size in a code is said "8 by 10"
(`size_8x10`). A value that is not a code here is read by its own words and by meaning, as before.
"""

from __future__ import annotations

import re

from pulse.reading.words import stem, tokens

_GLOSSES: dict[str, tuple[str, ...]] = {
    # message channels
    "sms": ("text", "texts", "texting", "text message", "sms"),
    "push": ("push notification", "app notification", "phone notification", "pop up notification"),
    # a credit card named by its network (the card networks' own names; a debit card says "debit")
    "credit_card": (
        "credit card",
        "visa",
        "mastercard",
        "master card",
        "amex",
        "american express",
        "diners club",
    ),
    # ISO 4217 currencies people name by their word
    "usd": ("dollar", "us dollar", "buck"),
    "eur": ("euro",),
    "gbp": ("pound", "sterling", "quid"),
    "jpy": ("yen",),
    "chf": ("franc", "swiss franc"),
    "cad": ("canadian dollar",),
    "aud": ("australian dollar",),
    "nzd": ("new zealand dollar",),
    "inr": ("rupee",),
    "cny": ("yuan", "renminbi"),
    "mxn": ("mexican peso",),
    "sek": ("swedish krona",),
    "nok": ("norwegian krone",),
    "dkk": ("danish krone",),
}


# Abbreviations that API codes are built from ("std_dev", "avg_rating", "max_qty"): each piece said in
# full. Only pieces with one reading in tool schemas.
_ABBREVIATIONS: dict[str, str] = {
    "std": "standard",
    "dev": "deviation",
    "err": "error",
    "avg": "average",
    "max": "maximum",
    "pct": "percent",
    "qty": "quantity",
    "msg": "message",
    "addr": "address",
    "approx": "approximate",
    "temp": "temperature",
    "info": "information",
    "img": "image",
    "pic": "picture",
    "pref": "preference",
    "req": "request",
    "resp": "response",
    "acct": "account",
    "dept": "department",
    "mgr": "manager",
    "intl": "international",
    "natl": "national",
    "govt": "government",
    "misc": "miscellaneous",
    "wk": "week",
    "mo": "month",
    "yr": "year",
    "hr": "hour",
}


# pieces with two readings ("min": minimum or minute; "sec": second or security): a code holding one is
# left as it is, whole
_AMBIGUOUS = frozenset({"min", "sec", "ms", "ci", "pr", "ops"})


def expanded_code(value: str) -> str:
    """`value` with its abbreviated pieces said in full ("std_dev" -> "standard deviation"); "" when
    it has none."""
    pieces = [t.word for t in tokens(value.lower().replace("_", " ").replace("-", " "))]
    if not any(w in _ABBREVIATIONS for w in pieces) or any(w in _AMBIGUOUS for w in pieces):
        return ""
    return " ".join(_ABBREVIATIONS.get(w, w) for w in pieces)


# a small number said in figures or in words: "4-space indents" names `four_spaces`, "two monitors"
# names `2_monitors`
_NUMBERS = ("one two three four five six seven eight nine ten eleven twelve").split()
_NUMBER_OF = {w: str(i) for i, w in enumerate(_NUMBERS, 1)} | {str(i): w for i, w in enumerate(_NUMBERS, 1)}


def _other_numeral(value: str) -> str:
    """`value` with its small numbers in the other form ("four_spaces" -> "4 spaces"); "" when it has
    none."""
    pieces = [t.word for t in tokens(value.lower().replace("-", " "))]
    if len(pieces) < 2 or not any(w in _NUMBER_OF for w in pieces):
        return ""  # a number alone is an amount, read by the typed reader
    return " ".join(_NUMBER_OF.get(w, w) for w in pieces)


# a size in a code ("square_8x8", "size_8x10") is said "8 by 8", "8 by 10"
_DIMENSIONS = re.compile(r"^(\d+)x(\d+)$")


def _dimensions_said(value: str) -> tuple[str, ...]:
    """ "8 by 10" for each size piece of `value` ("print_8x10" -> ("8 by 10",))."""
    return tuple(
        f"{m.group(1)} by {m.group(2)}" for t in tokens(value.lower()) if (m := _DIMENSIONS.match(t.word))
    )


def gloss_stems(value: str) -> tuple[tuple[str, ...], ...]:
    """The stem sequences that name `value` when it is a code of the table, is built of abbreviations,
    holds a small number or a size (else ())."""
    words = _GLOSSES.get(value.strip().lower()) or ((full,) if (full := expanded_code(value)) else ())
    words = (*words, numeral) if (numeral := _other_numeral(value)) else words
    words = (*words, *_dimensions_said(value))
    if not words:
        return ()
    return tuple(tuple(stem(t.word) for t in tokens(w)) for w in words)
