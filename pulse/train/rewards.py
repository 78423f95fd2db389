"""Reward terms for GRPO (paper Eq. 12). A term is one function registered once with
`@reward_term("name")`; its weight is `reward.weights.<name>` in `configs/reward/*.yaml`, checked
against this registry when the config is read (`RewardConfig` in pulse/config/schema.py: an unknown
name or a term without a weight is a ConfigError naming the key and the known terms). trl gets one
reward function per term, named after it, so it logs each separately (`rewards/<name>/mean`), and
the weights in registry order.

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
A completion cut by the length cap (it ends with none of the end ids trl stops on: the tokenizer's
EOS and the model's generation_config eos ids, e.g. Qwen3's `<|im_end|>` and `<|endoftext|>`;
pulse/policy/end_tokens.py), or one that does not parse, earns no positive term.
Completions and labels are compared in the prompt's own ids (`label_evidence` of `grpo_rows`).

Adding a term: a function `(parsed: ParseResult, gold: Decision) -> float` decorated with
`@reward_term("name")` here, and its weight under `weights:` in configs/reward/pulse.yaml (the other
reward configs start from that one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulse.core.correctness import is_correct_parse, is_wrong_intervention
from pulse.core.policy_io import ParseResult, completion_text, parse_completion
from pulse.core.records import Decision

# one completion's value of a term: (its parse, the gold decision) -> float
RewardTerm = Callable[[ParseResult, Decision], float]
# what trl calls: f(prompts, completions, completion_ids, **dataset_columns) -> one float per completion
RewardFn = Callable[..., list[float]]

REWARD_TERMS: dict[str, RewardTerm] = {}  # registration order = trl's reward_funcs / reward_weights order


def reward_term(name: str) -> Callable[[RewardTerm], RewardTerm]:
    """Register `fn` as the reward term `name` (its weight: `reward.weights.<name>`)."""

    def register(fn: RewardTerm) -> RewardTerm:
        if name in REWARD_TERMS:
            raise ValueError(f"reward term {name!r} is registered twice")
        REWARD_TERMS[name] = fn
        return fn

    return register


@reward_term("correct_action")
def correct_action(parsed: ParseResult, gold: Decision) -> float:
    return float(parsed.ok and parsed.decision.action == gold.action)  # type: ignore[union-attr]


@reward_term("correct_decision")
def correct_decision(parsed: ParseResult, gold: Decision) -> float:
    return float(is_correct_parse(parsed, gold))


@reward_term("wrong_intervention")
def wrong_intervention(parsed: ParseResult, gold: Decision) -> float:
    return float(is_wrong_intervention(parsed, gold))


@reward_term("well_formed")
def well_formed(parsed: ParseResult, gold: Decision) -> float:
    return float(parsed.ok)


def term_weights(weights: Mapping[str, float]) -> list[float]:
    """The weights in registry order (the order of `make_reward_terms`); `RewardConfig` has checked
    that there is one per term."""
    return [float(weights[name]) for name in REWARD_TERMS]


EndIds = int | Sequence[int] | None  # the ids that end a completion (one id for older callers)


def _end_set(end_ids: EndIds) -> frozenset[int]:
    if end_ids is None:
        return frozenset()
    return frozenset([end_ids] if isinstance(end_ids, int) else end_ids)


def _parse_all(
    completions: Sequence[Any], completion_ids: Sequence[Sequence[int]] | None, end_ids: EndIds
) -> list[ParseResult]:
    ends = _end_set(end_ids)
    out = []
    for i, c in enumerate(completions):
        terminated = (
            completion_ids is None
            or not ends
            or (len(completion_ids[i]) > 0 and completion_ids[i][-1] in ends)
        )
        out.append(parse_completion(c) if terminated else ParseResult(None, "not terminated (length cap)"))
    return out


def _golds(label_action: Sequence[str], label_evidence: Sequence[Sequence[str]] | None) -> list[Decision]:
    evidence = label_evidence if label_evidence is not None else [()] * len(label_action)
    return [Decision(a, tuple(e)) for a, e in zip(label_action, evidence)]


def _batch_fn(name: str, term: RewardTerm, end_ids: EndIds) -> RewardFn:
    def fn(completions, label_action, label_evidence=None, completion_ids=None, **_):
        parsed = _parse_all(completions, completion_ids, end_ids)
        return [term(p, g) for p, g in zip(parsed, _golds(label_action, label_evidence))]

    fn.__name__ = fn.__qualname__ = name  # trl logs rewards/<__name__>/mean
    return fn


def make_reward_terms(end_ids: EndIds) -> dict[str, RewardFn]:
    """One trl reward function per registered term, in registry order; `end_ids`: the token ids that
    end a completion (pulse.policy.end_tokens.end_token_ids)."""
    return {name: _batch_fn(name, term, end_ids) for name, term in REWARD_TERMS.items()}


def total_reward(completion: Any, gold: Decision, weights: Mapping[str, float]) -> float:
    """The weighted sum for one completion (tests, analysis); `weights` holds one weight per term."""
    parsed = parse_completion(completion_text(completion))
    return sum(weights[name] * term(parsed, gold) for name, term in REWARD_TERMS.items())
