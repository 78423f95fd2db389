"""GRPO's prompt selection (pulse/train/prompt_selection.py): the reward-spread arithmetic, the action
probabilities against a one-sequence-at-a-time computation, the choice, its record and its reuse."""

import dataclasses
import json

import pytest

from pulse.config.schema import ConfigError, TrainConfig
from pulse.core.policy_io import gold_completion
from pulse.core.records import ACTIONS, Decision
from pulse.train.prompt_selection import (
    SELECTION_FILE,
    action_prefix,
    action_probabilities,
    action_rewards,
    chance_alike,
    select_prompts,
)

PULSE = {"correct_action": 1.0, "correct_decision": 0.5, "wrong_intervention": -1.0, "well_formed": 0.0}
NO_PENALTY = {**PULSE, "wrong_intervention": 0.0}


def test_rewards_and_chance_alike():
    gold = Decision("supplement", ("m1",))
    r = action_rewards(gold, PULSE)
    assert r == {"silent": 0.0, "supplement": 1.5, "intervene": -1.0}
    # the shaping term pays every well-formed completion alike
    assert action_rewards(gold, {**PULSE, "well_formed": 0.25})["silent"] == 0.25
    # a right intervention earns the action and evidence terms, not the penalty
    assert action_rewards(Decision("intervene", ("m2",)), PULSE) == {
        "silent": 0.0,
        "supplement": 0.0,
        "intervene": 1.5,
    }
    half = {"silent": 0.5, "supplement": 0.5, "intervene": 0.0}
    assert chance_alike(half, r, 4) == pytest.approx(2 * 0.5**4)
    # without the penalty a wrong intervention earns what silence earns: one reward value for both
    split = {"silent": 0.5, "supplement": 0.0, "intervene": 0.5}
    assert chance_alike(split, action_rewards(gold, NO_PENALTY), 4) == pytest.approx(1.0)
    assert chance_alike(split, r, 4) == pytest.approx(2 * 0.5**4)
    assert chance_alike({"silent": 1.0, "supplement": 0.0, "intervene": 0.0}, r, 4) == pytest.approx(1.0)


def test_action_prefix_opens_every_gold_completion(small_dataset):
    from pulse.train.data import load_examples

    seen = set()
    for ex in load_examples(small_dataset, "train"):
        text = gold_completion(ex.inp, ex.gold, "compact_marked")
        prefix = action_prefix(ex.gold.action)
        assert text.startswith(prefix) and text[len(prefix)] in ",}"  # the action's closing quote included
        seen.add(ex.gold.action)
    assert seen == set(ACTIONS)


def _one_at_a_time(model, tokenizer, ex, temperature):
    """P(action) from three unpadded forward passes: what the batched scorer must reproduce."""
    import torch

    from pulse.core.policy_io import render_prompt

    text = tokenizer.apply_chat_template(
        render_prompt(ex.inp, "compact_marked"), add_generation_prompt=True, tokenize=False
    )
    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    scores = []
    for a in ACTIONS:
        ids = prompt + tokenizer(action_prefix(a), add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids])).logits[0].float() / temperature
        logp = torch.log_softmax(logits, dim=-1)
        scores.append(sum(float(logp[i - 1, ids[i]]) for i in range(len(prompt), len(ids))))
    return dict(zip(ACTIONS, torch.softmax(torch.tensor(scores), 0).tolist()))


def test_batched_probabilities_match_one_sequence_at_a_time(tiny_model, small_dataset):
    from pulse.models.loading import load_model, load_tokenizer
    from pulse.train.data import load_examples

    model, tok = load_model(str(tiny_model)), load_tokenizer(str(tiny_model))
    examples = load_examples(small_dataset, "train")[:5]  # prompts of different lengths: padding inside
    got = action_probabilities(model, tok, examples, "compact_marked", {}, temperature=0.7, batch_size=2)
    for ex, probs in zip(examples, got):
        want = _one_at_a_time(model, tok, ex, 0.7)
        assert sum(probs.values()) == pytest.approx(1.0)
        for a in ACTIONS:
            assert probs[a] == pytest.approx(want[a], abs=1e-4)


def test_selection_keeps_the_groups_likeliest_to_differ_and_is_reused(tiny_model, small_dataset, tmp_path):
    from pulse.models.loading import load_model, load_tokenizer
    from pulse.train.data import load_examples

    model, tok = load_model(str(tiny_model)), load_tokenizer(str(tiny_model))
    examples = load_examples(small_dataset, "train")
    kw = dict(
        candidates=12,
        keep=4,
        seed=0,
        style="compact_marked",
        template_kwargs={},
        temperature=1.0,
        group=4,
        weights=PULSE,
        run_dir=tmp_path,
    )
    chosen = select_prompts(model, tok, examples, **kw)
    record = json.loads((tmp_path / SELECTION_FILE).read_text())
    assert len(chosen) == 4 and record["candidates"] == 12 and record["kept"] == 4
    assert [ex.example_id for ex in chosen] == record["chosen_id"]
    assert record["expected_alike_kept"] <= record["expected_alike_candidates"]
    # the kept ones are the four least likely to be rewarded alike among the scored candidates
    drawn = [examples[i] for i in record["candidate_index"]]
    probs = action_probabilities(model, tok, drawn, "compact_marked", {}, 1.0)
    alike = [chance_alike(p, action_rewards(ex.gold, PULSE), 4) for ex, p in zip(drawn, probs)]
    assert alike == pytest.approx(record["alike"], abs=1e-5)
    by_index = dict(zip(record["candidate_index"], alike))
    kept = sorted(by_index[i] for i in record["chosen_index"])
    assert kept == pytest.approx(sorted(alike)[:4], abs=1e-9)
    assert len(set(record["chosen_index"])) == 4 and set(record["chosen_index"]) <= set(by_index)
    # a resumed run reads its record: no model is asked
    again = select_prompts(None, None, examples, **kw)
    assert [ex.example_id for ex in again] == record["chosen_id"]


def test_too_few_candidates_is_a_config_error():
    base = TrainConfig()
    with pytest.raises(ConfigError, match="grpo.selection_candidates"):
        dataclasses.replace(
            base, grpo=dataclasses.replace(base.grpo, steps=4, prompts_per_step=4, selection_candidates=10)
        )
    ok = dataclasses.replace(base.grpo, steps=4, prompts_per_step=4, selection_candidates=16)
    assert ok.selection_candidates == 16


def test_decision_point_prompts_keep_what_the_pre_check_asks(small_dataset):
    """grpo.prompts=decision_points keeps exactly the examples the run-time pre-check would ask the policy
    about; on the generator's examples those are the ones the gold rule does not answer silent."""
    from pulse.agent.precheck import needs_decision
    from pulse.train.data import load_examples
    from pulse.train.grpo import decision_point_prompts

    examples = load_examples(small_dataset, "train")
    kept = decision_point_prompts(examples)
    assert 0 < len(kept) < len(examples)
    assert [e.example_id for e in kept] == [e.example_id for e in examples if needs_decision(e.inp)]
    assert {e.gold.action for e in kept} <= {"supplement", "intervene"}
    assert [e for e in examples if e.gold.action != "silent" and e not in kept] == []
    silent_only = [e for e in examples if not needs_decision(e.inp)]
    with pytest.raises(ConfigError, match="grpo.prompts=decision_points"):
        decision_point_prompts(silent_only)


def test_grpo_prompts_config_is_typed():
    from pulse.config.schema import to_typed

    cfg = to_typed({"grpo": {"prompts": "decision_points"}}, TrainConfig)
    assert cfg.grpo.prompts == "decision_points"
    with pytest.raises(ConfigError, match="grpo.prompts"):
        to_typed({"grpo": {"prompts": "decision-points"}}, TrainConfig)
