"""Reader v13: an amount as the object of the opening verb, a free-text value turned down at the end of
its clause, the tools' own nouns are no values, and a compound that narrows the tools' thing is a
condition. The sentences are written for these tests; the positive ones fail on reader v12."""

from __future__ import annotations

import pytest

from pulse.reading import Schema

TOOLS = [
    {
        "name": "transfer_money",
        "description": "Move money between accounts.",
        "arguments": {
            "amount": {"type": "number", "description": "Amount to send, in the account's currency."},
            "max_amount": {"type": "number", "description": "Largest transfer allowed without confirmation."},
            "from_account": {
                "type": "string",
                "enum": ["checking", "savings"],
                "description": "Account the money leaves.",
            },
        },
    },
    {
        "name": "set_alert",
        "description": "Alert when spending reaches a share of the budget.",
        "arguments": {"threshold_percent": {"type": "number", "description": "Alert at this percentage."}},
    },
    {
        "name": "open_pull_request",
        "description": "Open a pull request (PR).",
        "arguments": {
            "target_branch": {"type": "string", "description": "Branch the PR merges into."},
            "merge_method": {
                "type": "string",
                "enum": ["merge", "squash", "rebase"],
                "description": "How the PR is merged.",
            },
        },
    },
]
SCHEMA = Schema.from_json_tools(TOOLS)


def _read(reader, text):
    return {(f.argument, f.value, f.polarity): f for f in reader.read(text, SCHEMA)}


@pytest.mark.parametrize(
    "text, value",
    [("Transfer 1,500 from savings, please.", "1500"), ("Move 300 into checking.", "300")],
)
def test_an_amount_right_after_the_opening_verb_is_what_the_action_moves(reader, text, value):
    facts = _read(reader, text)
    assert ("amount", value, "prefer") in facts
    assert not any(arg == "max_amount" for arg, _, _ in facts)


def test_an_amount_said_as_a_bound_or_as_a_state_is_not_the_amount_moved(reader):
    assert ("max_amount", "5000", "prefer") in _read(reader, "Transfers over 5,000 need my confirmation.")
    assert not any(arg == "amount" for arg, _, _ in _read(reader, "I have 300 in savings."))


def test_a_free_text_value_turned_down_at_the_end_of_its_clause(reader):
    facts = _read(reader, "Target release/4.1 this time, not main.")
    assert ("target_branch", "release/4.1", "prefer") in facts
    assert ("target_branch", "main", "avoid") in facts


def test_the_tools_own_noun_is_no_value(reader):
    facts = _read(reader, "Target release/5.0 with this PR.")
    assert ("target_branch", "release/5.0", "prefer") in facts
    assert not any(value == "PR" for _, value, _ in facts)


@pytest.mark.parametrize(
    "text, value, condition",
    [
        ("Squash on feature branches.", "squash", "on feature branches"),
        ("Rebase for hotfix branches.", "rebase", "for hotfix branches"),
    ],
)
def test_a_compound_that_narrows_the_tools_thing_is_a_condition(reader, text, value, condition):
    assert _read(reader, text)[("merge_method", value, "prefer")].condition == condition


def test_the_arguments_own_name_is_a_scope_not_a_condition(reader):
    facts = _read(reader, "Squash for the target branch.")
    assert facts[("merge_method", "squash", "prefer")].condition == ""


def test_a_value_the_description_gives_as_an_example_is_still_a_value(reader):
    """v16: the tools' own nouns are read from their descriptions less the examples they give."""
    tools = [
        {
            "name": "open_pull_request",
            "description": "Open a pull request (PR).",
            "arguments": {
                "target_branch": {
                    "type": "string",
                    "description": "Branch the PR merges into (e.g. Develop).",
                }
            },
        }
    ]
    facts = {
        (f.argument, f.value)
        for f in reader.read("Target the Develop branch with this PR.", Schema.from_json_tools(tools))
    }
    assert ("target_branch", "Develop") in facts and ("target_branch", "PR") not in facts
