"""Splits, determinism, row round trip, atomic writes and the dataset card.

Run: .venv/bin/python -m pytest tests/data_gen -q
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import pytest

from data_gen import build as build_mod
from data_gen.build import build_dataset, generate_examples
from data_gen.config import GenDataConfig
from pulse.core.examples import ROW_COLUMNS, example_from_row

CFG = GenDataConfig(seed=7, n_users=36, tasks_per_user=3, prefixes_per_task=4)


@cache
def examples(seed: int = 7):
    return generate_examples(GenDataConfig(seed=seed, n_users=36, tasks_per_user=3, prefixes_per_task=4))


def rows(splits):
    return {s: [e.to_row() for e in exs] for s, exs in splits.items()}


def test_no_user_or_task_group_in_two_splits():
    sp = examples()
    users = {s: {e.user_id for e in exs} for s, exs in sp.items()}
    groups = {s: {e.task_group for e in exs} for s, exs in sp.items()}
    assert all(users[s] for s in ("train", "validation", "test"))
    for a, b in (("train", "validation"), ("train", "test"), ("validation", "test")):
        assert not users[a] & users[b] and not groups[a] & groups[b]
    ids = [e.example_id for exs in sp.values() for e in exs]
    assert len(ids) == len(set(ids))


def test_deterministic_by_seed():
    assert rows(examples(7)) == rows(generate_examples(CFG))
    assert rows(examples(7)) != rows(examples(8))


def test_row_round_trip_on_every_row():
    for exs in examples().values():
        for e in exs:
            row = e.to_row()
            assert tuple(row) == ROW_COLUMNS
            assert example_from_row(row, e.example_id) == e


def test_build_writes_dataset_and_card(tmp_path):
    from datasets import load_from_disk

    out = tmp_path / "ds"
    card = build_dataset(CFG, out)
    dd = load_from_disk(str(out))
    assert set(dd) == {"train", "validation", "test"}
    assert json.loads((out / "dataset_card.json").read_text()) == card
    assert "## labels" in (out / "README.md").read_text()
    assert card["seed"] == 7 and card["generator_version"]
    for split, ds in dd.items():
        assert ds.column_names == list(ROW_COLUMNS)
        c = card["splits"][split]
        assert c["examples"] == len(ds)
        assert c["labels"] == dict(sorted(Counter(ds["label_action"]).items()))
        assert c["case_types"] == dict(sorted(Counter(ds["case_type"]).items()))
        assert c["users"] == len(set(ds["user_id"])) and c["task_groups"] == len(set(ds["task_group"]))
        for i, row in enumerate(ds):
            example_from_row(row, f"{split}[{i}]")
    assert rows(examples()) == {s: list(ds) for s, ds in dd.items()}
    assert card["total"]["examples"] == sum(len(ds) for ds in dd.values())
    # no temp directories left next to the target
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]


def test_failure_mid_write_leaves_no_target(tmp_path, monkeypatch):
    import datasets

    def broken_save(self, path, *a, **k):
        real_save(self, path, *a, **k)  # the data is on disk ...
        raise OSError("disk full")  # ... and then the write fails

    real_save = datasets.DatasetDict.save_to_disk
    monkeypatch.setattr(datasets.DatasetDict, "save_to_disk", broken_save)
    small = GenDataConfig(seed=1, n_users=6, tasks_per_user=1, prefixes_per_task=2)
    with pytest.raises(OSError, match="disk full"):
        build_dataset(small, tmp_path / "ds")
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_previous_dataset(tmp_path, monkeypatch):
    small = GenDataConfig(seed=1, n_users=6, tasks_per_user=1, prefixes_per_task=2)
    out = tmp_path / "ds"
    first = build_dataset(small, out)

    def broken_card(card):
        raise RuntimeError("boom")

    monkeypatch.setattr(build_mod, "card_markdown", broken_card)
    with pytest.raises(RuntimeError, match="boom"):
        build_dataset(GenDataConfig(seed=2, n_users=6, tasks_per_user=1, prefixes_per_task=2), out)
    assert json.loads((out / "dataset_card.json").read_text()) == first
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]
    # and a successful rebuild replaces it
    monkeypatch.undo()
    second = build_dataset(GenDataConfig(seed=2, n_users=6, tasks_per_user=1, prefixes_per_task=2), out)
    assert json.loads((out / "dataset_card.json").read_text()) == second != first
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]


def test_config_rejects_unknown_case_names():
    with pytest.raises(ValueError, match="conflict"):
        generate_examples(GenDataConfig(n_users=3, case_weights={"conflcit": 1.0}))


@pytest.mark.slow
def test_default_size_and_balance():
    sp = generate_examples(GenDataConfig())
    n = {s: len(v) for s, v in sp.items()}
    assert 7000 <= n["train"] <= 9000 and 600 <= n["validation"] <= 1000 and 600 <= n["test"] <= 1000
    allx = [e for v in sp.values() for e in v]
    share = {a: c / len(allx) for a, c in Counter(e.gold.action for e in allx).items()}
    assert 0.40 <= share["silent"] <= 0.50 and 0.20 <= share["supplement"] <= 0.30
    assert 0.25 <= share["intervene"] <= 0.35


def test_config_is_a_hydra_structured_config():
    from omegaconf import OmegaConf

    conf = OmegaConf.merge(OmegaConf.structured(GenDataConfig), {"seed": 5, "case_weights": {"habit": 3.0}})
    cfg = OmegaConf.to_object(conf)
    assert isinstance(cfg, GenDataConfig) and cfg.seed == 5 and cfg.case_weights["habit"] == 3.0
    assert cfg.case_weights["conflict"] > 0  # merged, not replaced
