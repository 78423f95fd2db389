"""The SFT example order (pulse/train/length_pools.py): less padding, every row once per epoch, and
batches that still mix lengths across the epoch instead of ending it on the shortest rows."""

from collections import Counter

from pulse.train.length_pools import length_pooled, row_length


def _row(i: int, n_chars: int) -> dict:
    return {
        "prompt": [{"role": "user", "content": f"{i:04d}" + "x" * n_chars}],
        "completion": [{"role": "assistant", "content": "silent" if n_chars < 50 else "intervene"}],
    }


def _rows(n: int = 640) -> list[dict]:
    import random

    rng = random.Random(7)
    return [_row(i, rng.randint(10, 250)) for i in range(n)]


def _padding(rows: list[dict], batch: int) -> float:
    lengths = [row_length(r) for r in rows]
    batches = [lengths[j : j + batch] for j in range(0, len(rows), batch)]
    return sum(max(b) * len(b) for b in batches) / sum(lengths)


def test_every_row_once_per_epoch_and_more_epochs_reshuffle():
    rows = _rows()
    one = length_pooled(rows, n_rows=len(rows), batch_size=16, pool_batches=4, seed=0)
    assert Counter(r["prompt"][0]["content"] for r in one) == Counter(r["prompt"][0]["content"] for r in rows)
    two = length_pooled(rows, n_rows=2 * len(rows) - 16, batch_size=16, pool_batches=4, seed=0)
    assert len(two) == 2 * len(rows) - 16 and two[: len(rows)] == one
    assert two[len(rows) : len(rows) + 64] != one[:64]  # the second epoch is drawn anew


def test_pools_cut_padding_and_keep_batches_mixed():
    rows = _rows()
    pooled = length_pooled(rows, n_rows=len(rows), batch_size=16, pool_batches=4, seed=0)
    random_order = length_pooled(rows, n_rows=len(rows), batch_size=16, pool_batches=1, seed=0)
    assert _padding(pooled, 16) < 0.85 * _padding(random_order, 16)
    # the end of the epoch is not the shortest rows: the last batches' mean length is near the overall one
    lengths = [row_length(r) for r in pooled]
    tail = lengths[-64:]
    assert sum(tail) / len(tail) > 0.6 * sum(lengths) / len(lengths)


def test_same_seed_same_order_other_seed_other_order():
    rows = _rows()
    a = length_pooled(rows, n_rows=len(rows), batch_size=16, pool_batches=4, seed=0)
    assert a == length_pooled(rows, n_rows=len(rows), batch_size=16, pool_batches=4, seed=0)
    assert a != length_pooled(rows, n_rows=len(rows), batch_size=16, pool_batches=4, seed=1)


def test_sft_config_reads_the_rows_in_order_only_when_pooled(tmp_path):
    import dataclasses

    from pulse.config.schema import TrainConfig
    from pulse.train.sft import build_sft_config

    base = TrainConfig()
    assert base.sft.length_pool_batches == 4
    for pools, strategy in ((4, "sequential"), (0, "random")):
        cfg = dataclasses.replace(base, sft=dataclasses.replace(base.sft, length_pool_batches=pools))
        assert build_sft_config(cfg, tmp_path).train_sampling_strategy == strategy
