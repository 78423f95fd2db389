"""Excluding conditions ("unless it's a client", "except for reports", "otherwise" after a condition):
one rule for the reader that writes them and the scope rules that weigh them."""

from __future__ import annotations

from pulse.agent.schema import words
from pulse.agent.scope import condition_applies
from pulse.core.conditions import excluded_situation, opposite


def _in(text: str) -> set[str]:
    return set(words(text))


def test_an_excluding_condition_names_the_situation_it_rules_out():
    assert excluded_situation("unless it's a client") == "it's a client"
    assert excluded_situation("except for reports") == "reports"
    assert excluded_situation("Except on weekends") == "weekends"
    assert excluded_situation("when it's a client") == ""
    assert excluded_situation("") == ""


def test_the_other_branch_of_a_condition():
    assert opposite("If it's a long flight") == "unless it's a long flight"
    assert opposite("unless it's a client") == "if it's a client"
    assert opposite("except for reports") == "for reports"
    assert opposite("For long-haul flights") == "except for long-haul flights"
    assert opposite("") == ""


def test_an_excluding_condition_applies_where_its_situation_is_absent():
    assert condition_applies("unless it's a client", _in("email the team about the offsite"))
    assert not condition_applies("unless it's a client", _in("email the client about the invoice"))
    assert condition_applies("except for reports", _in("a quick question"))
    assert not condition_applies("except for reports", _in("the quarterly reports are attached"))
    # a positive condition is the other way round, as before
    assert condition_applies("when it's a client", _in("email the client about the invoice"))
    assert not condition_applies("when it's a client", _in("email the team about the offsite"))
