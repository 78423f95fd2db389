"""`pulse train`: data -> (build tiny model) -> SFT warm start -> GRPO (LoRA) -> held-out eval.

Run directory (`out_dir`): config.yaml (the resolved typed config: the run's record), manifest.json
(with `config_hash`), metrics.jsonl, sft/ and grpo/ (trl checkpoints + `final`, whose provenance.json
names the config hash that produced it), eval_<stage>.json, summary.json.

Resume (`resume`, checked before any data or model is loaded): a rerun in the same out_dir compares
its config with the recorded config.yaml key by key (keys in pulse.utils.manifest.NON_RESULT_KEYS
excepted). Same config: each stage is skipped when its `final` exists and resumes from its newest
checkpoint otherwise, so re-running a killed command continues it. Different config: refused with
the differing keys (old -> new), because the old checkpoints and final/ weights would be reused
silently; `resume=fork` trains in `<out_dir>-<first 12 hex of the new config hash>` instead and
`resume=false` deletes this run's outputs and starts over.

Fingerprints (`fingerprints.json`, checked once the data is loaded): the run records what its stages
are trained from: the examples it reads, the training and evaluation code and the starting weights
(pulse/utils/fingerprint.py). A rerun whose fingerprints differ from the recorded ones is refused the
same way (`resume=false` retrains in place, `resume=fork` trains beside it): its checkpoints, final/
weights and cached held-out evaluations came from other data, code or weights, and a figure
republished from them would not be what this code produces (issue 35).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulse.config.schema import (
    ConfigError,
    DataConfig,
    PolicyBackendConfig,
    TrainConfig,
    as_dict,
    to_typed,
)
from pulse.core.examples import PolicyExample
from pulse.models.loading import check_model_path
from pulse.train import dist
from pulse.train.data import load_examples, recorded_fingerprint, tokenizer_corpus
from pulse.train.metrics_log import step_time_split
from pulse.utils.atomic import atomic_write_json, atomic_write_text
from pulse.utils.cpu_numerics import cpu_threads
from pulse.utils.fingerprint import code_fingerprint, examples_fingerprint, model_fingerprint
from pulse.utils.json_input import read_json_file
from pulse.utils.manifest import canonical_json, config_diff, config_hash, format_diff, write_manifest

log = logging.getLogger("pulse.train")

CONFIG_RECORD = "config.yaml"
# What a run writes in out_dir besides the record; `resume=false` deletes exactly these.
STAGE_OUTPUTS = ("sft", "grpo", "eval_sft.json", "eval_grpo.json", "summary.json", "metrics.jsonl")
FINGERPRINTS = "fingerprints.json"  # what the stage outputs were trained from (see the module docstring)
RUN_OUTPUTS = (*STAGE_OUTPUTS, "manifest.json", CONFIG_RECORD, FINGERPRINTS)
STAGE_PROVENANCE = "provenance.json"  # inside each stage's final/


class ResumeConflict(ConfigError):
    """out_dir holds a run made by a different config; the message names the differing keys."""


def recorded_config(out: Path) -> dict[str, Any] | None:
    """The config recorded in out_dir (None when there is none), as a plain dict with schema defaults."""
    path = out / CONFIG_RECORD
    if not path.exists():
        return None
    import yaml

    raw = _upgrade_record(yaml.safe_load(path.read_text()) or {})
    try:
        return as_dict(to_typed(raw, TrainConfig))
    except ConfigError:  # recorded by an older schema: compare what was written
        return raw


def _upgrade_record(raw: dict[str, Any]) -> dict[str, Any]:
    """A record written before the reward weights became a mapping (`reward.<term>: w`, before
    9a19da2) reads as `reward.weights.<term>: w`: the same run, so it resumes."""
    reward = raw.get("reward")
    if isinstance(reward, dict) and "weights" not in reward:
        weights = {k: v for k, v in reward.items() if k != "name"}
        raw = {
            **raw,
            "reward": {**({"name": reward["name"]} if "name" in reward else {}), "weights": weights},
        }
    return raw


def prepare_run_dir(cfg: TrainConfig) -> TrainConfig:
    """Apply `resume` to out_dir before anything is loaded; returns the config to train with (a new
    out_dir for `resume=fork`). Raises ResumeConflict when out_dir was made by a different config."""
    out = Path(cfg.out_dir)
    if cfg.resume is False:
        if any((out / name).exists() for name in RUN_OUTPUTS) and _is_main():
            log.info("resume=false: deleting the previous run's outputs in %s", out)
            for name in RUN_OUTPUTS:
                p = out / name
                shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
        _wait_for_everyone()
        return cfg
    conflict = _conflict(cfg, out)
    if conflict is None:
        return cfg
    if cfg.resume == "fork":
        forked = dataclasses.replace(cfg, out_dir=f"{cfg.out_dir}-{config_hash(cfg)[:12]}")
        print(
            f"[pulse train] resume=fork: {out} was made by a different config ({conflict}); "
            f"training in {forked.out_dir}",
            flush=True,
        )
        again = _conflict(forked, Path(forked.out_dir))
        if again is not None:
            raise ResumeConflict(
                f"resume=fork: {forked.out_dir} also holds a run with a different config "
                f"({again}); choose another out_dir"
            )
        return forked
    raise ResumeConflict(
        f"out_dir {str(out)!r} holds a run made by a different config ({conflict}). Resuming would reuse "
        f"its checkpoints and final/ weights. Pass resume=fork to train in "
        f"{cfg.out_dir}-{config_hash(cfg)[:12]} (keeps this run), resume=false to delete its outputs and "
        f"start over, or another out_dir"
    )


def _conflict(cfg: TrainConfig, out: Path) -> str | None:
    """None when out_dir is fresh or was made by the same config; else what differs, in words."""
    if not any((out / name).exists() for name in STAGE_OUTPUTS):
        return None  # nothing a rerun could reuse
    old = recorded_config(out)
    if old is None:
        return f"it has training outputs but no recorded {CONFIG_RECORD}, so they cannot be matched"
    diff = config_diff(old, cfg)
    return f"differing keys, recorded -> now: {format_diff(diff)}" if diff else None


def run_fingerprints(train: list[PolicyExample], held_out: list[PolicyExample], start: str) -> dict[str, str]:
    """What this run's stages are made from: its examples (train and held-out, by content), the code
    that trains and evaluates, and the starting weights (init_from or the base model)."""
    return {
        "data": examples_fingerprint([*train, *held_out]),
        "code": code_fingerprint(),
        "init_model": model_fingerprint(start),
    }


def _fingerprint_conflict(out: Path, fps: dict[str, str]) -> str | None:
    """None when out_dir has no stage outputs or they were made from the same fingerprints."""
    if not any((out / name).exists() for name in STAGE_OUTPUTS):
        return None
    path = out / FINGERPRINTS
    if not path.exists():
        return (
            f"it has training outputs but no recorded {FINGERPRINTS} (made before runs recorded what "
            f"they were trained from), so they cannot be matched to this data and code"
        )
    old = read_json_file(path, error=ConfigError, what="run fingerprints")
    old = old if isinstance(old, dict) else {}
    diff = [k for k in fps if old.get(k) != fps[k]]
    if not diff:
        return None
    what = {"data": "examples", "code": "training/evaluation code", "init_model": "starting weights"}
    return "its outputs were made from other " + "; ".join(
        f"{what.get(k, k)} ({k}: {str(old.get(k))[:12]} -> {fps[k][:12]})" for k in diff
    )


def check_fingerprints(cfg: TrainConfig, fps: dict[str, str]) -> TrainConfig:
    """Refuse (resume=true) or train beside (resume=fork) stage outputs made from other fingerprints;
    returns the config to train with. `resume=false` already deleted the outputs."""
    out = Path(cfg.out_dir)
    conflict = _fingerprint_conflict(out, fps)
    if conflict is None:
        return cfg
    if cfg.resume == "fork":
        suffix = hashlib.sha256(canonical_json([config_hash(cfg), fps]).encode()).hexdigest()[:12]
        forked = dataclasses.replace(cfg, out_dir=f"{cfg.out_dir}-{suffix}")
        print(f"[pulse train] resume=fork: {out}: {conflict}; training in {forked.out_dir}", flush=True)
        again = _conflict(forked, Path(forked.out_dir)) or _fingerprint_conflict(Path(forked.out_dir), fps)
        if again is not None:
            raise ResumeConflict(f"resume=fork: {forked.out_dir}: {again}; choose another out_dir")
        return forked
    raise ResumeConflict(
        f"out_dir {str(out)!r}: {conflict}. Resuming would reuse checkpoints, final/ weights and held-out "
        f"evaluations that this data and code did not produce. Pass resume=false to retrain here "
        f"(deletes this run's outputs), resume=fork to train beside it, or another out_dir"
    )


def record_config(cfg: TrainConfig) -> None:
    import yaml

    if _is_main():
        atomic_write_text(
            Path(cfg.out_dir) / CONFIG_RECORD,
            f"# config hash {config_hash(cfg)} (pulse.utils.manifest.config_hash)\n"
            + yaml.safe_dump(as_dict(cfg), sort_keys=False),
        )


def stage_provenance(final: str | Path) -> dict[str, Any] | None:
    path = Path(final) / STAGE_PROVENANCE
    return json.loads(path.read_text()) if path.exists() else None


def ensure_model(cfg: TrainConfig, train_examples: list[PolicyExample]) -> str:
    """The base model path; builds the tiny model offline when configured and missing."""
    path = cfg.model.name_or_path
    if cfg.model.build == "tiny_qwen3" and Path(path).exists() and _stale_tiny(cfg):
        # its tokenizer was trained on another dataset (or by older generator code): rebuild it
        log.info("tiny model at %s was built on another dataset; rebuilding", path)
        shutil.rmtree(path)
    if cfg.model.build == "tiny_qwen3" and not Path(path).exists():
        from pulse.models.tiny_qwen3 import build_tiny_qwen3

        log.info("building tiny Qwen3 at %s (tokenizer trained on %d examples)", path, len(train_examples))
        build_tiny_qwen3(
            path,
            tokenizer_corpus(train_examples, "compact") + tokenizer_corpus(train_examples, "rich"),
            cfg.model.tiny,
            seed=cfg.seed,
        )
        fp = recorded_fingerprint(Path(cfg.data.path))
        if fp:
            atomic_write_text(Path(path) / DATA_STAMP, fp + "\n")
    elif cfg.model.build in PRETRAINED_BUILDS and not Path(path).exists():
        import importlib

        module, fn = PRETRAINED_BUILDS[cfg.model.build].split(":")
        log.info("building %s at %s from its packaged GGUF", cfg.model.build, path)
        getattr(importlib.import_module(module), fn)(path)
    check_model_path(path)
    return path


# model.build -> "module:function" that builds a packaged pretrained base once (pulse/models/)
PRETRAINED_BUILDS = {
    "smollm2_135m": "pulse.models.smollm2:rebuild_smollm2",
    "qwen_coder_0_5b": "pulse.models.qwen_coder:build_qwen_coder",
}
DATA_STAMP = "data_fingerprint.txt"  # in a built tiny model: the fingerprint of the dataset its tokenizer saw


def _stale_tiny(cfg: TrainConfig) -> bool:
    """A built tiny model whose recorded dataset fingerprint differs from the current dataset's."""
    stamp = Path(cfg.model.name_or_path) / DATA_STAMP
    fp = recorded_fingerprint(Path(cfg.data.path))
    return bool(fp) and (not stamp.exists() or stamp.read_text().strip() != fp)


def eval_backend_config(cfg: TrainConfig, path: str) -> PolicyBackendConfig:
    """The policy backend of the held-out evaluation: the checkpoint read on the prompt it was trained
    on (prompt style and chat-template arguments), in the training dtype, on the training device."""
    return PolicyBackendConfig(
        name_or_path=path,
        prompt_style=cfg.model.prompt_style,
        max_new_tokens=cfg.model.max_completion_tokens,
        dtype=cfg.model.dtype,
        device="cpu" if cfg.device == "cpu" else "auto",
        chat_template_kwargs=dict(cfg.model.chat_template_kwargs),
    )


def evaluate_checkpoint(cfg: TrainConfig, path: str, examples: list[PolicyExample]) -> dict[str, Any]:
    from pulse.policy.evaluate import evaluate_policy
    from pulse.policy.factory import build_policy

    policy = build_policy(eval_backend_config(cfg, path))
    metrics, _ = evaluate_policy(policy, examples)
    del policy
    dist.release_trainer()  # its memory back before the next checkpoint loads
    return metrics


def num_processes() -> int:
    return dist.num_processes()


def run_training(cfg: TrainConfig, ensure_data: Callable[[DataConfig], Path]) -> dict[str, Any]:
    """SFT warm start then GRPO as `cfg` says; `ensure_data` returns the dataset path for `cfg.data`
    (the command line passes `data_gen.ensure.ensure_dataset`: the library never imports the
    generator). Called after the run directory check, so a refused config generates nothing."""
    dist.init(cfg)  # the process group as the trainers will count it (pulse/train/dist.py)
    cfg = prepare_run_dir(cfg)  # before any data or model is loaded: refuse a changed config early
    chash = config_hash(cfg)
    nproc = num_processes()
    sizes, sft_sizes = _before_data(cfg, nproc)
    with dist.main_process_first():  # one process writes the dataset and the tiny model; the others read
        data_path = ensure_data(cfg.data)
        train = load_examples(data_path, "train", cfg.data.max_train_examples)
        held_out = load_examples(data_path, "test", cfg.data.max_eval_examples)
        base = ensure_model(cfg, train)
    if cfg.init_from:
        check_model_path(cfg.init_from, key="init_from")
    fps = run_fingerprints(train, held_out, cfg.init_from or base)
    cfg = check_fingerprints(cfg, fps)  # refuse outputs trained from other data, code or weights
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    record_config(cfg)
    if _is_main():
        atomic_write_json(out / FINGERPRINTS, fps)
        write_manifest(
            out,
            config=cfg,
            seeds={"train": cfg.seed, "data": cfg.data.seed},
            dataset=str(data_path),
            dataset_fingerprint=recorded_fingerprint(Path(data_path)),
            model=base,
            fingerprints=fps,
            derived_batch_sizes=sizes,
            sft_batch_sizes=sft_sizes,
            n_train=len(train),
            n_test=len(held_out),
        )
    log.info("derived batch sizes: %s", sizes)
    print(
        f"[pulse train] run dir {out} | config {chash[:12]} | {len(train)} train / {len(held_out)} held-out "
        f"examples | model {base} | batch {sizes}",
        flush=True,
    )

    summary: dict[str, Any] = {
        "run_name": cfg.run_name,
        "out_dir": str(out),
        "config_hash": chash,
        "fingerprints": fps,
        "reward": as_dict(cfg.reward),
        "seed": cfg.seed,
        "checkpoints": {"base": base},
        "stage_config_hash": {},
        "eval": {},
    }
    _train_stages(cfg, cfg.init_from or base, train, out, nproc, summary["checkpoints"])
    _stage_records(cfg, held_out, out, summary)
    if cfg.grpo.enabled:
        summary["grpo_step_time"] = step_time_split(out / "metrics.jsonl")
    if _is_main():
        atomic_write_json(out / "summary.json", summary)
    return summary


def _before_data(cfg: TrainConfig, nproc: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """What fails fast or is set before any data is generated: the GRPO and SFT batch sizes (returned),
    the model's tokenizer (a hub id or a folder that must exist), the CPU thread count, the seed."""
    import torch
    from transformers import set_seed

    from pulse.train.batch import grpo_batch_sizes, sft_batch_sizes

    sizes = grpo_batch_sizes(cfg, nproc) if cfg.grpo.enabled else {}  # fail fast on bad batches
    sft_sizes = sft_batch_sizes(cfg, nproc) if cfg.sft.enabled else {}
    if not cfg.model.build:  # a hub id or a folder that must exist: fail before minutes of data generation
        from pulse.models.loading import ModelLoadError, load_tokenizer

        try:
            load_tokenizer(cfg.model.name_or_path, key="model.name_or_path")
        except ModelLoadError as e:
            msg = str(e)
            raise ModelLoadError(msg if msg.startswith("model.") else f"model.name_or_path: {msg}") from e
    if cfg.device == "cpu":  # the thread count is part of the arithmetic (pulse/utils/cpu_numerics.py)
        torch.set_num_threads(cpu_threads())
    set_seed(cfg.seed)
    return sizes, sft_sizes


def _train_stages(
    cfg: TrainConfig,
    policy_path: str,
    train: list[PolicyExample],
    out: Path,
    nproc: int,
    checkpoints: dict[str, str],
) -> None:
    """SFT then GRPO, as enabled, each from the weights before it; each trainer is released after its
    stage. Records each stage's checkpoint and the final one in `checkpoints`."""
    if cfg.sft.enabled:
        from pulse.train.sft import run_sft

        policy_path = str(run_sft(cfg, policy_path, train, out / "sft", nproc))
        dist.release_trainer()
        checkpoints["sft"] = policy_path
    if cfg.grpo.enabled:
        from pulse.train.grpo import run_grpo

        policy_path = str(run_grpo(cfg, policy_path, train, out / "grpo", nproc))
        checkpoints["grpo"] = policy_path
        dist.release_trainer()
    checkpoints["final"] = policy_path


def _stage_records(
    cfg: TrainConfig, held_out: list[PolicyExample], out: Path, summary: dict[str, Any]
) -> None:
    """Per trained stage: the config hash that produced its weights (read back from final/, not
    assumed) and, with `eval_after`, its held-out evaluation (eval_<stage>.json, reused when there)."""
    stages = [s for s in ("sft", "grpo") if s in summary["checkpoints"]]
    for stage in stages:
        prov = stage_provenance(summary["checkpoints"][stage])
        summary["stage_config_hash"][stage] = prov.get("config_hash") if prov else None
    # The held-out evaluation runs on the main process alone, after every trainer is released (no
    # ZeRO-3 hook left: its model loads as a plain model) and with no collective after it: the other
    # ranks are done and may have exited.
    if cfg.eval_after and _is_main():
        for stage in stages:
            path = out / f"eval_{stage}.json"
            if not path.exists():
                atomic_write_json(path, evaluate_checkpoint(cfg, summary["checkpoints"][stage], held_out))
            summary["eval"][stage] = json.loads(path.read_text())


def _is_main() -> bool:
    return dist.is_main()


def _wait_for_everyone() -> None:
    dist.wait_for_everyone()
