"""When a fact applies (its condition): where a subordinate phrase or a scoping noun phrase begins and
ends, which clause it belongs to, and which phrases only look like conditions. The sentences are
written for these tests."""

from __future__ import annotations

import pytest

from pulse.reading import Schema, make_reader

TOOLS = [
    {
        "name": "book_flight",
        "description": "Book a flight.",
        "arguments": {
            "seat": {
                "type": "string",
                "enum": ["aisle", "window", "middle"],
                "description": "Seat position.",
            },
            "cabin": {
                "type": "string",
                "enum": ["economy", "premium_economy", "business"],
                "description": "Cabin class.",
            },
            "meal": {
                "type": "string",
                "enum": ["standard", "vegetarian", "vegan"],
                "description": "Special meal.",
            },
        },
    },
    {
        "name": "refund_order",
        "description": "Refund an order.",
        "arguments": {
            "payment_method": {"type": "string", "enum": ["credit_card", "gift_card", "paypal"]},
        },
    },
    {
        "name": "submit_expense",
        "description": "Submit an expense claim.",
        "arguments": {
            "category": {
                "type": "string",
                "enum": ["transport", "meals", "lodging"],
                "description": "Expense category.",
            },
        },
    },
]


@pytest.fixture(scope="module")
def read():
    schema = Schema.from_json_tools(TOOLS)
    reader = make_reader("offline")
    return lambda text: {f.value: f for f in reader.read(text, schema)}


# -- a leading subordinate clause ends where the main clause begins --------------------------------------


def test_a_leading_clause_keeps_its_own_subject_and_verb(read):
    # "go" is an instruction verb, but here it is the subordinate clause's own verb
    f = read("When we go abroad I always want an aisle seat.")["aisle"]
    assert f.condition == "When we go abroad"


def test_a_leading_clause_ends_where_it_opens_the_main_clause(read):
    f = read("If the flight is overnight it has to be a window seat.")["window"]
    assert f.condition == "If the flight is overnight"


def test_a_condition_opens_the_complement_of_a_deciding_verb(read):
    f = read("The board agreed that for conference travel we fly economy.")["economy"]
    assert f.condition == "for conference travel"


# -- a noun phrase that narrows the tool's object scopes the rule --------------------------------------


def test_the_subject_of_a_modal_scopes_the_rule(read):
    f = read("Refunds for damaged parcels should go back to PayPal.")["paypal"]
    assert f.condition == "Refunds for damaged parcels"


def test_the_object_of_a_wish_with_its_own_infinitive_scopes_the_rule(read):
    f = read("I want overseas refunds to land on my gift card.")["gift_card"]
    assert f.condition == "overseas refunds"


def test_the_object_of_a_filing_verb_scopes_the_rule(read):
    f = read("Please categorize airport parking as transport.")["transport"]
    assert f.condition == "airport parking"


# -- phrases after the value that belong to another clause or are no situation -----------------------


def test_a_phrase_past_a_comma_in_another_clause_is_not_the_values_condition(read):
    f = read("I want a vegetarian meal, the caterers forgot me on my last trip.")["vegetarian"]
    assert f.condition == ""


def test_a_phrase_inside_a_reason_is_not_the_values_condition(read):
    f = read("Book me a window seat so I can sleep on long flights.")["window"]
    assert f.condition == ""


def test_a_for_phrase_in_a_one_off_request_names_this_task(read):
    f = read("Just this once, refund it to PayPal for the birthday present.")["paypal"]
    assert (f.condition, f.lasting) == ("", False)


def test_a_duration_is_not_a_condition(read):
    f = read("Refund everything to PayPal, my card has been frozen for weeks.")["paypal"]
    assert f.condition == ""


def test_a_recurring_day_after_the_value_is_a_condition(read):
    f = read("I'd like the vegan meal every Friday.")["vegan"]
    assert f.condition == "every Friday"


def test_each_value_keeps_the_condition_that_follows_it(read):
    out = read("A window seat on night flights, an aisle seat on day trips.")
    assert (out["window"].condition, out["aisle"].condition) == ("on night flights", "on day trips")


def test_while_without_a_comma_says_when(read):
    f = read("I want the vegan meal while I'm doing my cleanse.")["vegan"]
    assert f.condition == "while I'm doing my cleanse"


def test_a_time_of_day_after_at_is_a_condition_but_a_place_is_not(read):
    assert read("I'd like a window seat at night.")["window"].condition == "at night"


def test_unless_opens_a_condition_but_the_speakers_say_so_is_none(read):
    assert (
        read("Refund to PayPal unless the order was a gift.")["paypal"].condition
        == "unless the order was a gift"
    )
    assert read("Always refund to my credit card unless I say otherwise.")["credit_card"].condition == ""


def test_before_and_after_open_a_condition_but_not_an_amount_of_times_anchor(read):
    assert read("I'd like a window seat after midnight.")["window"].condition == "after midnight"
    schema = Schema.from_json_tools(
        [
            {
                "name": "set_reminder",
                "description": "Set a reminder.",
                "arguments": {"lead_time": {"type": "string", "enum": ["one_hour", "one_day"]}},
            }
        ]
    )
    (f,) = make_reader("offline").read("Remind me one day before any dentist visit.", schema)
    assert (f.value, f.condition) == ("one_day", "")


def test_a_closing_adverb_is_not_part_of_the_condition(read):
    f = read("Book business on long hauls too.")["business"]
    assert f.condition == "on long hauls"


def test_the_holders_own_doing_is_not_a_condition_of_their_rule(read):
    f = read("My brother Tom always wants the window when he flies.")["window"]
    assert (f.holder, f.condition) == ("person:Tom", "")


def test_a_subject_with_a_relative_clause_scopes_the_rule(read):
    f = read("Refunds that cross a border should go to PayPal.")["paypal"]
    assert f.condition == "Refunds that cross a border"


def test_a_season_after_the_value_is_a_condition(read):
    assert read("I want an aisle seat in winter.")["aisle"].condition == "in winter"


def test_a_short_topic_before_a_comma_scopes_the_clause_but_an_aside_does_not(read):
    assert read("Overnight flights, a window seat is best.")["window"].condition == "Overnight flights"
    assert read("Honestly speaking, a window seat is best.")["window"].condition == ""


def test_the_subject_of_a_plain_need_scopes_the_rule(read):
    f = read("Refunds from overseas shops need PayPal.")["paypal"]
    assert f.condition == "Refunds from overseas shops"


def test_a_value_inside_a_trailing_subordinate_clause_is_part_of_the_situation(read):
    out = read("Refund it to PayPal when the gift card has expired.")
    assert set(out) == {"paypal"} and out["paypal"].condition == "when the gift card has expired"


def test_a_recurring_day_or_a_topic_opens_an_instruction(read):
    assert read("Every Friday, book me the vegan meal.")["vegan"].condition == "Every Friday"
    assert read("Red-eye flights, book me a window seat.")["window"].condition == "Red-eye flights"
