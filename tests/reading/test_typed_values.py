"""Values people give by their form: quantities in words and units, clock times, yes/no settings,
codes, notes and time zones, each bound to the argument its surrounding words mean."""

from __future__ import annotations

import pytest

from pulse.reading import Schema, make_reader
from pulse.reading.typed import Mention, arg_unit, clock_times, in_unit, quantities

TOOLS = [
    {
        "name": "schedule_meeting",
        "description": "Schedule a meeting.",
        "arguments": {
            "duration_minutes": {"type": "integer", "description": "Length of the meeting in minutes."},
            "buffer_minutes": {"type": "integer", "description": "Free minutes to keep after the meeting."},
            "volume_percent": {"type": "integer", "description": "Speaker volume, 0-100."},
        },
    },
    {
        "name": "set_hours",
        "description": "Set working hours.",
        "arguments": {
            "start_time": {"type": "string", "description": "Start of the working day, HH:MM (24h)."},
            "end_time": {"type": "string", "description": "End of the working day, HH:MM (24h)."},
            "timezone": {"type": "string", "description": "IANA time-zone name."},
        },
    },
    {
        "name": "order_food",
        "description": "Order food for delivery.",
        "arguments": {
            "cutlery": {"type": "boolean", "description": "Include disposable cutlery and napkins."},
            "instructions": {"type": "string", "description": "Free-text note for the courier."},
            "cost_center": {"type": "string", "description": "Cost-center code to charge."},
        },
    },
]


@pytest.fixture(scope="module")
def read():
    reader, schema = make_reader("offline"), Schema.from_json_tools(TOOLS)
    return lambda text: {(f.argument, f.value, f.polarity) for f in reader.read(text, schema)}


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("half an hour", "30", "minute"),
        ("a 15-minute slot", "15", "minute"),
        ("move 2,000 over", "2000", ""),
        ("forty-five minutes", "45", "minute"),
        ("a fifth of the bill", "20", "percent"),
        ("80% of it", "80", "percent"),
        ("20 bucks", "20", "money"),
    ],
)
def test_quantities_in_words_and_units(text, value, unit):
    assert (quantities(text)[0].value, quantities(text)[0].unit) == (value, unit)


@pytest.mark.parametrize("text", ["one-line commands", "the (2019) after the names", "a two-column layout"])
def test_not_quantities(text):
    assert quantities(text) == []


@pytest.mark.parametrize(
    "text, hhmm",
    [
        ("I stop at half past five", "17:30"),
        ("from 9pm", "21:00"),
        ("at 8 in the morning", "08:00"),
        ("starts at 07:30", "07:30"),
        ("around noon", "12:00"),
        ("no calls after five", "17:00"),
    ],
)
def test_clock_times(text, hhmm):
    assert [m.value for m in clock_times(text)] == [hhmm]


def test_units_convert_or_clash():
    assert arg_unit("duration_minutes", "Length in minutes.") == "minute"
    assert arg_unit("volume_percent", "Volume, 0-100.") == "percent"
    assert in_unit(Mention(0, 1, "1", "hour"), "minute") == "60"
    assert in_unit(Mention(0, 1, "10", "minute"), "percent") is None
    assert in_unit(Mention(0, 1, "10", "minute"), "") is None  # a unit the argument never names
    assert in_unit(Mention(0, 1, "10", ""), "percent") == "10"  # a bare number fits any


@pytest.mark.parametrize(
    "text, fact",
    [
        ("Keep my meetings to half an hour, max.", ("duration_minutes", "30", "prefer")),
        ("Keep the music low, like a quarter of max volume.", ("volume_percent", "25", "prefer")),
        ("My working day starts at 07:30.", ("start_time", "07:30", "prefer")),
        ("Skip the cutlery, I eat at home.", ("cutlery", "false", "prefer")),
        ("Always include cutlery and napkins.", ("cutlery", "true", "prefer")),
        ("Always tell the courier to use the side gate.", ("instructions", "use the side gate", "prefer")),
        ("Finance decided the cost center is ENG-204.", ("cost_center", "ENG-204", "prefer")),
        ("I'm based in Singapore, so use my local time zone.", ("timezone", "Asia/Singapore", "prefer")),
    ],
)
def test_bound_to_the_argument_meant(read, text, fact):
    if fact[0] == "timezone" and not _has_zone_database():
        pytest.skip("no IANA time-zone database on this system (zoneinfo; pip install tzdata)")
    assert fact in read(text)


def _has_zone_database() -> bool:
    from zoneinfo import available_timezones

    return bool(available_timezones())


def test_a_clock_hour_is_not_a_quantity(read):
    assert not any(arg.endswith("minutes") for arg, _, _ in read("No calls after five, please."))


def test_revised_time_keeps_the_old_value():
    reader, schema = make_reader("offline"), Schema.from_json_tools(TOOLS)
    facts = reader.read("I've moved my start from nine to eight.", schema)
    assert [(f.argument, f.value, f.revises) for f in facts] == [("start_time", "08:00", "09:00")]


HOTEL = Schema.from_json_tools(
    [
        {
            "name": "book_hotel",
            "description": "Book a hotel room.",
            "arguments": {
                "nights": {"type": "integer", "description": "Number of nights."},
                "max_price_per_night": {
                    "type": "integer",
                    "description": "Highest price per night in euros.",
                },
                "cleaning": {
                    "type": "string",
                    "enum": ["daily", "weekly", "none"],
                    "description": "How often the room is cleaned.",
                },
            },
        }
    ]
)


def test_an_amount_for_each_thing_is_its_price_not_their_count():
    reader = make_reader("offline")
    for text in ("Never more than 150 a night.", "The price can be 150 per night at most."):
        (f,) = reader.read(text, HOTEL)
        assert (f.argument, f.value) == ("max_price_per_night", "150"), text
    # the first of two amounts said for each thing is its old value
    (f,) = reader.read("I've changed my max from 200 to 140 a night.", HOTEL)
    assert (f.argument, f.value, f.revises) == ("max_price_per_night", "140", "200")


def test_every_single_day_is_daily():
    (f,) = make_reader("offline").read("I want the room done every single day of the stay.", HOTEL)
    assert (f.argument, f.value) == ("cleaning", "daily")


def test_sentences_typed_in_lower_case_are_read_one_by_one(read):
    # a chat in lower case: "... calls. ten minutes ..." is two sentences (v9 read one, and lost the gap)
    text = "give me a little breathing room between back-to-back meetings. ten minutes is enough."
    assert ("buffer_minutes", "10", "prefer") in read(text)
    # ... and an abbreviation's period is not a sentence's end
    from pulse.reading.clauses import split_sentences

    assert split_sentences("call me at 7 a.m. on weekdays, e.g. before the standup. ok?") == [
        "call me at 7 a.m. on weekdays, e.g. before the standup.",
        "ok?",
    ]
