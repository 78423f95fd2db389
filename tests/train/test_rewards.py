from pathlib import Path

import pytest

from pulse.core.records import Decision
from pulse.train.rewards import make_reward_terms, total_reward

PULSE = {"correct_action": 1.0, "correct_decision": 0.5, "wrong_intervention": -1.0, "well_formed": 0.0}
NO_PENALTY = {**PULSE, "wrong_intervention": 0.0}
INTERVENE_M1 = Decision("intervene", ("m1",))


@pytest.mark.parametrize(
    "completion,gold,pulse,no_penalty",
    [
        ('{"action": "intervene", "evidence": ["m1"]}', INTERVENE_M1, 1.5, 1.5),  # right, cites the conflict
        (
            '{"action": "intervene", "evidence": ["m2"]}',
            INTERVENE_M1,
            0.0,
            1.0,
        ),  # right action, wrong evidence
        ('{"action": "intervene", "evidence": ["m1"]}', Decision("silent"), -1.0, 0.0),  # wrong interruption
        ('{"action": "intervene", "evidence": ["m1"]}', Decision("supplement", ("m1",)), -1.0, 0.0),
        ('{"action": "silent"}', INTERVENE_M1, 0.0, 0.0),  # missed intervention: other error
        ('{"action": "supplement", "evidence": ["m1"]}', Decision("silent"), 0.0, 0.0),
        ('{"action": "silent"}', Decision("silent"), 1.5, 1.5),
        ('{"action": "supplement", "evidence": ["m1", "m4"]}', Decision("supplement", ("m1",)), 1.5, 1.5),
        ('{"action": "supplement", "evidence": ["m4"]}', Decision("supplement", ("m1",)), 1.0, 1.0),
        (
            '{"action": "silent|supplement|intervene"}',
            Decision("silent"),
            0.0,
            0.0,
        ),  # schema copy is not paid
        ("garbage", Decision("silent"), 0.0, 0.0),  # unparseable never counts as a correct silent
    ],
)
def test_eq12_values(completion, gold, pulse, no_penalty):
    assert total_reward(completion, gold, PULSE) == pulse
    assert total_reward(completion, gold, NO_PENALTY) == no_penalty


def test_untermintated_completion_is_not_paid():
    terms = make_reward_terms(end_ids=2)
    kw = dict(
        completions=['{"action": "silent"}'] * 2,
        label_action=["silent"] * 2,
        label_evidence=[[], []],
        completion_ids=[[5, 6, 2], [5, 6, 7]],
    )
    assert terms["correct_action"](**kw) == [1.0, 0.0]
    assert terms["correct_decision"](**kw) == [1.0, 0.0]
    assert terms["well_formed"](**kw) == [1.0, 0.0]


def test_pure_eq12_with_zero_evidence_bonus():
    eq12 = {**PULSE, "correct_decision": 0.0}
    assert total_reward('{"action": "intervene", "evidence": ["m1"]}', INTERVENE_M1, eq12) == 1.0
    assert total_reward('{"action": "intervene", "evidence": ["m1"]}', Decision("silent"), eq12) == -1.0
    assert total_reward('{"action": "silent"}', INTERVENE_M1, eq12) == 0.0


def test_every_registered_term_has_a_weight_in_the_reward_configs():
    import yaml

    from pulse.config.schema import RewardConfig
    from pulse.train.rewards import REWARD_TERMS

    assert list(make_reward_terms(None)) == list(REWARD_TERMS) == list(PULSE)
    assert RewardConfig().weights == PULSE  # the default is configs/reward/pulse.yaml's
    root = Path(__file__).resolve().parents[2] / "configs" / "reward"
    assert set(yaml.safe_load((root / "pulse.yaml").read_text())["weights"]) == set(REWARD_TERMS)


def test_trl_logs_each_term_under_its_name():
    assert [f.__name__ for f in make_reward_terms(None).values()] == list(PULSE)


# (completion, gold, total with reward=pulse, reward=no_penalty, ODD): computed with the code before
# the terms became registered functions (pulse/train/rewards.py at d8751b5); the totals must not move.
ODD = {"correct_action": 0.7, "correct_decision": 0.3, "wrong_intervention": -1.3, "well_formed": 0.11}
FIXED = [
    ('{"action": "intervene", "evidence": ["m1"]}', Decision("intervene", ("m1",)), 1.5, 1.5, 1.11),
    (
        '{"action": "intervene", "evidence": ["m2"]}',
        Decision("intervene", ("m1",)),
        0.0,
        1.0,
        -0.4900000000000001,
    ),
    ('{"action": "intervene", "evidence": ["m1"]}', Decision("silent", ()), -1.0, 0.0, -1.19),
    ('{"action": "intervene", "evidence": ["m1"]}', Decision("supplement", ("m1",)), -1.0, 0.0, -1.19),
    ('{"action": "silent"}', Decision("intervene", ("m1",)), 0.0, 0.0, 0.11),
    ('{"action": "supplement", "evidence": ["m1"]}', Decision("silent", ()), 0.0, 0.0, 0.11),
    ('{"action": "silent"}', Decision("silent", ()), 1.5, 1.5, 1.11),
    ('{"action": "supplement", "evidence": ["m1", "m4"]}', Decision("supplement", ("m1",)), 1.5, 1.5, 1.11),
    (
        '{"action": "supplement", "evidence": ["m4"]}',
        Decision("supplement", ("m1",)),
        1.0,
        1.0,
        0.8099999999999999,
    ),
    ('{"action": "silent|supplement|intervene"}', Decision("silent", ()), 0.0, 0.0, 0.0),
    ("garbage", Decision("silent", ()), 0.0, 0.0, 0.0),
    (
        'Sure: {"action": "supplement", "evidence": ["m3"]} done',
        Decision("supplement", ("m3",)),
        0.0,
        0.0,
        0.0,
    ),
    (
        '{"action": "intervene", "evidence": []}',
        Decision("intervene", ("m5",)),
        0.0,
        1.0,
        -0.4900000000000001,
    ),
]
# the same completions as one trl batch, completion_ids ending in EOS (2) except every third (7)
FIXED_BATCH_ODD = [
    0.0,
    -0.4900000000000001,
    -1.19,
    0.0,
    0.11,
    0.11,
    0.0,
    1.11,
    0.8099999999999999,
    0.0,
    0.0,
    0.0,
    0.0,
]


@pytest.mark.parametrize("completion,gold,pulse,no_penalty,odd", FIXED)
def test_total_reward_unchanged_by_the_registry(completion, gold, pulse, no_penalty, odd):
    assert total_reward(completion, gold, PULSE) == pytest.approx(pulse, abs=1e-12)
    assert total_reward(completion, gold, NO_PENALTY) == pytest.approx(no_penalty, abs=1e-12)
    assert total_reward(completion, gold, ODD) == pytest.approx(odd, abs=1e-12)


def test_weighted_trl_batch_unchanged_by_the_registry():
    from pulse.train.rewards import term_weights

    terms = make_reward_terms(end_ids=2)
    kw = dict(
        completions=[c for c, *_ in FIXED],
        label_action=[g.action for _, g, *_ in FIXED],
        label_evidence=[list(g.evidence) for _, g, *_ in FIXED],
        completion_ids=[[5, 2] if i % 3 else [5, 7] for i in range(len(FIXED))],
    )
    per_term = [fn(**kw) for fn in terms.values()]
    totals = [sum(w * vals[i] for w, vals in zip(term_weights(ODD), per_term)) for i in range(len(FIXED))]
    assert totals == pytest.approx(FIXED_BATCH_ODD, abs=1e-12)


@pytest.mark.parametrize(
    "weights,match",
    [
        ({**PULSE, "corect_action": 1.0}, r"reward\.weights\.corect_action.*did you mean 'correct_action'"),
        ({k: v for k, v in PULSE.items() if k != "well_formed"}, r"'reward\.weights'.*well_formed"),
    ],
)
def test_unknown_or_missing_term_is_a_config_error_naming_the_key(weights, match):
    from pulse.config.schema import ConfigError, RewardConfig, TrainConfig, to_typed

    with pytest.raises(ConfigError, match=match) as e:
        RewardConfig(weights=weights)
    assert "known terms: correct_action, correct_decision, wrong_intervention, well_formed" in str(e.value)
    with pytest.raises(ConfigError, match=match):
        to_typed({"reward": {"name": "x", "weights": weights}}, TrainConfig)


def test_train_cli_exits_2_on_an_unknown_reward_term(tmp_path):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "pulse.cli.train", "+reward.weights.bonus=1.0", f"out_dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "reward.weights.bonus" in r.stderr and "known terms" in r.stderr


def test_a_run_recorded_with_flat_reward_weights_still_resumes(tmp_path):
    """config.yaml written before reward.weights became a mapping names the same run."""
    import dataclasses

    import yaml

    from pulse.config.schema import TrainConfig, as_dict
    from pulse.train.pipeline import CONFIG_RECORD, _conflict

    cfg = TrainConfig(out_dir=str(tmp_path))
    old = as_dict(cfg)
    old["reward"] = {"name": "pulse", **PULSE}  # the pre-registry layout
    (tmp_path / CONFIG_RECORD).write_text(yaml.safe_dump(old, sort_keys=False))
    (tmp_path / "sft").mkdir()
    assert _conflict(cfg, tmp_path) is None
    other = dataclasses.replace(
        cfg, reward=dataclasses.replace(cfg.reward, weights={**PULSE, "well_formed": 0.2})
    )
    assert "reward.weights.well_formed" in _conflict(other, tmp_path)
