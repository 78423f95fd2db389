import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("WANDB_MODE", "offline")
# A bug inside the policy parser must fail the test that hits it, not pass as a counted "parse
# failure" (pulse/core/policy_io.py: parse_completion re-raises internal errors under this switch).
# Set here, before any test runs, so subprocesses of the e2e tests inherit it too.
os.environ["PULSE_STRICT_PARSER"] = "1"


@pytest.fixture(scope="session")
def small_dataset(tmp_path_factory):
    """A small generated policy dataset (same generator as the real one)."""
    from data_gen.build import build_dataset
    from data_gen.config import GenDataConfig

    path = tmp_path_factory.mktemp("data") / "policy"
    build_dataset(GenDataConfig(seed=3, n_users=24, tasks_per_user=2, prefixes_per_task=4), path)
    return path


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory, small_dataset):
    """A random-init tiny Qwen3 with a tokenizer trained on the small dataset."""
    from pulse.config.schema import TinyModelSpec
    from pulse.models.tiny_qwen3 import build_tiny_qwen3
    from pulse.train.data import load_examples, tokenizer_corpus

    examples = load_examples(small_dataset, "train")
    path = tmp_path_factory.mktemp("models") / "tiny"
    spec = TinyModelSpec(
        vocab_size=600,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        max_position_embeddings=512,
    )
    return build_tiny_qwen3(path, tokenizer_corpus(examples, "compact_marked"), spec)
