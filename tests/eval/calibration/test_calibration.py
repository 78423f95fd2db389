"""The calibration harness (eval/calibration/) without a model: deterministic probes of every
condition, the reply classifier, the fit recovering known knobs, bad input, the shipped behaviour."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from eval.calibration.build import (
    AGES,
    CONDITIONS,
    LOADS,
    SUITES,
    load_block,
    load_suite,
    make_probes,
    messages,
    note_line,
)
from eval.calibration.classify import classify
from pulse.agent.tokens import count_tokens

ROOT = Path(__file__).parents[3]


@pytest.fixture(scope="module")
def probes():
    return make_probes([load_suite(s) for s in SUITES], 420, seed=0)


def test_probes_are_deterministic_and_cover_every_condition_and_suite(probes):
    again = make_probes([load_suite(s) for s in SUITES], 420, seed=0)
    assert [p.to_dict() for p in probes] == [p.to_dict() for p in again]
    assert [messages(p) for p in probes] == [messages(p) for p in again]
    assert len({p.probe_id for p in probes}) == len(probes) >= 300
    assert {p.condition for p in probes} == set(CONDITIONS)
    for cond in CONDITIONS:
        assert sum(p.condition == cond for p in probes) >= 15, cond
    assert {p.suite for p in probes} == set(SUITES)
    other = make_probes([load_suite(s) for s in SUITES], 420, seed=1)
    assert [p.probe_id for p in other] != [p.probe_id for p in probes]


def test_each_condition_renders_what_it_claims(probes):
    for p in probes:
        msgs = messages(p)
        text = json.dumps(msgs)
        assert msgs[0]["role"] == "system" and msgs[1] == {"role": "user", "content": p.request}
        assert p.tools[0]["function"]["name"] == p.tool and 2 <= len(p.tools) <= 3
        for c in p.prior:  # the target argument never appears in a prior call
            assert p.slot not in c["args"]
        if p.condition in ("explicit", "conflict"):
            assert p.stated and p.stated in p.values
        else:
            assert not p.stated
        if p.condition in ("explicit", "control"):
            assert "Memory note" not in text and "NOT EXECUTED" not in text
        if p.condition in ("supplement_right", "supplement_wrong", "conflict", "out_of_context"):
            assert msgs[-1]["role"] == "user" and p.note in msgs[-1]["content"]
            assert p.note_value in p.values and p.note_value != p.stated
        if p.condition == "supplement_wrong":
            assert p.note_value != p.gold
        if p.condition in ("supplement_irrelevant", "hold_irrelevant"):
            assert p.note_slot != p.slot and p.note_slot not in {
                k for t in p.tools for k in t["function"]["parameters"]["properties"]
            }
        if p.condition == "out_of_context":
            assert p.note.split("] ", 1)[1].startswith("For ")
        if p.condition in AGES:  # the note, then exactly `age` executed steps, then the decision
            at = next(i for i, m in enumerate(msgs) if "Memory note" in (m.get("content") or ""))
            assert sum(m["role"] == "tool" for m in msgs[at:]) == AGES[p.condition]
            assert msgs[-1]["role"] == "tool"
        if p.condition in LOADS:
            block = msgs[0]["content"].split("What I remember about the user:\n", 1)[1]
            assert p.note in block
            tokens = count_tokens(block)
            assert (
                abs(tokens - max(LOADS[p.condition], count_tokens(p.note))) <= 0.06 * LOADS[p.condition] + 5
            )
        if p.condition.startswith("hold_"):
            assert msgs[-1]["role"] == "tool" and msgs[-1]["content"].startswith("NOT EXECUTED")
            assert p.note in msgs[-1]["content"]
            held = json.loads(msgs[-2]["tool_calls"][0]["function"]["arguments"])
            assert held == p.held_args and held[p.slot] != p.note_value


def test_load_block_buries_the_note_three_quarters_deep():
    note = note_line("m1", "cabin_class", "business")
    assert load_block(0, note) == [note]
    lines = load_block(2000, note)
    assert abs(lines.index(note) - 3 * (len(lines) - 1) // 4) <= 1
    assert load_block(2000, "x")[:10] == load_block(2000, "y")[:10]  # one fixed filler per level


def _probe(**kw):
    base = {
        "condition": "supplement_right",
        "tool": "reserve_room",
        "artifact": "t-2-reserve_room",
        "slot": "bed_setup",
        "default": "double",
        "stated": "",
        "note_value": "king",
        "note_slot": "bed_setup",
        "tools": [{"function": {"name": "reserve_room"}}, {"function": {"name": "arrange_ride"}}],
        "held_args": {},
    }
    return {**base, **kw}


def _call(tool, **args):
    return {"content": None, "tool_calls": [{"function": {"name": tool, "arguments": json.dumps(args)}}]}


def test_classifier_on_single_decisions():
    p = _probe()
    assert classify(p, _call("reserve_room", name="x", bed_setup="king"))["outcome"] == "note"
    assert classify(p, _call("reserve_room", name="x", bed_setup="Double"))["outcome"] == "default"
    assert classify(p, _call("reserve_room", name="x", bed_setup="twin"))["outcome"] == "other"
    assert classify(p, _call("reserve_room", name="x"))["outcome"] == "missing"
    assert classify(p, _call("arrange_ride", name="x"))["outcome"] == "off_target"
    assert classify(p, {"content": "Done."})["outcome"] == "no_call"
    # an endpoint without tool parsing: the JSON in the text is read
    text = {"content": '```json\n{"name": "reserve_room", "arguments": {"bed_setup": "king"}}\n```'}
    assert classify(p, text)["outcome"] == "note"
    q = _probe(condition="conflict", stated="twin")
    assert classify(q, _call("reserve_room", bed_setup="twin"))["outcome"] == "stated"


def test_classifier_on_hold_replies():
    held = {"name": "t-2-reserve_room", "bed_setup": "double", "hotel_chain": "meridian"}
    p = _probe(condition="hold_right", held_args=held)
    changed = classify(p, _call("reserve_room", **{**held, "bed_setup": "king"}))
    assert changed["outcome"] == "replan" and changed["slot_outcome"] == "note"
    other = classify(p, _call("reserve_room", **{**held, "hotel_chain": "any_chain"}))
    assert other["outcome"] == "replan" and other["slot_outcome"] == "default"
    assert classify(p, _call("reserve_room", **held))["outcome"] == "repeat"
    assert classify(p, _call("reserve_room", **{**held, "name": "room 2"}))["outcome"] == "repeat"
    for ask in (
        "Which bed setup would you like?",
        "Could you confirm the bed setup for the room.",
        "Please let me know which bed you want.",
    ):
        assert classify(p, {"content": ask})["outcome"] == "ask_user", ask
    for give_up in ("I could not book the room, so I will skip it.", "The room was not booked."):
        assert classify(p, {"content": give_up})["outcome"] == "abandon", give_up
    assert classify(p, _call("arrange_ride", name="x"))["outcome"] == "abandon"


def _records(p_use=0.8, decay=0.2, lp=1.0, n=1500, seed=0):
    """Synthetic outcomes from the uptake formula (eval/agents/behaviour.py)."""
    rng = random.Random(seed)
    recs = []

    def add(cond, p, **kw):
        for _ in range(n):
            recs.append(
                {
                    "condition": cond,
                    "outcome": "note" if rng.random() < p else "default",
                    "probe_id": f"{cond}:{len(recs)}",
                    **kw,
                }
            )

    for cond, age in (("supplement_right", 0), *AGES.items()):
        add(cond, p_use * math.exp(-decay * age))
    note = note_line("m1", "bed_setup", "king")
    for cond, level in LOADS.items():
        load = count_tokens("\n".join(load_block(level, note)))
        add(cond, p_use / (1 + lp * max(0.0, load / 1000 - 1)), note=note)
    add("conflict", p_use * 0.25)
    add("out_of_context", p_use * 0.3)
    for o, share in (("abandon", 0.1), ("ask_user", 0.2), ("repeat", 0.3), ("replan", 0.4)):
        recs += [
            {"condition": "hold_right", "outcome": o, "probe_id": f"h{o}{i}", "held_args": {}, "slot": "s"}
            for i in range(int(share * 1000))
        ]
    return recs


def test_fit_recovers_known_knobs_from_synthetic_outcomes():
    from eval.calibration.fit import fit

    k = fit(_records(), n_boot=60)["knobs"]
    assert k["p_use_delivered"]["value"] == pytest.approx(0.8, abs=0.04)
    assert k["decay_per_step"]["value"] == pytest.approx(0.2, abs=0.04)
    lo, hi = k["decay_per_step"]["interval"]
    assert lo <= 0.2 <= hi and hi - lo < 0.1
    assert k["load_penalty"]["value"] == pytest.approx(1.0, abs=0.25)
    assert k["p_override_stated"]["value"] == pytest.approx(0.25, abs=0.05)
    assert k["p_apply_out_of_context"]["value"] == pytest.approx(0.3, abs=0.05)
    assert k["p_hold_abandon"]["value"] == pytest.approx(0.1, abs=1e-9)
    assert k["p_hold_ask_user"]["value"] == pytest.approx(0.2, abs=1e-9)
    assert k["p_hold_repeat"]["value"] == pytest.approx(0.3, abs=1e-9)
    lo, hi = k["p_hold_repeat"]["interval"]
    assert lo < 0.3 < hi


def test_wilson_interval():
    from eval.calibration.fit import wilson

    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.490, abs=0.002) and hi == pytest.approx(0.943, abs=0.002)
    assert wilson(0, 0) == (0.0, 1.0)


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    from eval.calibration import fit, probe

    assert probe.main(["--gguf", str(tmp_path / "none.gguf"), "--out", str(tmp_path), "--limit", "1"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert (
        probe.main(["--suites", "nope", "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path)]) == 2
    )
    assert "unknown suite 'nope'" in capsys.readouterr().err
    assert probe.main(["--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path), "--n", "20"]) == 2
    assert "not reachable" in capsys.readouterr().err
    assert not (tmp_path / "plan.jsonl").exists()  # refused before any work
    assert fit.main([str(tmp_path / "empty")]) == 2


def test_calibrated_behaviour_composes_and_types():
    from hydra import compose, initialize_config_dir

    from eval.config import EvalConfig
    from pulse.cli.support import CONFIG_DIR
    from pulse.config.schema import to_typed

    path = CONFIG_DIR / "agent" / "behaviour" / "calibrated_qwen_coder_1_5b.yaml"
    if not path.exists():
        pytest.skip("the calibrated behaviour is written by eval.calibration.fit --yaml")
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("eval", ["agent=simulated", "agent/behaviour=calibrated_qwen_coder_1_5b"])
    b = to_typed(cfg, EvalConfig).agent.behaviour
    fitted = json.loads((ROOT / "results/calibration/qwen_coder_1_5b/fit.json").read_text())["knobs"]
    for name, k in fitted.items():
        if k["value"] is not None:
            assert getattr(b, name) == pytest.approx(k["value"], abs=1e-3), name
    import yaml

    default = yaml.safe_load((CONFIG_DIR / "agent" / "behaviour" / "default.yaml").read_text())
    assert set(yaml.safe_load(path.read_text())) == set(default)
    for key in (
        "llm_latency_s",
        "llm_latency_s_per_1k_ctx_tokens",
        "tool_latency_s",
        "tokens_per_step",
        "plan_lead",
    ):
        assert getattr(b, key) == default[key]


def test_calibrate_agent_config_composes_and_types():
    from hydra import compose, initialize_config_dir

    from eval.calibration.config import CalibrateConfig
    from pulse.cli import VERBS
    from pulse.cli.support import CONFIG_DIR
    from pulse.config.schema import ConfigError, to_typed

    assert VERBS["calibrate-agent"][0] == "pulse.cli.calibrate_agent"
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("calibrate_agent", ["phase=fit", "n=300"])
        typed = to_typed(cfg, CalibrateConfig)
        assert (typed.phase, typed.n, typed.suites) == ("fit", 300, list(SUITES))
        with pytest.raises(ConfigError, match="phase"):
            to_typed(compose("calibrate_agent", ["phase=nope"]), CalibrateConfig)


def test_calibrate_agent_verb_reports_bad_input_in_one_line(tmp_path):
    import subprocess
    import sys

    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pulse.cli.calibrate_agent",
            "phase=probe",
            f"gguf={tmp_path}/none.gguf",
            f"out={tmp_path}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"pulse calibrate-agent: error: model file {tmp_path}/none.gguf does not exist"
    ]


def test_the_plan_is_written_once_and_a_resumed_run_reads_it(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from eval.calibration import probe

    args = SimpleNamespace(suites=["mcp_persona_sim"], n=60, seed=0)
    first = probe.plan_probes(args, tmp_path)
    assert (tmp_path / "plan.jsonl").exists()
    # the suites' code changes after the first run: the resumed run still asks the planned probes
    monkeypatch.setattr(probe, "make_probes", lambda *a, **k: [])
    assert [p.to_dict() for p in probe.plan_probes(args, tmp_path)] == [p.to_dict() for p in first]
    with pytest.raises(probe.ProbeError, match="planned for"):
        probe.plan_probes(SimpleNamespace(suites=["mcp_persona_sim"], n=61, seed=0), tmp_path)


def test_an_omitted_argument_after_a_same_tool_prior_call_is_a_probe_artifact():
    from eval.calibration.fit import UNINFORMATIVE, reclassify

    rec = {**_probe(), "call": {"tool": "reserve_room", "args": {"name": "x"}}, "reply": ""}
    assert reclassify({**rec, "prior": []})["outcome"] == "missing"
    copied = reclassify({**rec, "prior": [{"tool": "reserve_room", "args": {"name": "y"}}]})
    assert copied["outcome"] == "missing_copied" and "missing_copied" in UNINFORMATIVE
