"""Forms the offline reader v7 reads (sentences written for these tests, not taken from the annotated
sets): habits in the plain present, codes built of abbreviations, an opinion named by who holds it,
a clause set against the one before under its own condition (a bare refusal, an antonym, a second
amount), a faint guess beside an exact value, a clock time's own part of the day, a span of time said
as a gap between things, and a clock time said as when something ends or starts."""

from __future__ import annotations

from pulse.reading import Schema, make_reader
from pulse.reading.glosses import expanded_code

READER = make_reader("offline")

LAB = Schema.from_json_tools(
    [
        {
            "name": "make_chart",
            "description": "Draw a results chart.",
            "arguments": {
                "spread": {
                    "type": "string",
                    "enum": ["none", "std_dev", "std_error", "min_max"],
                    "description": "What the whiskers show.",
                },
                "register": {
                    "type": "string",
                    "enum": ["formal", "plain"],
                    "description": "Register of captions.",
                },
                "watermark": {"type": "boolean", "description": "Stamp the lab's logo on the chart."},
            },
        },
        {
            "name": "order_meals",
            "description": "Order the team's meals.",
            "arguments": {
                "filling": {
                    "type": "string",
                    "enum": ["tofu", "chicken", "beef"],
                    "description": "Main filling.",
                },
                "kcal_target": {"type": "integer", "description": "Energy target per day in kcal."},
                "deliver_at": {"type": "string", "description": "Delivery time, HH:MM (24h)."},
                "meal_slot": {
                    "type": "string",
                    "enum": ["morning", "lunchtime", "evening"],
                    "description": "Part of the day.",
                },
            },
        },
        {
            "name": "plan_shifts",
            "description": "Plan the week's shifts.",
            "arguments": {
                "shift_minutes": {"type": "integer", "description": "Length of a shift in minutes."},
                "rest_minutes": {"type": "integer", "description": "Free minutes kept after a shift."},
                "shift_start": {"type": "string", "description": "Start of the shift, HH:MM (24h)."},
                "shift_end": {"type": "string", "description": "End of the shift, HH:MM (24h)."},
            },
        },
    ]
)


def _read(text: str) -> set[tuple[str, str, str, str]]:
    return {(f.argument, f.value, f.polarity, f.holder) for f in READER.read(text, LAB)}


def test_a_habit_in_the_plain_present_is_read_but_not_a_relative_clause():
    got = _read("We eat tofu or chicken, nothing else.")
    assert {("filling", "tofu", "prefer", "user"), ("filling", "chicken", "prefer", "user")} <= got
    assert ("filling", "beef", "prefer", "user") in _read("I cook beef most weeks.")
    # "the meals I cook" is no habit of its own: nothing stated
    assert _read("Beef is rarely on the meals I cook.") == set()


def test_a_code_built_of_abbreviations_is_read_in_full_words():
    assert expanded_code("std_dev") == "standard deviation"
    assert expanded_code("min_max") == ""  # "min" has two readings: left as it is
    assert ("spread", "std_dev", "prefer", "user") in _read("Whiskers should show the standard deviation.")


def test_an_opinion_is_held_by_who_thinks_it():
    got = _read("Dana thinks the whiskers should show the standard deviation.")
    assert ("spread", "std_dev", "prefer", "person:Dana") in got
    assert not any(h == "user" for *_, h in got)


def test_a_bare_refusal_under_its_own_condition_refuses_what_the_clause_before_asked():
    got = {
        (f.argument, f.value, f.polarity, f.condition)
        for f in READER.read(
            "For the grant report, stamp the lab's logo on the chart; for slides, don't.", LAB
        )
    }
    assert ("watermark", "true", "prefer", "For the grant report") in got
    assert ("watermark", "false", "prefer", "for slides") in got


def test_an_antonym_under_another_condition_is_the_other_value_of_a_two_value_argument():
    got = {
        (f.argument, f.value, f.condition)
        for f in READER.read(
            "For the journal, keep captions formal; for the newsletter, keep them casual.", LAB
        )
    }
    assert ("register", "formal", "For the journal") in got
    # "casual" sits next to "formal" in word vectors; set against it, it is the other value
    assert ("register", "plain", "for the newsletter") in got
    assert ("register", "formal", "for the newsletter") not in got


def test_a_second_amount_under_its_own_condition_is_the_same_arguments():
    got = {
        (f.argument, f.value, f.condition)
        for f in READER.read(
            "On office days set my kcal target to 1,900; on weekends, raise it to 2,300.", LAB
        )
    }
    assert ("kcal_target", "1900", "On office days") in got
    assert ("kcal_target", "2300", "on weekends") in got


def test_a_faint_guess_beside_an_exact_value_and_a_clocks_part_of_the_day_are_dropped():
    got = _read("Deliver at 7 in the morning.")
    assert ("deliver_at", "07:00", "prefer", "user") in got
    assert not any(a == "meal_slot" for a, *_ in got)
    got = _read("Keep me at 2,100 kcal a day.")
    assert ("kcal_target", "2100", "prefer", "user") in got
    assert not any(a == "meal_slot" for a, *_ in got)


def test_a_span_of_time_between_things_is_a_gap_not_a_length():
    assert ("rest_minutes", "20", "prefer", "user") in _read("Leave twenty minutes between shifts.")
    got = _read("Give me some breathing room between them. Twenty minutes is enough.")
    assert ("rest_minutes", "20", "prefer", "user") in got
    # a span said as how long a thing lasts stays a length
    assert ("shift_minutes", "20", "prefer", "user") in _read("Shifts should last 20 minutes.")


def test_a_clock_time_said_as_an_end_or_a_start():
    assert ("shift_end", "18:30", "prefer", "user") in _read("I knock off at half past six.")
    assert ("shift_start", "07:45", "prefer", "user") in _read("We kick off at 7:45.")


HOME = Schema.from_json_tools(
    [
        {
            "name": "play_radio",
            "description": "Play the radio in a room.",
            "arguments": {
                "room": {"type": "string", "enum": ["study", "garage", "porch"], "description": "Which room."}
            },
        },
        {
            "name": "dim_lamps",
            "description": "Dim the lamps.",
            "arguments": {"level_percent": {"type": "integer", "description": "Lamp level in percent."}},
        },
    ]
)


def test_a_value_qualifying_another_tools_thing_is_not_its_arguments():
    got = {(f.argument, f.value) for f in READER.read("I like the study lamps at 35 percent.", HOME)}
    assert ("level_percent", "35") in got and not any(a == "room" for a, _ in got)
    got = {(f.argument, f.value) for f in READER.read("Play the radio in the study.", HOME)}
    assert ("room", "study") in got


def test_an_hour_and_a_half_and_an_age_are_read_as_they_are_meant():
    from pulse.reading.typed import quantities

    assert [(q.value, q.unit) for q in quantities("an hour and a half, maybe")] == [("90", "minute")]
    # how old someone is is no amount of anything a tool books
    assert [(q.value, q.unit) for q in quantities("Book it, she's 11.")] == [("11", "age")]
    assert [(q.value, q.unit) for q in quantities("a 7 year old boy")] == [("7", "age")]
    got = _read("Shifts of an hour and a half, please; my daughter is 12.")
    assert ("shift_minutes", "90", "prefer", "user") in got
    assert not any(v == "12" for _a, v, *_ in got)


WALKS = Schema.from_json_tools(
    [
        {
            "name": "book_groomer",
            "description": "Book a grooming visit.",
            "arguments": {
                "slot": {
                    "type": "string",
                    "enum": ["morning", "afternoon", "evening"],
                    "description": "Preferred time window.",
                },
            },
        },
        {
            "name": "book_walker",
            "description": "Book a dog walker.",
            "arguments": {
                "walk_minutes": {"type": "integer", "description": "Length of each walk in minutes."}
            },
        },
    ]
)


def test_the_words_of_a_length_are_no_guess_at_a_part_of_the_day():
    for text, minutes in (
        ("Walks are an hour from now on.", "60"),
        ("Walk him for half an hour, no more.", "30"),
    ):
        got = {(f.argument, f.value) for f in READER.read(text, WALKS)}
        assert ("walk_minutes", minutes) in got
        assert not any(a == "slot" for a, _ in got), text
