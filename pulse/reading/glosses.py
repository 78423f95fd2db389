"""Codes that tool schemas use for values and the words people say for them.

A schema's enum often holds a code, not a word: "sms", "push", "usd", "chf". Nobody says "chf"; they
say "francs", "a text", "an app notification". Word vectors cannot bridge a code to its words (the
code's pieces carry no meaning of their own), so the codes in wide use across tool APIs are read here
by the words that mean them, as exactly as the value's own words. The table is about the codes, not
about any suite: it holds ISO 4217 currency names, the message channels every notification API
names this way, and the card networks people name a credit card by ("my Visa", "the Amex"). A value
that is not a code here is read by its own words and by meaning, as before.
"""

from __future__ import annotations

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


def gloss_stems(value: str) -> tuple[tuple[str, ...], ...]:
    """The stem sequences that name `value` when it is a code of the table (else ())."""
    words = _GLOSSES.get(value.strip().lower())
    if not words:
        return ()
    return tuple(tuple(stem(t.word) for t in tokens(w)) for w in words)
