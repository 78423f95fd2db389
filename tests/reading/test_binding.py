"""Binding mechanisms of the offline reader: which argument one value goes to when several could hold
it, and how a withdrawal followed by a new value reads (examples written for these tests)."""

from __future__ import annotations

import pytest

from pulse.reading import Schema

TOOLS = [
    {
        "name": "plan_call",
        "description": "Plan a video call.",
        "arguments": {
            "length_minutes": {"type": "integer", "description": "How long the call lasts, in minutes."},
            "alert": {
                "type": "string",
                "enum": ["none", "ten_minutes", "thirty_minutes", "one_day"],
                "description": "When to ping the participants beforehand.",
            },
            "slot": {
                "type": "string",
                "enum": ["morning", "afternoon", "evening"],
                "description": "Part of the day for the call.",
            },
            "platform": {
                "type": "string",
                "enum": ["zoom", "teams", "phone"],
                "description": "Where the call happens.",
            },
        },
    },
    {
        "name": "set_office_hours",
        "description": "Set office hours.",
        "arguments": {
            "opens_at": {"type": "string", "description": "Opening time of the office, HH:MM (24h)."},
        },
    },
]


@pytest.fixture(scope="module")
def schema():
    return Schema.from_json_tools(TOOLS)


def _facts(reader, schema, text):
    return {(f.argument, f.value, f.polarity, f.withdraws, f.revises) for f in reader.read(text, schema)}


def test_amount_goes_to_the_number_the_clause_speaks_of(reader, schema):
    # "thirty minutes" is both an `alert` value and a `length_minutes` number: the clause speaks of
    # how long the call lasts, not of a ping
    got = {(a, v) for a, v, *_ in _facts(reader, schema, "Our calls normally last thirty minutes.")}
    assert ("alert", "thirty_minutes") not in got
    # ... and the enumerated value still binds where the clause speaks of its argument
    got = {(a, v) for a, v, *_ in _facts(reader, schema, "Ping everyone thirty minutes beforehand, please.")}
    assert ("alert", "thirty_minutes") in got


def test_clock_time_goes_to_the_time_argument_the_clause_names(reader, schema):
    got = {(a, v) for a, v, *_ in _facts(reader, schema, "The office opens at 08:15 from now on.")}
    assert ("opens_at", "08:15") in got
    assert not any(a == "slot" for a, _ in got)
    # a clock time with no time argument spoken of still names its part of the day
    got = {(a, v, p) for a, v, p, *_ in _facts(reader, schema, "Never any calls after six, please.")}
    assert ("slot", "evening", "avoid") in got


def test_withdrawal_then_new_value_in_later_clause_is_one_revision(reader, schema):
    got = _facts(reader, schema, "I've stopped taking calls on Teams; put them on Zoom instead.")
    assert ("platform", "zoom", "prefer", False, "teams") in got
    assert not any(v == "teams" for _, v, *_ in got)


def test_withdrawal_then_new_value_in_same_clause_is_one_revision(reader, schema):
    got = _facts(reader, schema, "I used to want the phone, now I want zoom.")
    assert got == {("platform", "zoom", "prefer", False, "phone")}
    # a plain withdrawal stays a withdrawal
    got = _facts(reader, schema, "I no longer want calls on the phone.")
    assert ("platform", "phone", "prefer", True, "") in got


SHOP = [
    {
        "name": "buy_ticket",
        "description": "Buy a concert ticket.",
        "arguments": {
            "ticket_budget": {"type": "integer", "description": "Highest ticket price in US dollars."},
            "companions": {"type": "integer", "description": "Friends who can come along."},
        },
    },
    {
        "name": "order_groceries",
        "description": "Order groceries for delivery.",
        "arguments": {
            "grocery_cap": {"type": "integer", "description": "Highest basket total in US dollars."},
        },
    },
]


@pytest.fixture(scope="module")
def shop():
    return Schema.from_json_tools(SHOP)


INBOX = [
    {
        "name": "show_inbox",
        "description": "Show the inbox.",
        "arguments": {
            "preview_lines": {"type": "integer", "description": "Lines shown in each message preview."}
        },
    }
]
FERRY_AND_BIKE = [
    {
        "name": "book_ferry",
        "description": "Book a ferry crossing.",
        "arguments": {"price_cap": {"type": "integer", "description": "Highest price in US dollars."}},
    },
    {
        "name": "rent_bike",
        "description": "Rent a bicycle.",
        "arguments": {"spend_cap": {"type": "integer", "description": "Highest spend in US dollars."}},
    },
]


def test_a_bare_number_counting_things_is_not_an_hour(reader):
    # "after five lines" counts lines; "after five" alone would be a clock time
    facts = reader.read("Always cut the preview after five lines.", Schema.from_json_tools(INBOX))
    assert [(f.argument, f.value) for f in facts] == [("preview_lines", "5")]


def test_the_tool_the_clause_names_picks_between_arguments_of_different_tools(reader):
    schema = Schema.from_json_tools(FERRY_AND_BIKE)
    got = [
        (f.argument, f.value) for f in reader.read("I never pay more than 60 dollars for a ferry.", schema)
    ]
    assert got == [("price_cap", "60")]
    got = [(f.argument, f.value) for f in reader.read("Sixty dollars at most for a bicycle.", schema)]
    assert got == [("spend_cap", "60")]


def test_a_refused_side_of_a_bound_states_the_bound(reader, shop):
    facts = reader.read("Don't ever go above 90 dollars for a concert ticket.", shop)
    assert [(f.argument, f.value, f.polarity) for f in facts] == [("ticket_budget", "90", "prefer")]


TABLE = [
    {
        "name": "book_table",
        "description": "Book a restaurant table.",
        "arguments": {
            "party_size": {"type": "integer", "description": "People at the table."},
            "spend_limit": {"type": "integer", "description": "Highest total spend in US dollars."},
        },
    }
]


def test_a_number_said_as_a_bound_goes_to_an_argument_that_is_one(reader):
    facts = reader.read("For dinners out, ninety tops.", Schema.from_json_tools(TABLE))
    assert [(f.argument, f.value) for f in facts] == [("spend_limit", "90")]


def test_a_code_is_one_value_not_also_its_capitalised_part(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "log_hours",
                "description": "Log working hours.",
                "arguments": {"project_code": {"type": "string", "description": "Project code to book to."}},
            }
        ]
    )
    facts = reader.read("Book my hours to the project code OPS-318 from now on.", schema)
    assert [(f.argument, f.value) for f in facts] == [("project_code", "OPS-318")]


def test_a_wanted_and_a_refused_value_of_one_argument_in_one_clause(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "print_document",
                "description": "Print a document.",
                "arguments": {
                    "paper": {
                        "type": "string",
                        "enum": ["plain", "glossy", "recycled"],
                        "description": "Paper stock to print on.",
                    }
                },
            }
        ]
    )
    facts = reader.read("Use recycled paper, not the gloss.", schema)
    got = {(f.argument, f.value, f.polarity) for f in facts}
    assert got == {("paper", "recycled", "prefer"), ("paper", "glossy", "avoid")}


def test_a_two_word_value_in_the_other_order_or_another_form(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "share_file",
                "description": "Share a file.",
                "arguments": {
                    "delivery": {
                        "type": "string",
                        "enum": ["link_share", "attach_copy", "no_share"],
                        "description": "How the file reaches people.",
                    },
                    "notify": {"type": "string", "enum": ["link", "none"], "description": "How to tell."},
                },
            }
        ]
    )
    facts = reader.read("I always prefer sharing the link for big files.", schema)
    assert [(f.argument, f.value) for f in facts] == [("delivery", "link_share")]
    # a word that says whether ("no") binds only in its place
    facts = reader.read("No big shares, please.", schema)
    assert ("delivery", "no_share") not in {(f.argument, f.value) for f in facts}


WORKOUT = [
    {
        "name": "plan_session",
        "description": "Plan a gym session.",
        "arguments": {
            "warmup_minutes": {"type": "integer", "description": "Minutes of warm-up before lifting."},
            "rest_minutes": {"type": "integer", "description": "Minutes of rest between sets."},
            "music": {
                "type": "string",
                "enum": ["none", "rock", "classical"],
                "description": "Music played during the session.",
            },
        },
    }
]


def test_a_short_fragment_takes_its_topic_from_the_clause_before(reader):
    schema = Schema.from_json_tools(WORKOUT)
    facts = reader.read("Don't rush the rest between sets. Three minutes tops.", schema)
    assert ("rest_minutes", "3") in {(f.argument, f.value) for f in facts}


def test_saying_an_amount_is_enough_states_it(reader):
    schema = Schema.from_json_tools(WORKOUT)
    facts = reader.read("For the warm-up before lifting, ten minutes is plenty.", schema)
    assert ("warmup_minutes", "10") in {(f.argument, f.value) for f in facts}


def test_the_value_none_is_never_a_paraphrase(reader):
    schema = Schema.from_json_tools(WORKOUT)
    # "zero" is nearest "none" by meaning: that says no other value is meant, and none is not a
    # value to paraphrase either
    facts = reader.read("Play music with zero lyrics.", schema)
    assert not [f for f in facts if f.argument == "music"]


PHOTOS = [
    {
        "name": "export_photos",
        "description": "Export photos.",
        "arguments": {
            "add_watermark": {"type": "boolean", "description": "Stamp a watermark on each photo."},
            "file_type": {"type": "string", "enum": ["jpeg", "png", "raw"], "description": "File type."},
            "destination": {
                "type": "string",
                "enum": ["laptop", "cloud", "printer"],
                "description": "Where the export goes.",
            },
        },
    }
]


def test_a_refusal_counts_only_over_the_words_it_governs(reader):
    schema = Schema.from_json_tools(PHOTOS)
    facts = reader.read("Always stamp a watermark on my photos, no excuses.", schema)
    assert ("add_watermark", "true") in {(f.argument, f.value) for f in facts}
    facts = reader.read("Please don't stamp a watermark on my photos.", schema)
    assert ("add_watermark", "false") in {(f.argument, f.value) for f in facts}


def test_a_value_in_a_reason_after_the_wish_is_not_stated(reader):
    schema = Schema.from_json_tools(PHOTOS)
    facts = reader.read("Export them as png files because the printer chokes on the others.", schema)
    assert {(f.argument, f.value) for f in facts} == {("file_type", "png")}


ALERTS = [
    {
        "name": "set_alert",
        "description": "Set a price alert.",
        "arguments": {
            "via": {"type": "string", "enum": ["email", "sms", "push"], "description": "How it arrives."},
        },
    },
    {
        "name": "plan_week",
        "description": "Plan the working week.",
        "arguments": {
            "focus_day": {
                "type": "string",
                "enum": ["monday", "wednesday", "friday"],
                "description": "Day kept free of calls.",
            },
        },
    },
]


def test_naming_one_value_of_an_argument_speaks_of_it_for_the_contrast(reader):
    schema = Schema.from_json_tools(ALERTS)
    facts = reader.read("Text me about price drops, I never open my email.", schema)
    got = {(f.argument, f.value, f.polarity) for f in facts}
    assert got == {("via", "sms", "prefer"), ("via", "email", "avoid")}


def test_refusing_what_an_argument_keeps_out_states_its_value(reader):
    schema = Schema.from_json_tools(ALERTS)
    facts = reader.read("Please never put calls on a Friday.", schema)
    assert [(f.argument, f.value, f.polarity) for f in facts] == [("focus_day", "friday", "prefer")]


def test_a_city_names_a_time_zone_only_where_the_clause_speaks_of_time(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "send_note",
                "description": "Send a note.",
                "arguments": {
                    "lang": {"type": "string", "enum": ["english", "portuguese"], "description": "Language."},
                    "timezone": {"type": "string", "description": "IANA time-zone name."},
                },
            }
        ]
    )
    facts = reader.read("Notes to the Lisbon team should be in Portuguese.", schema)
    assert {(f.argument, f.value) for f in facts} == {("lang", "portuguese")}


TRIP = [
    {
        "name": "book_train",
        "description": "Book a train.",
        "arguments": {
            "carriage": {"type": "string", "enum": ["quiet", "standard"], "description": "Carriage."},
            "berth": {"type": "string", "enum": ["upper", "lower"], "description": "Sleeper berth."},
        },
    },
    {
        "name": "book_bus",
        "description": "Book a coach bus.",
        "arguments": {"zone": {"type": "string", "enum": ["quiet", "front"], "description": "Bus zone."}},
    },
]


def test_a_shared_value_goes_to_the_tool_the_clause_names_other_values_of(reader):
    schema = Schema.from_json_tools(TRIP)
    facts = reader.read("Lower berth, quiet, the usual sleeper.", schema)
    assert {(f.argument, f.value) for f in facts} == {("berth", "lower"), ("carriage", "quiet")}
    # no other value to side with: a value two arguments have stays unbound
    facts = reader.read("Quiet, please.", schema)
    assert not facts


def test_a_verbless_wish_with_a_trailing_condition_states_it(reader):
    facts = reader.read("Upper berth when it's an overnight ride.", Schema.from_json_tools(TRIP))
    assert [(f.argument, f.value) for f in facts] == [("berth", "upper")]


def test_saying_what_something_can_be_states_it(reader):
    facts = reader.read("The short hops can be in the lower berth.", Schema.from_json_tools(TRIP))
    assert [(f.argument, f.value) for f in facts] == [("berth", "lower")]


def test_a_setting_after_a_leading_condition_leaves_the_condition_s_number_alone(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "ship_parcel",
                "description": "Ship a parcel.",
                "arguments": {
                    "insured": {"type": "boolean", "description": "Insure the parcel."},
                    "declared_value": {"type": "integer", "description": "Declared value in US dollars."},
                },
            }
        ]
    )
    facts = reader.read("If a parcel is worth over 300 dollars, it should be insured.", schema)
    assert [(f.argument, f.value) for f in facts] == [("insured", "true")]


def test_a_number_set_against_the_one_before_is_the_same_argument(reader):
    schema = Schema.from_json_tools(WORKOUT)
    facts = reader.read("Warm up before lifting for 12 minutes, not 20.", schema)
    got = {(f.argument, f.value, f.polarity) for f in facts}
    assert got == {("warmup_minutes", "12", "prefer"), ("warmup_minutes", "20", "avoid")}


def test_a_value_kept_free_of_what_the_tool_books_is_avoided(reader):
    schema = Schema.from_json_tools([TOOLS[0], ALERTS[1]])
    got = {
        (f.argument, f.value, f.polarity)
        for f in reader.read("Keep my evenings free of calls, always.", schema)
    }
    assert ("slot", "evening", "avoid") in got
    got = {(f.argument, f.value, f.polarity) for f in reader.read("I like Fridays free of calls.", schema)}
    assert ("focus_day", "friday", "prefer") in got


def test_a_value_that_is_the_subject_of_a_verb_is_not_the_wish(reader):
    schema = Schema.from_json_tools(PHOTOS)
    facts = reader.read("Export raw files for me, the printer wants them anyway.", schema)
    assert {(f.argument, f.value) for f in facts} == {("file_type", "raw")}
    # alone in its clause, a value before a verb is still read
    facts = reader.read("The cloud is where exports go.", schema)
    assert ("destination", "cloud") in {(f.argument, f.value) for f in facts}


def test_two_different_negations_over_a_value_cancel(reader):
    schema = Schema.from_json_tools(PHOTOS)
    facts = reader.read("Never export anything without png files.", schema)
    assert ("file_type", "png", "prefer") in {(f.argument, f.value, f.polarity) for f in facts}
    # one negator repeated is one negation
    facts = reader.read("No raw files and no png files, please.", schema)
    got = {(f.argument, f.value, f.polarity) for f in facts}
    assert ("file_type", "png", "avoid") in got


def test_how_often_said_in_words_names_a_frequency_value(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "water_plants",
                "description": "Schedule plant watering.",
                "arguments": {
                    "cadence": {
                        "type": "string",
                        "enum": ["daily", "biweekly", "monthly"],
                        "description": "Cadence.",
                    }
                },
            }
        ]
    )
    got = {(f.argument, f.value) for f in reader.read("Water the ferns every other week, please.", schema)}
    assert got == {("cadence", "biweekly")}
    got = {(f.argument, f.value) for f in reader.read("I usually water the cactus once a month.", schema)}
    assert got == {("cadence", "monthly")}


def test_where_something_goes_is_not_the_argument_it_comes_from(reader):
    schema = Schema.from_json_tools(
        [
            {
                "name": "move_stock",
                "description": "Move stock between stores.",
                "arguments": {
                    "from_store": {
                        "type": "string",
                        "enum": ["warehouse", "downtown", "airport"],
                        "description": "Store the stock leaves.",
                    }
                },
            }
        ]
    )
    facts = reader.read("Always move the boxes from the warehouse into downtown.", schema)
    assert [(f.argument, f.value) for f in facts] == [("from_store", "warehouse")]


def test_a_paraphrase_echoing_a_value_already_read_is_not_read_again(reader):
    schema = Schema.from_json_tools(TOOLS)
    facts = reader.read("Calls go on the phone, please, never by telephone when it is a client, ugh.", schema)
    assert [(f.argument, f.value, f.polarity) for f in facts] == [("platform", "phone", "prefer")]


def test_where_a_thing_is_left_is_not_where_it_comes_from(reader):
    # where a thing is left ("Where to leave the bag") is where it goes, not where it comes from
    schema = Schema.from_json_tools(
        [
            {
                "name": "deliver_bag",
                "description": "Deliver a bag.",
                "arguments": {
                    "drop": {
                        "type": "string",
                        "enum": ["porch", "garage"],
                        "description": "Where to leave the bag.",
                    }
                },
            }
        ]
    )
    facts = reader.read("Always bring it right to the porch.", schema)
    assert [(f.argument, f.value) for f in facts] == [("drop", "porch")]


def test_someone_else_s_new_value_does_not_revise_my_withdrawal(reader, schema):
    facts = reader.read("I no longer want calls on the phone; my colleague Dana prefers zoom.", schema)
    got = {(f.value, f.holder, f.withdraws, f.revises) for f in facts}
    assert ("phone", "user", True, "") in got
    assert ("zoom", "person:Dana", False, "") in got
