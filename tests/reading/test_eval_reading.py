"""The annotated statement set and its scoring (eval/reading/), and `pulse eval-reading` end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval.reading.dataset import DatasetError, load_annotated, suite_examples
from eval.reading.score import Counts, condition_found, match, same_holder
from pulse.reading import ReadFact

REPO = Path(__file__).resolve().parents[2]


def test_the_annotated_set_is_large_and_varied():
    ex = load_annotated()
    assert len(ex) >= 300
    assert len({e.source for e in ex}) >= 6
    kinds = {f.kind for e in ex for f in e.gold}
    assert kinds == {"preference", "habit", "attribute", "decision", "requirement"}
    assert any(f.holder != "user" for e in ex for f in e.gold)
    assert any(f.condition for e in ex for f in e.gold)
    assert any(f.withdraws for e in ex for f in e.gold)
    assert any(not e.gold for e in ex)


@pytest.mark.parametrize("folder", ["heldout", "heldout2"])
def test_each_held_out_set_is_new_domains_and_loads(folder):
    # eval/reading/heldout (blind for v4) and heldout2 (blind for v5): written apart from the reader, on
    # domains no earlier set has
    held = load_annotated(REPO / "eval" / "reading" / folder)
    assert len(held) >= 120
    earlier = {e.source for e in load_annotated()}
    if folder == "heldout2":
        earlier |= {e.source for e in load_annotated(REPO / "eval" / "reading" / "heldout")}
    assert not {e.source for e in held} & earlier
    assert any(f.condition for e in held for f in e.gold) and any(
        f.holder != "user" for e in held for f in e.gold
    )


def _write(tmp_path, facts, text="I want a window seat."):
    doc = {
        "domain": "t",
        "tools": [{"name": "fly", "arguments": {"seat": {"type": "string", "enum": ["aisle", "window"]}}}],
        "statements": [{"id": "t-1", "text": text, "facts": facts}],
    }
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return tmp_path


GOOD = {
    "tool": "fly",
    "argument": "seat",
    "value": "window",
    "polarity": "prefer",
    "holder": "user",
    "kind": "preference",
    "condition": "",
    "lasting": True,
    "withdraws": False,
    "revises": "",
}


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"value": "bulkhead"}, "not one of seat's values"),
        ({"argument": "cabin"}, "argument 'cabin' is in no tool"),
        ({"condition": "on long flights"}, "not a span of the text"),
        ({"kind": "wish"}, "kind one of"),
    ],
)
def test_a_bad_annotation_names_file_statement_and_key(tmp_path, change, needle):
    root = _write(tmp_path, [{**GOOD, **change}])
    with pytest.raises(DatasetError, match=needle) as err:
        load_annotated(root)
    assert "t.json" in str(err.value) and "t-1" in str(err.value)


def test_a_missing_key_is_named(tmp_path):
    root = _write(tmp_path, [{k: v for k, v in GOOD.items() if k != "lasting"}])
    with pytest.raises(DatasetError, match="missing key.*lasting"):
        load_annotated(root)


def _f(**kw) -> ReadFact:
    return ReadFact(**{"argument": "seat", "value": "window", **kw})


def test_scores_a_perfect_and_a_wrong_reader():
    gold = [_f(holder="person:Priya", condition="on long flights")]
    perfect = Counts()
    perfect.add(gold, [_f(holder="person:priya", condition="on long flights")])
    t = perfect.table()
    assert t["argument+value"] == {"precision": 1.0, "recall": 1.0, "n_pred": 1, "n_gold": 1}
    assert t["holder"]["recall"] == 1.0 and t["condition"]["recall"] == 1.0
    flipped = Counts()
    flipped.add(gold, [_f(polarity="avoid", holder="user")])  # a rejected value read as a wish
    t = flipped.table()
    assert t["argument"]["recall"] == 1.0 and t["argument+value"]["recall"] == 0.0
    empty = Counts()
    empty.add([], [_f()])  # a fact read into small talk
    assert empty.summary()["no_fact_statements_read_as_facts"] == 1
    assert empty.table()["argument+value"]["precision"] == 0.0


def test_field_rules():
    assert same_holder("person:Priya", "person:priya") and not same_holder("person:Priya", "user")
    assert same_holder("project:", "project:apollo")
    assert condition_found("on flights over six hours", "flights over six hours")
    assert not condition_found("on flights over six hours", "for client trips")


def test_suite_seed_statements_have_gold_facts():
    from eval.suites.independent_sim import generate

    ex = suite_examples(generate(0))
    assert len(ex) >= 40 and all(e.gold for e in ex)
    assert any(f.holder.startswith("person:") for e in ex for f in e.gold)


@pytest.mark.e2e
def test_cli_writes_the_table_and_refuses_a_typo(tmp_path):
    out = tmp_path / "r"
    cmd = [sys.executable, "-m", "pulse.cli.eval_reading", "domains=[travel]", "seeds=[0]", f"out={out}"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "reading.json").read_text())
    assert result["groups"]["annotated/travel"]["statements"] >= 40
    assert result["suites"]["independent_sim"]["seed_statements"][0] >= 40
    assert "argument+value P / R" in (out / "reading.md").read_text()
    assert result["robustness"]["lower_case"]["statements_changed"] >= 40
    bad = subprocess.run([*cmd[:3], "reader=magic"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "reader" in bad.stderr
    bad = subprocess.run(
        [*cmd[:3], "rewrites=[lowercase]"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 2 and "rewrites" in bad.stderr


def test_a_fact_lost_to_a_rewrite_is_counted_on_its_own_statement():
    """A reader that reads only capitalised text loses every fact of the lower-case rewrite, and a gain
    on one statement does not hide a loss on another."""
    from eval.reading.perturb import REWRITES, robustness

    examples = list(load_annotated(REPO / "eval" / "reading" / "data", ["travel"]))[:20]

    class CapitalsOnly:
        def __init__(self):
            from pulse.reading import make_reader

            self.inner = make_reader("offline")

        def read(self, text, schema, project=""):
            return self.inner.read(text, schema, project=project) if text[:1].isupper() else []

    reader = CapitalsOnly()
    originals = {e.id: len(match(e.gold, reader.read(e.text, e.schema))) for e in examples}
    r = robustness(reader, examples, ["lower_case", "curly_apostrophes"], originals)["lower_case"]
    assert r["facts_matched_before"] > 0 and r["facts_matched_after"] == 0
    assert r["facts_lost"] == r["facts_matched_before"] and r["facts_gained"] == 0
    assert REWRITES["spelled_out"][1]("Don't, I'm sure I can't") == "Do not, I am sure I cannot"
