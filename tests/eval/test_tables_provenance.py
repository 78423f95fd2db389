"""Provenance on the eval side: the checkpoint content hash in manifest and rows, resume refuses a
different checkpoint, tables refuse to merge different checkpoints into one cell."""

from __future__ import annotations

import json
import shutil

import pytest

from eval import provenance
from eval.harness import run_eval
from eval.metrics import read_rows
from pulse.config.schema import ConfigError

SMALL = ["benchmark.max_tasks=1", "benchmark.personas=[researcher]"]


def test_checkpoint_hash_covers_weights_config_and_tokenizer_only(tmp_path):
    d = tmp_path / "ckpt"
    d.mkdir()
    (d / "config.json").write_text('{"a": 1}')
    (d / "model.safetensors").write_bytes(b"\x00weights")
    (d / "tokenizer.json").write_text("{}")
    (d / "optimizer.pt").write_bytes(b"opt")
    (d / "checkpoint-10").mkdir()
    (d / "checkpoint-10" / "model.safetensors").write_bytes(b"old")
    h = provenance.checkpoint_hash(d)
    assert len(h) == 64 and provenance.checkpoint_hash(str(d)) == h
    (d / "optimizer.pt").write_bytes(b"other")  # training state: not part of the policy
    (d / "checkpoint-10" / "model.safetensors").write_bytes(b"older")
    (d / "README.md").write_text("notes")
    provenance.clear_cache()
    assert provenance.checkpoint_hash(d) == h
    (d / "model.safetensors").write_bytes(b"\x00weightz")
    assert provenance.checkpoint_hash(d) == h  # cached per process
    provenance.clear_cache()
    h2 = provenance.checkpoint_hash(d)
    assert h2 != h
    (d / "tokenizer.json").rename(d / "tokenizer2.json")  # relative paths are hashed too
    provenance.clear_cache()
    assert provenance.checkpoint_hash(d) not in (h, h2)
    assert provenance.checkpoint_hash(tmp_path / "missing") == "" and provenance.checkpoint_hash("") == ""
    assert provenance.checkpoint_hash("Qwen/Qwen3-8B") == ""
    # a LoRA adapter's hash covers the local base model it names
    a = tmp_path / "adapter"
    a.mkdir()
    (a / "adapter_model.safetensors").write_bytes(b"lora")
    (a / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": str(d)}))
    ha = provenance.checkpoint_hash(a)
    (d / "model.safetensors").write_bytes(b"new base")
    provenance.clear_cache()
    assert provenance.checkpoint_hash(a) != ha


def test_an_adapter_saved_twice_hashes_the_same_whatever_its_set_order(tmp_path):
    """peft writes target_modules from a set: the same adapter may list them in another order."""
    hashes = []
    for i, modules in enumerate((["q_proj", "v_proj", "k_proj"], ["k_proj", "q_proj", "v_proj"])):
        a = tmp_path / f"a{i}"
        a.mkdir()
        (a / "adapter_model.safetensors").write_bytes(b"lora")
        cfg = {"r": 16, "target_modules": modules} if i == 0 else {"target_modules": modules, "r": 16}
        (a / "adapter_config.json").write_text(json.dumps(cfg, indent=i))
        hashes.append(provenance.checkpoint_hash(a))
    assert hashes[0] == hashes[1]
    (tmp_path / "a1" / "adapter_config.json").write_text(json.dumps({"r": 8, "target_modules": ["q_proj"]}))
    provenance.clear_cache()
    assert provenance.checkpoint_hash(tmp_path / "a1") != hashes[0]


@pytest.mark.parametrize("method,expect", [("none", []), ("pulse_rule", ["rule"])])
def test_manifest_and_rows_record_the_policy(method, expect, tmp_path, eval_cfg):
    out = run_eval(eval_cfg(tmp_path, method, overrides=SMALL))
    man = json.loads((out / "manifest.json").read_text())
    assert man["policy"]["policy_checkpoints"] == expect and man["policy"]["checkpoint_hash"] == ""
    assert len(man["policy"]["config_hash"]) == 64
    row = read_rows(out / "episodes.jsonl")[0]
    assert row["policy_checkpoints"] == expect and row["checkpoint_hash"] == ""
    assert row["config_hash"] == man["policy"]["config_hash"]


def test_resume_refuses_a_different_checkpoint(tmp_path, tiny_model_dir, eval_cfg):
    ckpt = tmp_path / "ckpt"
    shutil.copytree(tiny_model_dir, ckpt)
    provenance.clear_cache()
    cfg = eval_cfg(tmp_path / "run", "pulse_no_rl", overrides=SMALL, model_dir=str(ckpt))
    out = run_eval(cfg)
    row = read_rows(out / "episodes.jsonl")[0]
    h_old = provenance.checkpoint_hash(ckpt)
    assert row["policy_checkpoints"] == [str(ckpt)] and row["checkpoint_hash"] == h_old and h_old
    man = json.loads((out / "manifest.json").read_text())
    assert man["policy"]["checkpoint_hash"] == h_old and man["policy"]["sources"] == ["base"]
    run_eval(cfg)  # same checkpoint: resumes (nothing to do)
    # the checkpoint is retrained in place: same path and config, other weights
    cfg_json = json.loads((ckpt / "config.json").read_text())
    cfg_json["pulse_test_marker"] = 1
    (ckpt / "config.json").write_text(json.dumps(cfg_json))
    provenance.clear_cache()
    h_new = provenance.checkpoint_hash(ckpt)
    before = (out / "episodes.jsonl").read_text()
    with pytest.raises(ConfigError) as e:
        run_eval(cfg)
    msg = str(e.value)
    assert h_old in msg and h_new in msg and "new out_dir" in msg and "resume=false" in msg
    assert (out / "episodes.jsonl").read_text() == before  # nothing touched
    # resume=false starts afresh; another config or method in the same run dir is refused too
    out = run_eval(
        eval_cfg(tmp_path / "run", "pulse_no_rl", overrides=[*SMALL, "resume=false"], model_dir=str(ckpt))
    )
    assert {r["checkpoint_hash"] for r in read_rows(out / "episodes.jsonl")} == {h_new}
    with pytest.raises(ConfigError, match="config hash"):
        run_eval(eval_cfg(tmp_path / "run", "pulse_no_rl", overrides=[*SMALL, "seed=5"], model_dir=str(ckpt)))
    with pytest.raises(ConfigError, match="method"):
        run_eval(eval_cfg(tmp_path / "run", "none", overrides=SMALL))


def test_refused_resume_is_a_one_line_cli_error(tmp_path, eval_cfg, capsys):
    from pulse.cli.support import known_errors

    out = run_eval(eval_cfg(tmp_path / "run", "none", overrides=SMALL))
    rows = (
        (out / "episodes.jsonl").read_text().replace('"checkpoint_hash": ""', '"checkpoint_hash": "abc123"')
    )
    (out / "episodes.jsonl").write_text(rows)
    with pytest.raises(known_errors()) as e:
        run_eval(eval_cfg(tmp_path / "run", "none", overrides=SMALL))
    assert isinstance(e.value, ConfigError) and "'abc123'" in str(e.value)


def test_tables_refuse_mixed_checkpoints_in_one_cell(tmp_path, eval_cfg, capsys):
    from eval.tables import TableError, render
    from pulse.cli.tables import main as tables_main

    a = run_eval(eval_cfg(tmp_path / "runs" / "a", "pulse_rule", overrides=SMALL))
    b = run_eval(eval_cfg(tmp_path / "runs" / "b", "pulse_rule", overrides=[*SMALL, "seed=1"]))
    assert "pulse_rule" in render([tmp_path / "runs"])
    rows = (
        (b / "episodes.jsonl").read_text().replace('"checkpoint_hash": ""', '"checkpoint_hash": "feedbeef"')
    )
    (b / "episodes.jsonl").write_text(rows)
    with pytest.raises(TableError, match="pulse_rule.*pibench_sim.*different policy checkpoints.*feedbeef"):
        render([tmp_path / "runs"])
    with pytest.raises(SystemExit) as e:
        tables_main([str(tmp_path / "runs"), "--no-plots"])
    assert e.value.code == 2 and "feedbeef" in capsys.readouterr().err
    # one checkpoint per training seed is allowed when asked for explicitly...
    assert "pulse_rule" in render([tmp_path / "runs"], per_seed_checkpoints=True, plots=False)
    # ...but never two checkpoints for the same seed
    c = run_eval(eval_cfg(tmp_path / "runs" / "c", "pulse_rule", overrides=[*SMALL, "seed=1"]))
    assert '"checkpoint_hash": ""' in (c / "episodes.jsonl").read_text()
    with pytest.raises(TableError, match="different policy checkpoints"):
        render([tmp_path / "runs"], per_seed_checkpoints=True, plots=False)
    import shutil

    shutil.rmtree(c)
    # under different experiment labels (different table cells) they may both be shown
    rows = (b / "episodes.jsonl").read_text().replace('"experiment": ""', '"experiment": "table2/other"')
    (b / "episodes.jsonl").write_text(rows)
    render([a, b])
