"""What the user asks for this task keeps its scope: a value given in the request (read by the
listener's reading layer, or `UNREAD` where no reader could bind it) is never overridden by memory,
while "my usual X" still lets memory speak, and a quoted name states no value."""

from __future__ import annotations

import pytest

from pulse.agent.listener import Listener
from pulse.agent.precheck import needs_decision
from pulse.core.gold import gold_decision
from pulse.core.policy_io import PolicyInput
from pulse.core.records import Event, MemoryItem, Provenance
from pulse.core.statements import IMPLICIT, UNREAD, vocab_from_params
from pulse.reading import BoundReader, Schema, make_reader

CABIN = MemoryItem(
    "m1",
    "preference",
    "user:u",
    "The user prefers cabin = business.",
    slot="cabin",
    value="business",
    provenance=Provenance("user_statement", "e1", "I fly business."),
)
TOOLS = [
    {
        "name": "book_flight",
        "description": "Book a flight.",
        "arguments": {
            "cabin": {
                "type": "string",
                "enum": ["economy", "premium", "business"],
                "description": "Cabin class.",
            },
            "seat": {"type": "string", "enum": ["aisle", "window"], "description": "Seat position."},
            "report_format": {"type": "string", "enum": ["doc", "sheet"], "description": "Report file type."},
        },
    }
]
VOCAB = vocab_from_params({"cabin": ["economy", "premium", "business"], "seat": ["aisle", "window"]})


@pytest.fixture(scope="module")
def reading():
    return BoundReader(make_reader("offline"), Schema.from_json_tools(TOOLS))


def _prefix(stated: dict[str, str], call_value: str) -> list[Event]:
    return [
        Event("request", 0, role="user", text="Book my flight.", args=stated),
        Event("candidate_call", 1, tool="book_flight", args={"cabin": call_value}),
    ]


def test_gold_never_overrides_a_value_the_user_gave_in_unread_words():
    assert gold_decision(_prefix({}, "economy"), [CABIN]).action == "intervene"
    assert gold_decision(_prefix({"cabin": UNREAD}, "economy"), [CABIN]).action == "silent"
    assert gold_decision(_prefix({"cabin": "economy"}, "economy"), [CABIN]).action == "silent"
    # "my usual cabin": memory is what the user refers to
    assert gold_decision(_prefix({"cabin": IMPLICIT}, "economy"), [CABIN]).action == "intervene"


def test_precheck_skips_what_the_gold_rule_never_acts_on():
    inp = PolicyInput(tuple(_prefix({"cabin": UNREAD}, "economy")), (CABIN,))
    assert not needs_decision(inp)
    assert needs_decision(PolicyInput(tuple(_prefix({}, "economy")), (CABIN,)))


def test_no_supplement_on_a_slot_the_user_chose_for_this_task():
    plan = Event("message", 1, role="agent", text="Next I will book the flight.", args={"cabin": "economy"})
    prefix = [Event("request", 0, role="user", text="x", args={"cabin": UNREAD}), plan]
    assert gold_decision(prefix, [CABIN]).action == "silent"


@pytest.mark.parametrize(
    "text, cabin",
    [
        ("This time, I want the cheapest cabin for the cabin.", UNREAD),  # a value nobody could bind
        ("For this one, go with economy for the cabin.", "economy"),  # the vocabulary reads it
        ("Book my usual cabin.", IMPLICIT),  # a reference to memory stays one
        ("Please book the flight, then send the report.", None),  # steps state no value
    ],
)
def test_listener_reads_the_request_with_the_reading_layer(reading, text, cabin):
    listener = Listener(vocab=VOCAB, reading=reading)
    listener.observe(Event("request", 0, role="user", text=text))
    assert listener.prefix[-1].args.get("cabin") == cabin


def test_an_agents_words_are_not_read_as_the_users(reading):
    listener = Listener(vocab=VOCAB, reading=reading)
    listener.observe(Event("message", 2, role="agent", text="I'd go with the cheapest cabin for the cabin."))
    assert "cabin" not in listener.prefix[-1].args


def test_value_constructions(reading):
    assert reading.stated("The seat should be whatever is free.") == {"seat": UNREAD}
    assert reading.stated("Book it and put the piece live on the seat map.") == {}
    # a quoted name states nothing ("docs-5-2" is not the report format `doc`)
    assert reading.stated("Then prepare a summary 'docs-5-2'.") == {}


def test_a_condition_naming_the_statements_own_project_is_its_scope():
    reader, schema = make_reader("offline"), Schema.from_json_tools(TOOLS)
    facts = reader.read("For harbor-audit, let's settle the cabin: business.", schema, project="harbor-audit")
    assert [(f.argument, f.value, f.condition) for f in facts] == [("cabin", "business", "")]
    # in another project's conversation the decision is harbor-audit's (its holder), not a condition
    other = reader.read("For harbor-audit, let's settle the cabin: business.", schema, project="mill-merger")
    assert [(f.holder, f.kind, f.condition) for f in other] == [("project:harbor-audit", "decision", "")]
