"""Persona2Web: 450 tasks load, gold normalisation, oracle 100 %, request-only per level, Table B3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_data import real_data

from eval.harness import run_eval
from eval.metrics import read_rows

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "persona2web"


def test_gold_normalisation_handles_the_datas_quirks():
    from eval.real.persona2web.gold import (
        gold_sites,
        location_key,
        normalise_text,
        site_matches,
        value_satisfied,
    )

    assert gold_sites("coursera.org.com or udemy.com") == ("coursera.org", "udemy.com")
    assert gold_sites("Google Flights.com") == ("google.com",) and gold_sites("last.fm.com") == ("last.fm",)
    assert site_matches("https://www.Coursera.org/learn/x", gold_sites("coursera.org.com"))
    assert site_matches("smile.amazon.com", ("amazon.com",)) and not site_matches("bing.com", ("amazon.com",))
    assert value_satisfied("Beyonc", normalise_text("Beyonce tour dates"))  # the data's truncated typo
    assert value_satisfied(
        "rating ≥4.6 and ≥1,000 reviews", normalise_text("Rating >=4.6 and >=1000 reviews")
    )
    assert location_key("New York, New York 10001") == location_key("New York, NY 10001") == "10001"


def test_fixture_oracle_and_request_only(tmp_path, eval_cfg):
    for script, web, pref in (("gold", [1, 1, 1], [1, 1, 1]), ("request_only", [0, 0, 1], [0, 1, 1])):
        out = run_eval(
            eval_cfg(
                tmp_path / script,
                "none",
                "persona2web",
                ["agent=scripted", f"agent.script={script}", f"benchmark.path={FIXTURE}"],
            )
        )
        rows = read_rows(out / "episodes.jsonl")
        assert [r["task_id"] for r in rows] == ["Ann_Example_A1", "Ann_Example_A2", "Ann_Example_A3"]
        assert [r["components"]["web_em"] for r in rows] == web, script
        assert [r["components"]["pref_r"] for r in rows] == pref, script


def test_real_450_tasks_oracle_is_100_and_request_only_scores_what_the_levels_imply(tmp_path, eval_cfg):
    real_data("persona2web")
    from eval.tables import render

    sums = {}
    for script in ("gold", "request_only"):
        out = run_eval(
            eval_cfg(tmp_path / script, "none", "persona2web", ["agent=scripted", f"agent.script={script}"])
        )
        rows = read_rows(out / "episodes.jsonl")
        assert (
            len(rows) == 450
            and len({r["user_id"] for r in rows}) == 50
            and all(r["status"] == "ok" for r in rows)
        )
        levels = [r["level"] for r in rows if r["user_id"] == rows[0]["user_id"]]
        assert levels == sorted(levels)  # a user's chain runs level 1, then 2, then 3
        sums[script] = json.loads((out / "summary.json").read_text())
    assert sums["gold"]["components"]["web_em"] == 1.0 and sums["gold"]["components"]["pref_r"] == 1.0
    by = sums["request_only"]["components_by_category"]
    assert by["L1"]["web_em"] == 0.0 and by["L1"]["pref_r"] == 0.0  # level 1 states neither site nor values
    assert by["L2"]["web_em"] == 0.0 and by["L2"]["pref_r"] == 1.0  # level 2 states every value, no site
    # level 3 names the site (1 of 150 unparseable: "Google Flights.com") and the values (2 groups' level-2
    # values name a site the level-3 request does not repeat)
    assert by["L3"]["web_em"] == pytest.approx(149 / 150) and by["L3"]["pref_r"] == pytest.approx(148 / 150)
    md = render([tmp_path / "gold", tmp_path / "request_only"], tmp_path / "tables", plots=False)
    assert "Table B3" in md and "none [script:gold] [n=1] | 100.0 | 100.0 | 100.0 | 100.0 | 100.0" in md


def test_bad_task_file_names_file_and_key(tmp_path):
    import shutil

    from eval.benchmark import BenchmarkDataError
    from eval.config import BenchmarkConfig
    from eval.real.persona2web.benchmark import load

    shutil.copytree(FIXTURE, tmp_path / "p")
    f = tmp_path / "p" / "tasks" / "personalization_2" / "Ann_Example_A2.json"
    f.write_text(f.read_text().replace('"intent"', '"intnet"'))
    with pytest.raises(BenchmarkDataError, match="Ann_Example_A2.json: key 'intent' missing"):
        load(BenchmarkConfig(name="persona2web", path=str(tmp_path / "p")))


def test_synthetic_seed_history_is_the_gold_and_labelled(tmp_path, eval_cfg):
    real_data("persona2web")
    from eval.config import BenchmarkConfig
    from eval.real.persona2web.benchmark import load
    from eval.real.persona2web.synthetic_world import synthetic_seed_memory

    b = load(BenchmarkConfig(name="persona2web", seed_history="synthetic", personas=["Alex_Garcia"]))
    items = b.seed_memory("Alex_Garcia")
    assert {"32x32", "kohls.com"} <= {m.value for m in items if m.is_current}
    assert (
        all(m.scope == "user:Alex_Garcia" for m in items) and synthetic_seed_memory(b.groups, "Nobody") == ()
    )
    # the benchmark builds the synthetic world once and reuses it for every user: the same memory as
    # building it afresh, for the first user and for a later one
    other = sorted({str(g["user"]) for g in b.groups} - {"Alex_Garcia"})[0]
    for user in ("Alex_Garcia", other):
        assert b.seed_memory(user) == synthetic_seed_memory(b.groups, user)
    out = run_eval(
        eval_cfg(
            tmp_path,
            "pulse_rule",
            "persona2web",
            [
                "agent=scripted",
                "agent.script=request_only",
                "benchmark.seed_history=synthetic",
                "benchmark.personas=[Alex_Garcia]",
            ],
        )
    )
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 9 and rows[0]["benchmark"] == "persona2web-synthetic-history"
    assert "synthetic" in json.loads((out / "manifest.json").read_text())["nonstandard"]


def test_intervention_correct_uses_the_gold_site():
    from types import SimpleNamespace

    from eval.config import BenchmarkConfig
    from eval.real.persona2web.benchmark import load

    b = load(BenchmarkConfig(name="persona2web", path=str(FIXTURE)))
    t = b.tasks[0]
    gold, other = SimpleNamespace(value="shoes.org.com"), SimpleNamespace(value="boots.com")
    assert b.intervention_correct(t, "open_website", {"site": "bing.com"}, (other, gold))
    assert not b.intervention_correct(
        t, "open_website", {"site": "bing.com"}, (other,)
    )  # evidence lacks the gold
    assert not b.intervention_correct(
        t, "open_website", {"site": "https://shoes.org/x"}, (gold,)
    )  # call was right
