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
    terms = make_reward_terms(eos_token_id=2)
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


def test_term_names_match_config_keys():
    from pulse.config.schema import RewardConfig

    assert set(make_reward_terms(None)) == set(RewardConfig.__dataclass_fields__) - {"name"}
