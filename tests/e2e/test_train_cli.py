"""End-to-end runs of the real `pulse` CLI on CPU with a tiny model built offline."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e

PULSE = [sys.executable, "-m", "pulse.cli"]


def _run(args, cwd=None, timeout=600):
    return subprocess.run(PULSE + args, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def _train_args(small_dataset, tiny_model, out_dir, *extra):
    return [
        "train",
        f"data.path={small_dataset}",
        "data.generate_if_missing=false",
        f"model.name_or_path={tiny_model}",
        "model.build=",
        f"out_dir={out_dir}",
        "sft.steps=150",
        "sft.examples_per_step=16",
        "sft.learning_rate=3e-3",
        "grpo.steps=3",
        "grpo.prompts_per_step=2",
        "grpo.generations_per_prompt=4",
        "grpo.learning_rate=1e-2",
        "model.max_completion_tokens=32",
        "data.max_train_examples=64",
        "data.max_eval_examples=16",
        *extra,
    ]


def test_train_cli_changes_lora_weights_and_resumes(small_dataset, tiny_model, tmp_path):
    from safetensors.torch import load_file

    out = tmp_path / "run"
    r = _run(_train_args(small_dataset, tiny_model, out))
    assert r.returncode == 0, r.stderr[-3000:]
    adapter = out / "grpo" / "final"
    assert (adapter / "adapter_config.json").exists()
    weights = load_file(str(adapter / "adapter_model.safetensors"))
    lora_b = [t for k, t in weights.items() if "lora_B" in k]
    assert lora_b, "no LoRA weights saved"
    # peft initialises every lora_B to zero: any non-zero entry means GRPO updated the adapter.
    assert any(t.abs().sum() > 0 for t in lora_b)
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    grpo = [row for row in rows if row["stage"] == "grpo" and "reward" in row]
    assert len(grpo) == 3 and all("rewards/wrong_intervention/mean" in row for row in grpo)
    # the step-time split: generation + scoring + update = trl's step_time, each part measured
    for row in grpo:
        parts = [row["time/generation_s"], row["time/scoring_s"], row["time/update_s"]]
        assert all(p > 0 for p in parts) and abs(sum(parts) - row["step_time"]) < 1e-6
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["eval"]) == {"sft", "grpo"} and summary["eval"]["grpo"]["n"] == 16
    split = summary["grpo_step_time"]
    assert (
        split["logged_steps"] == 3
        and abs(split["generation_share"] + split["scoring_share"] + split["update_share"] - 1) < 0.01
    )
    assert (out / "manifest.json").exists() and (out / "config.yaml").exists()
    # Provenance: the manifest, the summary and each stage's final/ name the config hash.
    manifest = json.loads((out / "manifest.json").read_text())
    chash = manifest["config_hash"]
    assert len(chash) == 64 and manifest["config"]["grpo"]["learning_rate"] == 1e-2
    assert summary["config_hash"] == chash and summary["stage_config_hash"] == {"sft": chash, "grpo": chash}
    for stage in ("sft", "grpo"):
        assert json.loads((out / stage / "final" / "provenance.json").read_text())["config_hash"] == chash
    # Re-running the same command finds the finished stages and does not train again.
    before = (out / "metrics.jsonl").read_text()
    r2 = _run(_train_args(small_dataset, tiny_model, out))
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert (out / "metrics.jsonl").read_text() == before
    # Re-running with a changed learning rate is refused (it would reuse the old final/ weights),
    # naming the key, before anything is loaded or written.
    weights_before = (adapter / "adapter_model.safetensors").read_bytes()
    changed = [
        a.replace("grpo.learning_rate=1e-2", "grpo.learning_rate=2e-2")
        for a in _train_args(small_dataset, tiny_model, out)
    ]
    r3 = _run(changed, timeout=120)
    assert r3.returncode == 2 and "Traceback" not in r3.stderr, r3.stderr[-3000:]
    assert "grpo.learning_rate: 0.01 -> 0.02" in r3.stderr and "resume=fork" in r3.stderr
    assert (out / "metrics.jsonl").read_text() == before
    assert (adapter / "adapter_model.safetensors").read_bytes() == weights_before
    assert json.loads((out / "manifest.json").read_text())["config_hash"] == chash


def test_killed_grpo_resumes_from_checkpoint(small_dataset, tiny_model, tmp_path):
    import shutil

    out = tmp_path / "run"
    args = _train_args(
        small_dataset,
        tiny_model,
        out,
        "sft.enabled=false",
        "grpo.save_every_steps=2",
        "eval_after=false",
        "grpo.steps=4",
    )
    r = _run(args)
    assert r.returncode == 0, r.stderr[-3000:]
    # Make it a run killed right after its step-2 checkpoint: no final/, no checkpoint-4, no rows past 2.
    shutil.rmtree(out / "grpo" / "final")
    shutil.rmtree(out / "grpo" / "checkpoint-4")
    rows = [
        line for line in (out / "metrics.jsonl").read_text().splitlines() if json.loads(line)["step"] <= 2
    ]
    (out / "metrics.jsonl").write_text("".join(line + "\n" for line in rows))
    r = _run(args)  # the same command resumes
    assert r.returncode == 0, r.stderr[-3000:]
    steps = [
        json.loads(line)["step"]
        for line in (out / "metrics.jsonl").read_text().splitlines()
        if '"reward"' in line
    ]
    assert steps == [1, 2, 3, 4]  # steps 3-4 continued from checkpoint-2, not from scratch
    assert (out / "grpo" / "final" / "adapter_config.json").exists()


def test_eval_policy_cli(small_dataset, tiny_model, tmp_path):
    r = _run(
        [
            "eval-policy",
            f"data.path={small_dataset}",
            "data.generate_if_missing=false",
            f"policy.name_or_path={tiny_model}",
            "data.max_eval_examples=8",
            f"out_dir={tmp_path}/ev",
        ]
    )
    assert r.returncode == 0, r.stderr[-3000:]
    m = json.loads((tmp_path / "ev" / "metrics.json").read_text())
    assert m["n"] == 8 and 0 <= m["parse_failure_rate"] <= 1
    assert "action acc" in r.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["model.name_or_path=/nonexistent/model"], "model.name_or_path"),
        (["grpo.generations_per_prompt=1"], "grpo.generations_per_prompt"),
        (["grpo.steps=lots"], "grpo.steps"),
    ],
)
def test_bad_input_gets_one_clear_error(small_dataset, tiny_model, tmp_path, args, needle):
    r = _run(_train_args(small_dataset, tiny_model, tmp_path / "bad") + args, timeout=120)
    assert r.returncode != 0
    assert needle in r.stderr and "Traceback" not in r.stderr


def test_malformed_dataset_row_is_named(small_dataset, tmp_path):
    from datasets import load_from_disk

    dd = load_from_disk(str(small_dataset))
    bad = dd["train"].map(
        lambda row, i: {"label_action": "shout" if i == 5 else row["label_action"]}, with_indices=True
    )
    dd["train"] = bad
    path = tmp_path / "bad_data"
    dd.save_to_disk(str(path))
    r = _run(["train", f"data.path={path}", f"out_dir={tmp_path}/o"], timeout=120)
    assert r.returncode == 2 and "row 5" in r.stderr and "label_action" in r.stderr


def test_cli_help_and_typo():
    r = _run(["--help"])
    assert r.returncode == 0 and "train" in r.stdout
    r = _run(["trian"])
    assert r.returncode == 2 and "did you mean train" in r.stderr.lower()
