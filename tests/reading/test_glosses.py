"""Codes of tool schemas said in people's words (`pulse/reading/glosses.py`); sentences written for
these tests."""

from __future__ import annotations

from pulse.reading import Schema, make_reader

READER = make_reader("offline")
SCHEMA = Schema.from_json_tools(
    [
        {
            "name": "pay_abroad",
            "description": "Send a payment abroad.",
            "arguments": {
                "currency": {
                    "type": "string",
                    "enum": ["usd", "cad", "gbp", "chf"],
                    "description": "Currency.",
                },
                "confirm_via": {
                    "type": "string",
                    "enum": ["sms", "push", "email"],
                    "description": "How the payment is confirmed.",
                },
            },
        }
    ]
)


def _read(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, SCHEMA)}


def test_a_currency_code_is_read_by_its_name() -> None:
    assert ("currency", "chf", "prefer") in _read("Pay my Geneva landlord in francs, always.")
    assert ("currency", "gbp", "prefer") in _read("The Leeds invoices get paid in pounds sterling.")


def test_the_longer_name_wins_over_the_word_inside_it() -> None:
    read = _read("Send it in Canadian dollars, please.")
    assert ("currency", "cad", "prefer") in read and ("currency", "usd", "prefer") not in read


def test_a_channel_code_is_read_by_what_people_call_it() -> None:
    assert ("confirm_via", "sms", "prefer") in _read("Confirm payments with a quick text to my phone.")
    assert ("confirm_via", "push", "avoid") in _read("No app notifications for payments, I never see them.")


SETTINGS = Schema.from_json_tools(
    [
        {
            "name": "format_code",
            "description": "Format source files.",
            "arguments": {
                "indent": {
                    "type": "string",
                    "enum": ["two_spaces", "four_spaces", "tabs"],
                    "description": "Indent.",
                },
            },
        },
        {
            "name": "order_prints",
            "description": "Order photo prints.",
            "arguments": {
                "print_size": {
                    "type": "string",
                    "enum": ["size_4x6", "size_5x7", "size_8x10", "square_8x8"],
                    "description": "Print size.",
                },
            },
        },
    ]
)


def _settings(text: str) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, SETTINGS)}


def test_a_small_number_in_figures_names_the_value_spelled_in_words() -> None:
    assert ("indent", "four_spaces", "prefer") in _settings("I indent with 4 spaces, always.")
    assert ("indent", "two_spaces", "prefer") in _settings("Use 2-space indents in my repos.")
    assert not {f for f in _settings("Use 3 spaces.") if f[0] == "indent"}


def test_a_size_said_n_by_m_names_the_code() -> None:
    assert ("print_size", "size_8x10", "prefer") in _settings("Print the family photo 8 by 10, please.")
    assert ("print_size", "square_8x8", "prefer") in _settings("For the gift, a square 8 by 8 print.")
    assert ("print_size", "size_5x7", "avoid") in _settings("Never 5 by 7, it looks tiny in a frame.")
