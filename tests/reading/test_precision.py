"""Precision of the offline reader: words that look like a value but state none (examples written for
these tests, not taken from the annotated set)."""

from __future__ import annotations

from pulse.reading import Schema, make_reader

TOOLS = [
    {
        "name": "pay_invoice",
        "description": "Pay a supplier invoice.",
        "arguments": {
            "account": {
                "type": "string",
                "enum": ["checking", "savings", "corporate"],
                "description": "The account the payment is drawn from.",
            },
            "limit": {"type": "number", "description": "The largest amount paid without review."},
        },
    },
]

SCHEMA = Schema.from_json_tools(TOOLS)
READER = make_reader("offline")


def _values(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, SCHEMA)}


def test_an_ing_value_after_a_verb_taking_preposition_is_a_verb() -> None:
    # "without checking with me" asks to be asked; it says nothing of the checking account
    read = _values("Never pay an invoice above 900 without checking with me.")
    assert not any(a == "account" for a, _, _ in read)
    # the same word as a noun is the value
    assert ("account", "checking", "prefer") in _values("Pay invoices from checking.")
