"""What this code relies on inside trl: the private GRPOTrainer methods `timed()` overrides, and the
end-of-completion ids trl stops generation on (the reward must accept the same)."""

import inspect
from types import SimpleNamespace

from trl import GRPOTrainer

from pulse.policy.end_tokens import end_token_ids
from pulse.train.grpo import timed
from pulse.train.rewards import make_reward_terms


def test_timed_overrides_existing_trl_methods():
    """A rename in trl would make `timed` time nothing (and time/*_s go silently to 0)."""
    expected = {
        "_generate": ["self", "prompts"],
        "_calculate_rewards": ["self", "inputs", "prompts", "completions", "completion_ids_list"],
        "training_step": ["self", "model", "inputs", "num_items_in_batch"],
    }
    for name, params in expected.items():
        assert list(inspect.signature(getattr(GRPOTrainer, name)).parameters) == params, name
    timed_cls = timed(GRPOTrainer)
    for name in expected:
        assert getattr(timed_cls, name) is not getattr(GRPOTrainer, name)


def test_qwen3_end_tokens_finish_a_completion():
    """Qwen3: EOS <|im_end|> (151645); generation_config also stops on <|endoftext|> (151643)."""
    tok = SimpleNamespace(eos_token_id=151645)
    ends = end_token_ids(tok, SimpleNamespace(eos_token_id=[151645, 151643]))
    assert ends == [151645, 151643]
    fn = make_reward_terms(ends)["correct_action"]
    text = '{"action": "silent"}'
    for last in (151645, 151643):
        assert fn([text], ["silent"], completion_ids=[[5, 6, last]]) == [1.0]
    assert fn([text], ["silent"], completion_ids=[[5, 6, 7]]) == [0.0]  # cut by the cap


def test_tiny_model_end_ids_are_its_eos_alone():
    """The CPU default: generation_config's eos is the tokenizer's, so nothing changes there."""
    assert end_token_ids(SimpleNamespace(eos_token_id=2), SimpleNamespace(eos_token_id=2)) == [2]
    assert end_token_ids(SimpleNamespace(eos_token_id=2), None) == [2]
