"""When is a policy decision correct? One definition, used by the GRPO reward and by evaluation.

A decision is **correct** when its action equals the gold action and, for `supplement` and
`intervene`, its evidence names every gold evidence item (the conflicting or missing current
preference). Extra evidence ids are allowed; a right action with missing evidence is not correct.
An **intervention is correct** when the decision is `intervene` and correct as above, i.e. it blocks
a call that truly conflicts with memory *and* cites the item it conflicts with. Every other
`intervene` is a wrong interruption (the term the paper's Eq. 12 penalizes).

A completion that fails to parse acts as silent at run time, but it is never *correct* for the
reward: otherwise a model could be paid for gibberish whenever the gold action is silent.
"""
from __future__ import annotations

from pulse.core.policy_io import ParseResult
from pulse.core.records import Decision


def is_correct(decision: Decision, gold: Decision) -> bool:
    if decision.action != gold.action:
        return False
    return gold.action == "silent" or set(gold.evidence) <= set(decision.evidence)


def is_correct_parse(parsed: ParseResult, gold: Decision) -> bool:
    return parsed.ok and is_correct(parsed.decision, gold)  # type: ignore[arg-type]


def is_wrong_intervention(parsed: ParseResult, gold: Decision) -> bool:
    return parsed.ok and parsed.decision.action == "intervene" and not is_correct(parsed.decision, gold)  # type: ignore[union-attr]
