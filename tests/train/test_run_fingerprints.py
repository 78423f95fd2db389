"""A training run records what it was trained from (examples, code, starting weights:
pulse/utils/fingerprint.py) and refuses to resume outputs made from anything else (issue 35: committed
demo figures once came from checkpoints trained by older code). No training here."""

import dataclasses
import json
from pathlib import Path

import pytest

from pulse.config.schema import TrainConfig
from pulse.train.pipeline import (
    FINGERPRINTS,
    ResumeConflict,
    check_fingerprints,
    prepare_run_dir,
    record_config,
)
from pulse.utils.fingerprint import TRAIN_CODE, code_fingerprint, model_fingerprint

FPS = {"data": "d" * 64, "code": "c" * 64, "init_model": "m" * 64}


def _trained(tmp_path, fps=FPS) -> TrainConfig:
    cfg = TrainConfig(out_dir=str(tmp_path / "run"))
    out = Path(cfg.out_dir)
    out.mkdir(parents=True)
    record_config(cfg)
    (out / "sft" / "final").mkdir(parents=True)
    if fps is not None:
        (out / FINGERPRINTS).write_text(json.dumps(fps))
    return cfg


def test_same_fingerprints_resume_in_place(tmp_path):
    cfg = _trained(tmp_path)
    assert check_fingerprints(cfg, dict(FPS)).out_dir == cfg.out_dir


@pytest.mark.parametrize(
    "key, words",
    [("data", "examples"), ("code", "training/evaluation code"), ("init_model", "starting weights")],
)
def test_other_fingerprint_is_refused_naming_it(tmp_path, key, words):
    cfg = _trained(tmp_path)
    with pytest.raises(ResumeConflict) as e:
        check_fingerprints(cfg, {**FPS, key: "e" * 64})
    msg = str(e.value)
    assert words in msg and f"{key}: {FPS[key][:12]} -> {'e' * 12}" in msg
    assert "resume=false" in msg and "resume=fork" in msg


def test_outputs_without_fingerprints_are_refused(tmp_path):
    cfg = _trained(tmp_path, fps=None)
    with pytest.raises(ResumeConflict, match=f"no recorded {FINGERPRINTS}"):
        check_fingerprints(cfg, FPS)


def test_fork_trains_beside_and_resume_false_deletes(tmp_path):
    cfg = _trained(tmp_path)
    other = {**FPS, "code": "e" * 64}
    forked = check_fingerprints(dataclasses.replace(cfg, resume="fork"), other)
    assert forked.out_dir.startswith(cfg.out_dir + "-") and (Path(cfg.out_dir) / "sft" / "final").exists()
    # resume=false deletes the outputs and the recorded fingerprints before anything is checked
    fresh = prepare_run_dir(dataclasses.replace(cfg, resume=False))
    assert not (Path(cfg.out_dir) / FINGERPRINTS).exists() and not (Path(cfg.out_dir) / "sft").exists()
    assert check_fingerprints(fresh, other).out_dir == cfg.out_dir


def test_a_fresh_run_dir_has_no_conflict(tmp_path):
    cfg = TrainConfig(out_dir=str(tmp_path / "new"))
    assert check_fingerprints(cfg, FPS).out_dir == cfg.out_dir


def test_model_fingerprint_is_the_weights_not_the_commit(tmp_path):
    m = tmp_path / "final"
    m.mkdir()
    (m / "model.safetensors").write_bytes(b"weights")
    (m / "config.json").write_text("{}")
    (m / "provenance.json").write_text('{"git_commit": "a"}')
    before = model_fingerprint(m)
    (m / "provenance.json").write_text('{"git_commit": "b"}')  # same weights from another commit
    (m / "checkpoint-2").mkdir()
    (m / "checkpoint-2" / "model.safetensors").write_bytes(b"older")
    assert model_fingerprint(m) == before and len(before) == 64
    # peft writes target_modules (a set) in another order in each process: the same adapter
    (m / "adapter_config.json").write_text(json.dumps({"r": 16, "target_modules": ["q_proj", "v_proj"]}))
    with_adapter = model_fingerprint(m)
    (m / "adapter_config.json").write_text(json.dumps({"target_modules": ["v_proj", "q_proj"], "r": 16}))
    assert model_fingerprint(m) == with_adapter != before
    (m / "adapter_config.json").write_text(json.dumps({"r": 8, "target_modules": ["q_proj", "v_proj"]}))
    assert model_fingerprint(m) != with_adapter
    (m / "model.safetensors").write_bytes(b"weightz")
    assert model_fingerprint(m) != before
    assert model_fingerprint("") == "" and model_fingerprint(tmp_path / "absent") == ""


def test_code_fingerprint_covers_the_training_code(tmp_path):
    for rel in TRAIN_CODE:
        (tmp_path / rel).mkdir(parents=True)
        (tmp_path / rel / "x.py").write_text("A = 1\n")
    before = code_fingerprint(root=tmp_path)
    (tmp_path / "pulse" / "train" / "x.py").write_text("A = 2\n")
    assert code_fingerprint(root=tmp_path) != before
    assert code_fingerprint() == code_fingerprint()  # this checkout's, stable


def test_examples_fingerprint_changes_with_a_row(small_dataset):
    from pulse.train.data import load_examples
    from pulse.utils.fingerprint import examples_fingerprint

    rows = load_examples(small_dataset, "train", 8)
    fp = examples_fingerprint(rows)
    assert fp == examples_fingerprint(list(rows))
    changed = [dataclasses.replace(rows[0], case_type="other"), *rows[1:]]
    assert examples_fingerprint(changed) != fp and examples_fingerprint(rows[:-1]) != fp
