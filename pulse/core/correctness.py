"""When is a policy decision correct? One definition, used by the GRPO reward, the policy metrics
and the harness metrics.

A decision is **correct** when its action equals the gold action (`pulse.core.gold.gold_decision`)
and, for `supplement` and `intervene`, its evidence names every gold evidence item. Extra evidence
ids are allowed; a right action with missing evidence is not correct.

An **intervention is correct** when the held call conflicts with a current binding memory item
(a current preference or project decision whose value differs from the call's argument) *and* the
evidence names that item. Every other `intervene` is a wrong interruption (the term the paper's
Eq. 12 penalizes). On labelled data "conflicts" is decided by the gold rule on the snapshot
(`is_correct` with a gold `intervene`); in the harness, where memory itself may be wrong (a
corrupted store, a stale flat record), the conflict must hold against the *true* value of the
argument (`is_correct_intervention`): an item whose value is not the truth is no evidence, and an
id that names nothing in memory is never evidence.

A completion that fails to parse acts as silent at run time, but it is never *correct* for the
reward: otherwise a model could be paid for gibberish whenever the gold action is silent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pulse.core.gold import BINDING_KINDS
from pulse.core.policy_io import ParseResult
from pulse.core.records import Decision, MemoryItem
from pulse.core.values import allows


def is_correct(decision: Decision, gold: Decision) -> bool:
    if decision.action != gold.action:
        return False
    return gold.action == "silent" or set(gold.evidence) <= set(decision.evidence)


def is_correct_parse(parsed: ParseResult, gold: Decision) -> bool:
    return parsed.ok and is_correct(parsed.decision, gold)  # type: ignore[arg-type]


def is_wrong_intervention(parsed: ParseResult, gold: Decision) -> bool:
    return parsed.ok and parsed.decision.action == "intervene" and not is_correct(parsed.decision, gold)  # type: ignore[union-attr]


def conflicts(item: MemoryItem, call_args: Mapping[str, str]) -> bool:
    """A current binding item whose slot the call sets to a different value."""
    return (
        item.is_current
        and item.kind in BINDING_KINDS
        and item.slot in call_args
        and not allows(item.value, str(call_args[item.slot]))
    )


def is_correct_intervention(
    call_args: Mapping[str, str], cited: Sequence[MemoryItem], truth: Mapping[str, str]
) -> bool:
    """Harness form: some cited item conflicts with the held call and holds the argument's true value.

    `cited` are the memory items the evidence resolved to (ids that name nothing are dropped before);
    `truth` maps a slot to its true value where a memory item *should* bind it (the task's gold for
    arguments that come from preferences or project decisions; an argument the user states, a habit
    or a default is not memory's to enforce and is absent from `truth`).
    """
    return any(conflicts(m, call_args) and truth.get(m.slot) == m.value for m in cited)
