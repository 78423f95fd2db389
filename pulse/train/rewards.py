"""Reward terms for GRPO (paper Eq. 12), each a named function so trl logs it separately
(`rewards/<name>/mean`) and its weight comes from `configs/reward/*.yaml`.

    R = w_action * correct_action + w_decision * correct_decision
        + w_wrong * wrong_intervention + w_format * well_formed

- correct_action: 1 when the parsed action equals the gold action (Eq. 12's "+1 for the correct
  action").
- correct_decision: 1 when the decision is correct including evidence (`pulse.core.correctness`):
  a bonus for citing the right memory item.
- wrong_intervention: 1 when the policy intervenes and the intervention is not correct (wrong
  action, or right action citing the wrong item); its weight is the penalty (-1 paper, 0 comparison).
- well_formed: 1 for a parsed, EOS-terminated completion (optional shaping).
`reward=pulse`: 1, 0.5, -1, 0. `reward=no_penalty`: 1, 0.5, 0, 0. With w_decision=0 it is exactly
Eq. 12. Why the evidence bonus is a separate term: with evidence folded into `correct_action`, GRPO
from a weak SFT policy (evidence right on few interventions) collapsed to always-silent in 60 steps
on the CPU default (measured: all 400 held-out decisions silent under both penalties).
A completion cut by the length cap (no EOS), or one that does not parse, earns no positive term.
Completions and labels are compared in the prompt's own ids (`label_evidence` of `grpo_rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pulse.core.correctness import is_correct_parse, is_wrong_intervention
from pulse.core.policy_io import ParseResult, completion_text, parse_completion
from pulse.core.records import Decision

RewardFn = Callable[..., list[float]]
TERM_NAMES: tuple[str, ...] = ("correct_action", "correct_decision", "wrong_intervention", "well_formed")


def _parse_all(
    completions: Sequence[Any], completion_ids: Sequence[Sequence[int]] | None, eos_token_id: int | None
) -> list[ParseResult]:
    out = []
    for i, c in enumerate(completions):
        terminated = (
            completion_ids is None
            or eos_token_id is None
            or (len(completion_ids[i]) > 0 and completion_ids[i][-1] == eos_token_id)
        )
        out.append(parse_completion(c) if terminated else ParseResult(None, "not terminated (length cap)"))
    return out


def _golds(label_action: Sequence[str], label_evidence: Sequence[Sequence[str]]) -> list[Decision]:
    return [Decision(a, tuple(e)) for a, e in zip(label_action, label_evidence)]


def make_reward_terms(eos_token_id: int | None) -> dict[str, RewardFn]:
    """The reward functions trl calls as f(prompts, completions, completion_ids, **dataset_columns)."""

    def correct_action(completions, label_action, completion_ids=None, **_):
        parsed = _parse_all(completions, completion_ids, eos_token_id)
        return [float(p.ok and p.decision.action == a) for p, a in zip(parsed, label_action)]  # type: ignore[union-attr]

    def correct_decision(completions, label_action, label_evidence, completion_ids=None, **_):
        parsed = _parse_all(completions, completion_ids, eos_token_id)
        return [float(is_correct_parse(p, g)) for p, g in zip(parsed, _golds(label_action, label_evidence))]

    def wrong_intervention(completions, label_action, label_evidence, completion_ids=None, **_):
        parsed = _parse_all(completions, completion_ids, eos_token_id)
        return [
            float(is_wrong_intervention(p, g)) for p, g in zip(parsed, _golds(label_action, label_evidence))
        ]

    def well_formed(completions, completion_ids=None, **_):
        return [float(p.ok) for p in _parse_all(completions, completion_ids, eos_token_id)]

    terms = {
        "correct_action": correct_action,
        "correct_decision": correct_decision,
        "wrong_intervention": wrong_intervention,
        "well_formed": well_formed,
    }
    assert tuple(terms) == TERM_NAMES
    return terms


def total_reward(completion: Any, gold: Decision, weights: dict[str, float]) -> float:
    """The weighted sum for one completion (tests, analysis)."""
    text = completion_text(completion)
    terms = make_reward_terms(None)
    kw = dict(completions=[text], label_action=[gold.action], label_evidence=[list(gold.evidence)])
    return sum(weights.get(name, 0.0) * fn(**kw)[0] for name, fn in terms.items())
