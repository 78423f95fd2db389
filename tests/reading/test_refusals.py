"""Refusals the offline reader must read the right way round (sentences written for these tests, not
taken from the annotated sets): an aversion of the body or of taste is an avoid, refusing what an
absence value leaves out states that value, and a yes/no setting is not switched on by its tool's
nouns."""

from __future__ import annotations

from pulse.reading import Schema, make_reader
from pulse.reading.absence import absence_head

READER = make_reader("offline")

KITCHEN = Schema.from_json_tools(
    [
        {
            "name": "plan_meals",
            "description": "Plan a week of meals.",
            "arguments": {
                "main_ingredient": {
                    "type": "string",
                    "enum": ["pork", "salmon", "tofu", "shrimp", "mushrooms"],
                    "description": "Main ingredient of the dinners.",
                },
                "restriction": {
                    "type": "string",
                    "enum": ["none", "egg_free", "soy_free", "shellfish_free", "sugar_free"],
                    "description": "Dietary restriction to respect.",
                },
                "container": {
                    "type": "string",
                    "enum": ["glass", "plastic", "no_containers"],
                    "description": "What the meals are packed in.",
                },
            },
        }
    ]
)


def _read(text: str, schema: Schema = KITCHEN) -> set[tuple[str, str, str]]:
    return {(f.argument, f.value, f.polarity) for f in READER.read(text, schema)}


def test_an_aversion_of_the_body_or_of_taste_is_an_avoid() -> None:
    assert ("main_ingredient", "pork", "avoid") in _read("My husband is allergic to pork.")
    assert ("main_ingredient", "mushrooms", "avoid") in _read("Mushrooms make me queasy, every time.")
    assert ("main_ingredient", "tofu", "avoid") in _read("I'm not into tofu at all.")
    assert ("main_ingredient", "salmon", "avoid") in _read("I'm trying to cut salmon out for a while.")
    # the same ingredient wished for stays a wish
    assert ("main_ingredient", "salmon", "prefer") in _read("I love salmon for dinner.")


def test_refusing_what_an_absence_value_leaves_out_states_that_value() -> None:
    assert ("restriction", "shellfish_free", "prefer") in _read("I'm allergic to shellfish.")
    assert ("restriction", "egg_free", "prefer") in _read("I can't eat eggs.")
    assert ("restriction", "soy_free", "prefer") in _read("I have a bad soy allergy.")
    assert ("restriction", "sugar_free", "prefer") in _read("No sugar for me, please.")
    # said outright it is the value, refused outright it is an avoid of it
    assert ("restriction", "egg_free", "prefer") in _read("Egg-free meals, please.")
    assert ("restriction", "egg_free", "avoid") in _read("I don't need egg-free meals.")
    # the thing wished for says nothing of its absence
    assert not any(v == "egg_free" for _, v, _ in _read("I love eggs in the morning."))


def test_refusing_another_value_of_the_argument_is_not_its_absence() -> None:
    read = _read("No plastic containers, please.")
    assert ("container", "plastic", "avoid") in read
    assert ("container", "no_containers", "prefer") not in read


def test_only_values_with_an_absence_marker_are_absence_values() -> None:
    assert absence_head("nut_free") == ("nut",)
    assert absence_head("non_smoking") == ("smoking",)
    assert absence_head("no_preference") == ("preference",)
    assert absence_head("ENG-204") == ()  # a code with digits is not an absence
    assert absence_head("free") == ()  # nothing left out
    assert absence_head("release/2.4") == ()


GIGS = Schema.from_json_tools(
    [
        {
            "name": "buy_passes",
            "description": "Buy festival passes.",
            "arguments": {
                "pass_count": {"type": "integer", "description": "Number of passes."},
                "camping": {
                    "type": "string",
                    "enum": ["none", "tent", "glamping"],
                    "description": "Camping.",
                },
                "pass_insurance": {"type": "boolean", "description": "Whether to add cancellation cover."},
            },
        }
    ]
)


def test_a_switch_is_not_turned_on_by_its_tools_nouns() -> None:
    # "passes" is every call of buy_passes: it names the tool, not the insurance
    assert not any(
        a == "pass_insurance" for a, _, _ in _read("Three passes this year, my brother is coming.", GIGS)
    )
    assert ("pass_insurance", "true", "prefer") in _read("Always add the insurance on festival passes.", GIGS)
    assert ("pass_insurance", "false", "prefer") in _read("Skip the insurance, it never pays out.", GIGS)


def test_refusals_typed_as_people_type_them() -> None:
    # a phone's curly apostrophe and a contraction without one refuse like "don't"
    for text in (
        "Don\u2019t add the insurance.",
        "dont add the insurance",
        "I cant stand the insurance upsell.",
    ):
        assert ("pass_insurance", "false", "prefer") in _read(text, GIGS), text
    assert ("main_ingredient", "pork", "avoid") in _read("im allergic to pork")


def test_quotes_and_conditions_stay_the_persons_own_characters() -> None:
    # memory keeps a fact only when its quote is a span of what the person wrote
    text = "When it\u2019s a one-day pass, dont add the insurance."
    (fact,) = READER.read(text, GIGS)
    assert fact.value == "false" and fact.quote in text and fact.condition in text
    assert "\u2019" in fact.condition
