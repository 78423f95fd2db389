"""Whose a fact is and what kind it is: a relation as subject or object, a person named with a title,
a team without a name, a project's own rule. The sentences are written for these tests."""

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
        },
    },
    {
        "name": "send_invite",
        "description": "Send a meeting invitation.",
        "arguments": {"cc": {"type": "string", "description": "E-mail address to copy."}},
    },
]


@pytest.fixture(scope="module")
def read():
    schema = Schema.from_json_tools(TOOLS)
    reader = make_reader("offline")
    return lambda text: {f.value: f for f in reader.read(text, schema)}


def test_a_relation_as_an_object_is_not_the_holder_but_one_as_the_subject_is(read):
    assert read("I always take the aisle so I can check on my kids.")["aisle"].holder == "user"
    assert read("My manager Lee always wants a window seat.")["window"].holder == "person:Lee"


def test_a_relation_inside_a_reason_is_not_the_holder(read):
    f = read("These days I take the aisle seat, since my daughter flies with me.")["aisle"]
    assert f.holder == "user"


def test_a_title_is_not_a_sentence_end_nor_part_of_the_name(read):
    f = read("My advisor, Prof. Okafor, insists on economy for conference trips.")["economy"]
    assert f.holder == "person:Okafor"


def test_he_or_she_with_a_wish_is_someone_else(read):
    f = read("When you book for Sam, remember she expects a window seat.")["window"]
    assert f.holder.startswith("person:")


def test_a_team_without_a_name_as_subject_holds_a_decision(read):
    f = read("Our team never flies business.")["business"]
    assert (f.holder, f.kind) == ("team:", "decision")


def test_a_departments_wish_is_its_decision(read):
    f = read("Finance wants economy on every trip.")["economy"]
    assert (f.holder, f.kind) == ("team:finance", "decision")


def test_a_named_project_scope_is_the_projects_rule_not_a_condition(read):
    f = read("For the Orion migration project, everyone flies economy.")["economy"]
    assert (f.holder, f.condition) == ("project:orion migration", "")


def test_a_negated_activity_is_not_an_attribute(read):
    f = read("I'm not bothering with business class anymore.")["business"]
    assert f.kind != "attribute"


def test_these_days_is_habitual(read):
    assert read("Most of my flights are economy these days.")["economy"].kind == "habit"


def test_a_discourse_this_is_not_this_task(read):
    f = read("I always pick the aisle, it's a reflex at this point.")["aisle"]
    assert (f.kind, f.lasting) == ("preference", True)


def test_tomorrow_makes_a_one_off_outside_a_relative_clause(read):
    f = read("Book me a window seat on the flight tomorrow.")["window"]
    assert (f.kind, f.lasting) == ("requirement", False)


def test_a_change_of_mind_after_now_revises_the_old_value(read):
    f = read("Used to love the window, now I want the aisle.")["aisle"]
    assert (f.revises, f.withdraws) == ("window", False)


def test_gone_back_revises_what_it_left(read):
    f = read("I've gone from business back to economy for short hops.")["economy"]
    assert f.revises == "business"


def test_a_group_in_a_phrase_is_not_the_holder(read):
    assert read("I like a window seat when I travel with my hiking club.")["window"].holder == "user"


def test_a_person_by_role_is_someone_else_but_only_when_they_want_something(read):
    assert read("My physio wants me in an aisle seat.")["aisle"].holder == "person:physio"
    f = read("I tend to take the window, my colleagues tease me about it.")["window"]
    assert f.holder == "user"


def test_a_revision_is_one_fact_not_a_withdrawal_beside_it(read):
    out = read("I used to ask for the aisle, but these days a window seat works better.")
    assert set(out) == {"window"} and out["window"].revises == "aisle"


def test_a_habit_of_stopping_and_a_noun_scratch_withdraw_nothing(read):
    assert not read("I stop working at six, so book me a window seat on the late flight.")["window"].withdraws
    assert not read("Get me the aisle, a scratch that deep needs care.")["aisle"].withdraws


def test_forgetting_withdraws_only_as_an_instruction(read):
    # the person's own memory is no withdrawal; telling the assistant to forget a rule is
    f = read("Not the middle seat, I'll just forget to stretch my legs otherwise.")["middle"]
    assert not f.withdraws and f.polarity == "avoid"
    assert read("Forget about the window seat from now on.")["window"].withdraws


def test_a_long_any_more_still_withdraws(read):
    f = read("You don't have to book me into business class on my work trips anymore.")["business"]
    assert f.withdraws


def test_a_decision_passed_on_from_a_team_is_the_teams(read):
    # the one who passes it on is not whose it is, and neither is the user
    fact = read("Jonas passed on a decision from the travel desk team: aisle seats for everyone.")["aisle"]
    assert fact.holder == "team:travel desk"
    assert read("When I fly with my choir I want an aisle seat.")["aisle"].holder == "user"


def test_a_family_title_is_not_part_of_the_name(read):
    f = read("Uncle Tomasz, who flies with us, always wants the aisle.")["aisle"]
    assert f.holder == "person:Tomasz"


def test_a_person_named_only_in_the_situation_is_not_whose_the_rule_is(read):
    # the main clause is the speaker's (an instruction, "we"): the person is the situation, kept as it
    f = read("If my uncle is flying with us, we take the aisle seats.")["aisle"]
    assert (f.holder, f.condition) == ("user", "If my uncle is flying with us")
    f = read("For my niece's trip, book the aisle seats.")["aisle"]
    assert f.holder == "user" and "niece" in f.condition
    # ... unless the rule points back to the person: then it is theirs
    assert read("When my uncle flies, he wants the window.")["window"].holder == "person:uncle"
    assert read("When Dara flies, she always wants the window.")["window"].holder == "person:Dara"


def test_a_person_who_keeps_doing_something_is_the_holder(read):
    # any verb of what someone does over and over, after its adverb, not only verbs of wanting
    assert read("My director Ines only flies business.")["business"].holder == "person:Ines"
    assert read("My director Ines always sits by the window.")["window"].holder == "person:Ines"


def test_a_means_judged_best_is_a_thing_not_a_person(read):
    # a capitalised first word with "is the best way" is the thing judged, not a person named Sleep
    assert read("Sleep is the best way to survive a red-eye, so a window seat.")["window"].holder == "user"
    assert read("Legroom is the only option for my knees: the aisle, always.")["aisle"].holder == "user"
