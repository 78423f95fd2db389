"""Which training prompts GRPO sees (`grpo.selection_candidates`).

GRPO learns only from a group whose completions differ in reward: the advantage is the reward minus the
group's mean, so a group rewarded alike contributes no gradient. Drawn from the whole training set, most
prompts are ones the SFT start already decides the same way every time (60 % of the groups of the CPU
pretrained recipe's seed 1 were rewarded alike, and its mean reward did not rise in 12 steps).

Before training, N candidate prompts (drawn with the run's seed) are scored under the starting policy:
the probability of each action's opening (`{"action": "<action>"`, the prefix every completion of that
action starts with, pulse/core/policy_io.py) at the sampling temperature, renormalised over the three
actions. From those and the reward weights, the chance that a group of `generations_per_prompt`
completions is rewarded alike follows from each action's reward (`action_rewards`, the registered reward
terms applied to a completion choosing it; a right action is taken to cite the right evidence: a wrong
citation only adds spread, so this is an upper bound on "alike"). GRPO trains on the
steps x prompts_per_step candidates least likely to be rewarded alike (ties: the seeded draw order), each
seen once. This is DAPO's dynamic sampling (filter groups with no reward spread) done once, before
training, from the SFT start, since on CPU every extra sampled group costs seconds. The gold labels used
are the training set's own, which the reward reads anyway; nothing of the evaluation data is read.

The choice is written to `<run>/prompt_selection.json` and read back on resume, so a resumed run trains
on the same prompts.
"""

from __future__ import annotations

import json
import logging
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from pulse.core.examples import PolicyExample
from pulse.core.policy_io import ParseResult, PromptStyle, render_prompt
from pulse.core.records import ACTIONS, Decision
from pulse.train.rewards import REWARD_TERMS
from pulse.utils.atomic import atomic_write_json

log = logging.getLogger("pulse.train")

SELECTION_FILE = "prompt_selection.json"


def action_prefix(action: str) -> str:
    """The text every completion choosing `action` starts with (render_completion writes `action` first)."""
    return json.dumps({"action": action})[:-1]


def action_rewards(gold: Decision, weights: Mapping[str, float]) -> dict[str, float]:
    """Each action's reward for a well-formed completion choosing it, from the registered reward terms
    themselves (pulse/train/rewards.py, the one source of the rule): a right action cites the gold
    evidence (the evidence bonus taken as earned), a wrong one cites nothing."""
    out: dict[str, float] = {}
    for action in ACTIONS:
        parsed = ParseResult(Decision(action, gold.evidence if action == gold.action else ()))
        out[action] = sum(weights.get(name, 0.0) * term(parsed, gold) for name, term in REWARD_TERMS.items())
    return out


def chance_alike(probs: Mapping[str, float], rewards: Mapping[str, float], group: int) -> float:
    """The chance that `group` completions sampled with action probabilities `probs` all earn the same
    action reward: the sum, over the distinct reward values, of (their actions' probability) ** group."""
    by_value: dict[float, float] = {}
    for action, p in probs.items():
        by_value[rewards[action]] = by_value.get(rewards[action], 0.0) + p
    return sum(p**group for p in by_value.values())


def action_probabilities(
    model,
    tokenizer,
    examples: Sequence[PolicyExample],
    style: PromptStyle,
    template_kwargs: Mapping[str, Any],
    temperature: float,
    batch_size: int = 8,
) -> list[dict[str, float]]:
    """For each example, P(action) under `model` at `temperature`: the probability of the action's
    opening tokens after the rendered prompt, renormalised over the three actions."""
    import torch

    prefixes = [tokenizer(action_prefix(a), add_special_tokens=False)["input_ids"] for a in ACTIONS]
    rows: list[tuple[list[int], int]] = []  # (ids, where the action opening starts)
    for ex in examples:
        text = tokenizer.apply_chat_template(
            render_prompt(ex.inp, style), add_generation_prompt=True, tokenize=False, **template_kwargs
        )
        prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
        rows.extend((prompt + p, len(prompt)) for p in prefixes)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    scores: list[float] = []
    model.eval()
    with torch.no_grad():
        for i in range(0, len(rows), batch_size * len(ACTIONS)):
            chunk = rows[i : i + batch_size * len(ACTIONS)]
            width = max(len(ids) for ids, _ in chunk)
            ids = torch.tensor([x + [pad] * (width - len(x)) for x, _ in chunk])
            mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x, _ in chunk])
            logits = model(input_ids=ids, attention_mask=mask).logits.float() / temperature
            logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, ids[:, 1:, None])[..., 0]
            for row, (x, start) in enumerate(chunk):  # the tokens from `start` on: logits at start-1 on
                scores.append(float(logp[row, start - 1 : len(x) - 1].sum()))
    out = []
    for k in range(0, len(scores), len(ACTIONS)):
        group = torch.tensor(scores[k : k + len(ACTIONS)])
        out.append(dict(zip(ACTIONS, torch.softmax(group, dim=0).tolist())))
    return out


def select_prompts(
    model,
    tokenizer,
    examples: Sequence[PolicyExample],
    *,
    candidates: int,
    keep: int,
    seed: int,
    style: PromptStyle,
    template_kwargs: Mapping[str, Any],
    temperature: float,
    group: int,
    weights: Mapping[str, float],
    run_dir: Path,
) -> list[PolicyExample]:
    """The `keep` examples GRPO trains on (see the module docstring); reuses `run_dir`'s record when a
    resumed run already chose them."""
    record = run_dir / SELECTION_FILE
    if record.exists():
        previous = _previous_choice(record, examples)
        if previous is not None:
            log.info("GRPO prompts: the %d chosen before (%s)", len(previous), record)
            return previous
    drawn = random.Random(seed).sample(range(len(examples)), min(candidates, len(examples)))
    probs = action_probabilities(
        model, tokenizer, [examples[i] for i in drawn], style, template_kwargs, temperature
    )
    alike = [chance_alike(p, action_rewards(examples[i].gold, weights), group) for i, p in zip(drawn, probs)]
    order = sorted(range(len(drawn)), key=lambda k: alike[k])[:keep]  # stable: ties keep the draw order
    chosen = [examples[drawn[k]] for k in order]
    summary = {
        "candidates": len(drawn),
        "kept": len(chosen),
        "expected_alike_candidates": round(fmean(alike), 4),
        "expected_alike_kept": round(fmean([alike[k] for k in order]), 4),
        "gold_actions_kept": dict(Counter(ex.gold.action for ex in chosen)),
        "gold_actions_candidates": dict(Counter(examples[i].gold.action for i in drawn)),
    }
    atomic_write_json(
        record,
        {
            **summary,
            "chosen_index": [drawn[k] for k in order],
            "chosen_id": [ex.example_id for ex in chosen],
            "p_gold_kept": [round(probs[k][examples[drawn[k]].gold.action], 4) for k in order],
            "candidate_index": drawn,
            "alike": [round(a, 6) for a in alike],
        },
    )
    log.info("GRPO prompts: %s", summary)
    print(
        f"[pulse train] GRPO prompts: {len(chosen)} of {len(drawn)} candidates; chance a group is rewarded "
        f"alike {summary['expected_alike_candidates']:.2f} -> {summary['expected_alike_kept']:.2f}",
        flush=True,
    )
    return chosen


def _previous_choice(record: Path, examples: Sequence[PolicyExample]) -> list[PolicyExample] | None:
    """The examples a resumed run chose before, or None (with a warning) when the record does not match
    this training set (the run directory's fingerprints make that rare: the data is checked first)."""
    data = json.loads(record.read_text())
    index, ids = data.get("chosen_index", []), data.get("chosen_id", [])
    if index and all(0 <= i < len(examples) for i in index):
        chosen = [examples[i] for i in index]
        if [ex.example_id for ex in chosen] == ids:
            return chosen
    log.warning("%s does not match this training set; choosing the GRPO prompts again", record)
    return None
