"""Config hash in manifests and the resume rules of `pulse train` (no training here; the e2e test in
tests/e2e/test_train_cli.py reruns a real run with a changed learning rate)."""

import dataclasses
import json
from pathlib import Path

import pytest

from pulse.config.schema import TrainConfig
from pulse.train.pipeline import ResumeConflict, prepare_run_dir, record_config
from pulse.utils.manifest import NON_RESULT_KEYS, config_diff, config_hash, write_manifest


def _cfg(tmp_path, **grpo):
    base = TrainConfig(out_dir=str(tmp_path / "run"))
    return dataclasses.replace(base, grpo=dataclasses.replace(base.grpo, **grpo))


def test_hash_ignores_only_non_result_keys(tmp_path):
    a = _cfg(tmp_path)
    same = dataclasses.replace(
        a,
        out_dir="elsewhere",
        run_name="x",
        resume="fork",
        eval_after=False,
        logger=dataclasses.replace(a.logger, name="wandb"),
        data=dataclasses.replace(a.data, generate_if_missing=False),
    )
    assert config_hash(a) == config_hash(same) and len(config_hash(a)) == 64
    assert config_hash(a) != config_hash(_cfg(tmp_path, learning_rate=1e-3))
    assert config_diff(a, _cfg(tmp_path, learning_rate=1e-3)) == [("grpo.learning_rate", 3e-4, 1e-3)]
    assert {"out_dir", "logger", "resume"} <= set(NON_RESULT_KEYS)


def test_disabled_stage_knobs_do_not_change_the_hash(tmp_path):
    # an SFT-only run (the demo's) is the same run whatever its GRPO knobs say...
    off = _cfg(tmp_path, enabled=False)
    assert config_hash(off) == config_hash(_cfg(tmp_path, enabled=False, learning_rate=1e-3, steps=7))
    # ...but switching the stage on, or changing a knob of an enabled stage, does
    assert config_hash(off) != config_hash(_cfg(tmp_path))
    assert config_diff(off, _cfg(tmp_path, enabled=False, temperature=0.5)) == []


def test_manifest_records_config_and_hash(tmp_path):
    cfg = _cfg(tmp_path)
    m = write_manifest(tmp_path, config=cfg, seeds={"train": 0})
    on_disk = json.loads((tmp_path / "manifest.json").read_text())
    assert on_disk["config_hash"] == m["config_hash"] == config_hash(cfg)
    assert on_disk["config"]["grpo"]["learning_rate"] == 3e-4 and "out_dir" in on_disk["config_hash_excludes"]
    # a plain dict config (eval/harness.py passes as_dict(cfg)) hashes the same way
    from pulse.config.schema import as_dict

    assert write_manifest(tmp_path, config=as_dict(cfg))["config_hash"] == config_hash(cfg)
    assert "config_hash" not in write_manifest(tmp_path)


def test_eval_runs_carry_one_config_hash(tmp_path):
    """The eval harness hashes with eval/provenance.py; the manifest's config_hash must agree."""
    from eval.config import EvalConfig
    from eval.provenance import config_hash as eval_config_hash

    cfg = EvalConfig(out_dir=str(tmp_path), seed=3)
    assert config_hash(cfg) == eval_config_hash(cfg)
    assert config_hash(dataclasses.replace(cfg, progress=False, resume=False)) == config_hash(cfg)


def _trained(cfg):
    """out_dir as a finished run of `cfg` leaves it (record + a stage output)."""
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    record_config(cfg)
    (out / "grpo" / "final").mkdir(parents=True)
    (out / "summary.json").write_text("{}")
    return out


def test_same_config_resumes_in_place(tmp_path):
    cfg = _cfg(tmp_path)
    _trained(cfg)
    assert prepare_run_dir(dataclasses.replace(cfg, eval_after=False)).out_dir == cfg.out_dir


def test_changed_config_is_refused_naming_keys(tmp_path):
    _trained(_cfg(tmp_path))
    with pytest.raises(ResumeConflict) as e:
        prepare_run_dir(_cfg(tmp_path, learning_rate=1e-3, steps=7))
    msg = str(e.value)
    assert "grpo.learning_rate: 0.0003 -> 0.001" in msg and "grpo.steps: 60 -> 7" in msg
    assert "resume=fork" in msg and "resume=false" in msg


def test_fork_trains_in_a_hash_suffixed_dir(tmp_path):
    out = _trained(_cfg(tmp_path))
    new = dataclasses.replace(_cfg(tmp_path, learning_rate=1e-3), resume="fork")
    forked = prepare_run_dir(new)
    assert forked.out_dir == f"{out}-{config_hash(new)[:12]}" and (out / "grpo" / "final").exists()
    # same config with fork: no conflict, stays in place
    assert prepare_run_dir(dataclasses.replace(_cfg(tmp_path), resume="fork")).out_dir == str(out)


def test_resume_false_starts_over(tmp_path):
    out = _trained(_cfg(tmp_path))
    (out / "unrelated.txt").write_text("kept")
    cfg = dataclasses.replace(_cfg(tmp_path, learning_rate=1e-3), resume=False)
    assert prepare_run_dir(cfg).out_dir == str(out)
    assert (
        not (out / "grpo").exists()
        and not (out / "summary.json").exists()
        and not (out / "config.yaml").exists()
    )
    assert (out / "unrelated.txt").exists()


def test_outputs_without_a_record_are_refused(tmp_path):
    out = tmp_path / "run"
    (out / "sft" / "final").mkdir(parents=True)
    with pytest.raises(ResumeConflict, match="no recorded config.yaml"):
        prepare_run_dir(_cfg(tmp_path))
    # a record alone (a run killed before any stage output) blocks nothing
    fresh = _cfg(tmp_path / "b")
    (tmp_path / "b" / "run").mkdir(parents=True)
    record_config(fresh)
    assert prepare_run_dir(_cfg(tmp_path / "b", learning_rate=1e-3)).out_dir == fresh.out_dir


def test_older_hydra_style_record_is_read_with_defaults(tmp_path):
    """config.yaml written by the old entry point (hydra's resolved YAML) still compares by key."""
    out = tmp_path / "run"
    (out / "sft").mkdir(parents=True)
    (out / "config.yaml").write_text(f"seed: 0\nout_dir: {out}\ngrpo:\n  learning_rate: 0.01\n")
    with pytest.raises(ResumeConflict, match=r"grpo.learning_rate: 0.01 -> 0.0003"):
        prepare_run_dir(_cfg(tmp_path))
