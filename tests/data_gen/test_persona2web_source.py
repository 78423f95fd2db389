"""`pulse gen-data source=persona2web`: users anchored on the 50 real users / 150 real task groups."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def p2w_dir():
    root = os.environ.get("PULSE_DATA_DIR", "")
    if not root or not (Path(root) / "persona2web").is_dir():
        pytest.skip("needs the real persona2web data: set PULSE_DATA_DIR (docs/benchmarks.md)")
    return root


def test_anchored_users_hold_the_real_gold_and_histories_recover_it(p2w_dir):
    import random

    from data_gen.world.history import generate_history
    from data_gen.world.preferences import derive_facts
    from eval.real.persona2web.loader import read_groups
    from eval.real.persona2web.synthetic_world import anchored_users

    groups = read_groups(p2w_dir)
    assert len(groups) == 150
    users = anchored_users(groups, seed=0)
    assert len(users) == 50 and sum(len(gs) for _, _, gs in users) == 150
    persona, domains, tasks = users[0]
    g = next(x for x in groups if x["task_group"] == tasks[0].group_id)
    spec = domains[tasks[0].domain]
    assert spec.slot("choice").values[0] == g["L2_values"][0].replace("**", "").strip()
    hist = generate_history(persona, domains, random.Random(0))
    current = {
        (f.topic, f.slot): f.value for f in derive_facts(hist) if f.kind == "preference" and f.is_current
    }
    for t in persona.truths:  # the synthesized history reveals exactly the gold preferences
        assert current[(t.domain, t.slot)] == t.value


def test_gen_data_splits_by_user_and_records_the_anchored_share(p2w_dir, tmp_path):
    from data_gen.build import build_dataset
    from data_gen.config import GenDataConfig

    card = build_dataset(
        GenDataConfig(seed=0, n_users=62, prefixes_per_task=2, source="persona2web", data_dir=p2w_dir),
        tmp_path / "d",
    )
    src = card["source"]
    assert src["name"] == "persona2web" and 0.5 < src["anchored_share"] < 1.0
    per = src["real_users_per_split"]
    assert sum(map(len, per.values())) == 50 and per["test"] and per["validation"]
    assert not set(per["train"]) & (set(per["test"]) | set(per["validation"]))  # no eval user is trained on
    assert src["real_task_groups"] + len(src["real_task_groups_skipped"]) == 150
    assert src["real_task_groups"] >= 140
    from datasets import load_from_disk

    dd = load_from_disk(str(tmp_path / "d"))
    users = {s: set(dd[s]["user_id"]) for s in dd}
    assert not users["train"] & users["test"] and not users["train"] & users["validation"]
    assert "anchored on real Persona2Web" in (tmp_path / "d" / "README.md").read_text()


def test_synthetic_source_stays_the_default_and_reads_no_data(monkeypatch):
    from data_gen.build import generate_examples
    from data_gen.card import make_card
    from data_gen.config import GenDataConfig

    monkeypatch.delenv("PULSE_DATA_DIR", raising=False)
    cfg = GenDataConfig(seed=0, n_users=6, prefixes_per_task=1)
    assert cfg.source == "synthetic"
    card = make_card(cfg, generate_examples(cfg))
    assert card["source"] == {"name": "synthetic", "anchored_share": 0.0}
    with pytest.raises(ValueError, match="source"):
        GenDataConfig(source="persona2")
