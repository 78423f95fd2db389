import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("WANDB_MODE", "offline")
# A bug inside the policy parser must fail the test that hits it, not pass as a counted "parse
# failure" (pulse/core/policy_io.py: parse_completion re-raises internal errors under this switch).
# Set here, before any test runs, so subprocesses of the e2e tests inherit it too.
os.environ["PULSE_STRICT_PARSER"] = "1"
# Under pytest-xdist every worker (and the CLI runs it starts) shares the cores: give each its share of
# torch threads. Two workers at Pulse's default of 2 threads each oversubscribe 2 cores, and OpenMP's
# spin-waits then made the training e2e tests 2-5x slower (`make test` on 2 cores: 10 min 52 s with
# 2 threads per worker, 8 min 6 s with 1; docs/speed_and_reliability.md). Set before torch is imported.
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
if _workers > 1:
    _share = str(max(1, (os.cpu_count() or 1) // _workers))
    os.environ.setdefault("PULSE_CPU_THREADS", _share)
    os.environ.setdefault("OMP_NUM_THREADS", _share)


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
