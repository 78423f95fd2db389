"""Clause-level reading: a thing named with a capital is no person, a value turned down then replaced is a
revision, a short fragment continues the sentence before. The sentences are written for these tests."""

from __future__ import annotations

import pytest

from pulse.reading import Schema, make_reader
from pulse.reading.clauses import holder_of

TOOLS = [
    {
        "name": "schedule_meeting",
        "description": "Schedule a recurring meeting.",
        "arguments": {
            "frequency": {
                "type": "string",
                "enum": ["daily", "weekly", "monthly"],
                "description": "How often the meeting repeats.",
            },
            "length_minutes": {"type": "integer", "description": "Meeting length in minutes."},
            "room": {
                "type": "string",
                "enum": ["small_room", "boardroom", "video_call"],
                "description": "Where the meeting is held.",
            },
        },
    },
]


@pytest.fixture(scope="module")
def read():
    schema = Schema.from_json_tools(TOOLS)
    reader = make_reader("offline")
    return lambda text: reader.read(text, schema)


@pytest.mark.parametrize(
    "text",
    [
        "Spanish is my first language",
        "Daily is way too often for me",
        "Monthly is perfect for me",
        "my spoken German is rusty",
    ],
)
def test_a_capitalised_thing_is_not_a_person(text):
    assert holder_of(text) == "user"


@pytest.mark.parametrize(
    "text", ["Marta is vegetarian", "Marta is my sister and wants aisle", "Tomas is too shy to ask for aisle"]
)
def test_a_person_is_still_a_person(text):
    assert holder_of(text).startswith("person:")


def test_a_value_turned_down_then_replaced_is_a_revision(read):
    facts = read("Daily is far too much for us — let's move the standup to weekly.")
    assert [(f.value, f.revises, f.polarity) for f in facts] == [("weekly", "daily", "prefer")]


def test_no_more_then_a_new_value_is_a_revision(read):
    facts = read("No more video calls for the weekly sync, book the small room please.")
    assert [(f.value, f.revises) for f in facts if f.argument == "room"] == [("small_room", "video_call")]


def test_a_fragment_in_the_next_sentence_keeps_the_situation(read):
    facts = read("When the client joins, schedule it properly. Forty-five minutes, no less.")
    assert [(f.value, f.condition) for f in facts] == [("45", "When the client joins")]


def test_a_past_event_in_a_change_of_mind_is_no_condition(read):
    facts = read("I used to like a daily sync, but after the reorg last spring I want it weekly.")
    assert [(f.value, f.condition) for f in facts if not f.withdraws] == [("weekly", "")]


def test_a_recurring_situation_stays_a_condition(read):
    facts = read("After a product launch, I want the retro in the boardroom.")
    assert [(f.value, f.condition) for f in facts] == [("boardroom", "After a product launch")]


def test_a_one_off_after_a_dash_is_said_of_the_request_before(read):
    facts = read("Book the boardroom for the review — it has to happen right away.")
    assert [(f.value, f.kind, f.lasting) for f in facts] == [("boardroom", "requirement", False)]


def test_the_old_value_is_read_from_its_own_words(read):
    facts = read("I switched our syncs from every single day to once a week.")
    assert [(f.value, f.revises) for f in facts] == [("weekly", "daily")]


@pytest.mark.parametrize("old", ["daily", "every day"])
def test_once_a_week_is_how_often_not_a_clause_opening(read, old):
    # "once" opens a clause ("once I'm done"); "once a week" is a value, not a situation swallowing it
    facts = read(f"I switched our syncs from {old} to once a week.")
    assert [(f.value, f.revises) for f in facts] == [("weekly", "daily")]


@pytest.mark.parametrize(
    "text",
    [
        "Switch me from daily to weekly.",
        "Daily is out, weekly is in.",
        "I've had enough of daily syncs; weekly works.",
        "Forget daily, weekly from now on.",
        "Make the sync weekly, not daily anymore.",
    ],
)
def test_ways_of_saying_what_is_replaced(read, text):
    facts = read(text)
    assert [(f.value, f.revises, f.withdraws) for f in facts] == [("weekly", "daily", False)]


def test_a_doing_replaced_is_the_old_value(read):
    facts = read("Put the retro in the boardroom rather than cluttering everyone's day with video calls.")
    assert [(f.value, f.revises) for f in facts] == [("boardroom", "video_call")]


@pytest.mark.parametrize(
    "text",
    [
        "Book the boardroom, since my manager likes to present.",
        "Book the boardroom because Ingrid always wants to present.",
    ],
)
def test_a_reasons_subject_is_not_the_holder(text):
    assert holder_of(text) == "user"


def test_a_pronoun_opening_a_sentence_is_no_name():
    assert holder_of("He always wants the boardroom.") == "person:"


def test_maybe_between_amounts_is_a_range_not_a_hedge(read):
    facts = read("Keep the standup short: fifteen, maybe twenty minutes, tops.")
    assert {f.argument for f in facts} == {"length_minutes"}


def test_a_wish_in_a_reason_after_a_habit_keeps_it_a_habit(read):
    facts = read("I usually book the small room, I don't really like big empty spaces.")
    assert [(f.value, f.kind) for f in facts] == [("small_room", "habit")]


def test_an_argument_word_narrowed_by_a_phrase_after_it_is_a_situation(read):
    facts = read("For meeting rooms for my grandparents, always the small room.")
    want = [("small_room", "For meeting rooms for my grandparents")]
    assert [(f.value, f.condition) for f in facts] == want
    assert [f.condition for f in read("For the room, always the boardroom.")] == [""]


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Our tech lead wants weekly syncs.", "person:lead"),
        ("Keiko, our CFO, wants weekly syncs.", "person:Keiko"),
    ],
)
def test_roles_at_work_and_a_name_in_apposition(text, holder):
    assert holder_of(text) == holder


def test_keeps_doing_is_a_habit(read):
    facts = read("My flatmate Jo keeps booking the boardroom, but I want the small room.")
    assert [(f.value, f.holder, f.kind) for f in facts] == [
        ("boardroom", "person:Jo", "habit"),
        ("small_room", "user", "preference"),
    ]


def test_a_change_of_mind_states_the_new_value(read):
    facts = read("I used to meet daily, but these days we meet weekly.")
    assert [(f.value, f.revises) for f in facts] == [("weekly", "daily")]


@pytest.mark.parametrize("after", ["Just for today though.", "This time only.", "Only tonight, mind you."])
def test_a_one_off_said_alone_in_the_next_sentence(read, after):
    facts = read(f"Put the review in the boardroom. {after}")
    assert [(f.value, f.kind, f.lasting) for f in facts] == [("boardroom", "requirement", False)]


def test_a_next_sentence_with_its_own_content_is_no_one_off_cue(read):
    facts = read("Put the review in the boardroom. Today I'm tired.")
    assert [f.lasting for f in facts] == [True]


def test_a_change_verb_with_its_object_from_x_to_y_is_a_revision(read):
    facts = read("Please move the retro from the boardroom to video calls.")
    assert [(f.value, f.revises) for f in facts] == [("video_call", "boardroom")]


def test_from_x_to_y_of_two_arguments_is_no_revision():
    tools = [
        {
            "name": "transfer",
            "description": "Move money between accounts.",
            "arguments": {
                "from_account": {
                    "type": "string",
                    "enum": ["checking", "savings"],
                    "description": "Account the money leaves.",
                },
                "to_account": {
                    "type": "string",
                    "enum": ["checking", "savings"],
                    "description": "Account the money goes to.",
                },
            },
        }
    ]
    facts = make_reader("offline").read(
        "Move the money from savings to checking.", Schema.from_json_tools(tools)
    )
    assert ("from_account", "savings", "") in [(f.argument, f.value, f.revises) for f in facts]


def test_a_relation_with_the_as_subject_is_the_holder():
    assert holder_of("The landlord says the boardroom must stay free.") == "person:landlord"
    assert holder_of("Send it to the client by Friday.") == "user"


def test_a_rule_named_as_such_states_a_value(read):
    facts = read("The office rule is the small room for one-to-ones.")
    assert [f.value for f in facts] == ["small_room"]


def test_a_team_with_a_present_verb_and_its_object_is_the_holder():
    assert holder_of("Our team reserves the boardroom for every retro.") == "team:"
    assert holder_of("Our team lunches are on Fridays.") == "user"


def test_what_rather_than_turns_down_is_avoided_when_nothing_replaces_it(read):
    facts = read("Somewhere quiet rather than hogging the boardroom, please.")
    assert [(f.value, f.polarity) for f in facts] == [("boardroom", "avoid")]


def test_the_speakers_own_wish_after_a_comma_is_the_speakers(read):
    facts = read("My manager wants the boardroom for the retro, I'd rather have the small room.")
    assert [(f.value, f.holder) for f in facts] == [("boardroom", "person:manager"), ("small_room", "user")]


def test_and_then_i_after_a_comma_opens_a_clause_of_its_own(read):
    # ", and I ..." was left in one clause with what came before ("I" is a capital): the new value and
    # the withdrawn one were read as one value, revising the other the wrong way round
    from pulse.reading.clauses import split_clauses

    assert split_clauses("Monthly suits me now, and I don't want weekly any more.") == [
        "Monthly suits me now",
        "I don't want weekly any more.",
    ]
    facts = {
        (f.value, f.polarity, f.withdraws, f.revises)
        for f in read("Monthly suits me now, and I don't want weekly any more.")
    }
    assert ("monthly", "prefer", False, "weekly") in facts
    assert not any(v == "weekly" and p == "avoid" for v, p, _w, _r in facts)
