"""ensure_dataset: a dataset made by another request or other generator code is regenerated, not reused
(issue 17: committed demo figures came from stale artifacts); the runtime source mixes as configured."""

from __future__ import annotations

import json

from data_gen.ensure import ensure_dataset
from pulse.config.schema import DataConfig
from pulse.train.data import load_examples, recorded_fingerprint


def test_stale_fingerprint_regenerates(tmp_path):
    cfg = DataConfig(path=str(tmp_path / "d"), n_users=24)
    path = ensure_dataset(cfg)
    fp = recorded_fingerprint(path)
    assert fp and len(fp) == 64
    card = json.loads((path / "dataset_card.json").read_text())
    card["fingerprint"] = "0" * 64
    (path / "dataset_card.json").write_text(json.dumps(card))
    ensure_dataset(cfg)
    assert recorded_fingerprint(path) == fp
    # another request (seed) gives another fingerprint
    assert (
        recorded_fingerprint(ensure_dataset(DataConfig(path=str(tmp_path / "e"), n_users=24, seed=1))) != fp
    )


def test_runtime_source_mixes_by_fraction(tmp_path):
    cfg = DataConfig(
        path=str(tmp_path / "rt"), n_users=24, source="runtime", runtime_fraction=0.5, runtime_personas=6
    )
    path = ensure_dataset(cfg)
    card = json.loads((path / "dataset_card.json").read_text())
    mix = card["source"]["mix_per_split"]["train"]
    assert card["source"]["name"] == "runtime" and mix["runtime"] == mix["synthetic"] > 0
    train = load_examples(path, "train")
    assert sum(e.case_type.startswith("rt_") for e in train) == mix["runtime"]


def test_unreadable_dataset_card_is_named_not_a_traceback(tmp_path):
    import pytest

    from pulse.train.data import DataError

    (tmp_path / "dataset_card.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match="dataset_card.json"):
        recorded_fingerprint(tmp_path)
    (tmp_path / "dataset_card.json").write_bytes(b'{"fingerprint": "\xff"}')
    with pytest.raises(DataError, match="UTF-8"):
        recorded_fingerprint(tmp_path)
    (tmp_path / "dataset_card.json").unlink()
    assert recorded_fingerprint(tmp_path) is None
