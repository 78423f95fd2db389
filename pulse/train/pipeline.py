"""`pulse train`: data -> (build tiny model) -> SFT warm start -> GRPO (LoRA) -> held-out eval.

Run directory (`out_dir`): config.yaml (resolved), manifest.json, metrics.jsonl, sft/ and grpo/
(trl checkpoints + `final`), eval_<stage>.json, summary.json. Each stage is skipped when its
`final` exists and resumes from its newest checkpoint otherwise, so re-running a killed command
continues it.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pulse.config.schema import PolicyBackendConfig, TrainConfig, as_dict
from pulse.core.examples import PolicyExample
from pulse.models.loading import check_model_path
from pulse.train.data import ensure_dataset, load_examples, tokenizer_corpus
from pulse.utils.atomic import atomic_write_json
from pulse.utils.manifest import write_manifest

log = logging.getLogger("pulse.train")


def ensure_model(cfg: TrainConfig, train_examples: list[PolicyExample]) -> str:
    """The base model path; builds the tiny model offline when configured and missing."""
    path = cfg.model.name_or_path
    if cfg.model.build == "tiny_qwen3" and not Path(path).exists():
        from pulse.models.tiny_qwen3 import build_tiny_qwen3

        log.info("building tiny Qwen3 at %s (tokenizer trained on %d examples)", path, len(train_examples))
        build_tiny_qwen3(path, tokenizer_corpus(train_examples, "compact") + tokenizer_corpus(train_examples, "rich"),
                         cfg.model.tiny, seed=cfg.seed)
    elif cfg.model.build == "smollm2_135m" and not Path(path).exists():
        from pulse.models.smollm2 import rebuild_smollm2

        rebuild_smollm2(path)
    check_model_path(path)
    return path


def evaluate_checkpoint(cfg: TrainConfig, path: str, examples: list[PolicyExample]) -> dict[str, Any]:
    from pulse.policy.evaluate import evaluate_policy
    from pulse.policy.factory import build_policy

    policy = build_policy(PolicyBackendConfig(name_or_path=path, prompt_style=cfg.model.prompt_style,
                                              max_new_tokens=cfg.model.max_completion_tokens, dtype=cfg.model.dtype))
    metrics, _ = evaluate_policy(policy, examples)
    return metrics


def num_processes() -> int:
    from accelerate import PartialState

    return PartialState().num_processes


def run_training(cfg: TrainConfig) -> dict[str, Any]:
    import torch
    from transformers import set_seed

    from pulse.train.grpo import derived_batch_sizes

    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    nproc = num_processes()
    sizes = derived_batch_sizes(cfg, nproc) if cfg.grpo.enabled else {}  # fail fast on bad batches
    if cfg.device == "cpu":
        torch.set_num_threads(max(1, torch.get_num_threads()))
    set_seed(cfg.seed)
    data_path = ensure_dataset(cfg.data)
    train = load_examples(data_path, "train", cfg.data.max_train_examples)
    held_out = load_examples(data_path, "test", cfg.data.max_eval_examples)
    base = ensure_model(cfg, train)
    write_manifest(out, seeds={"train": cfg.seed, "data": cfg.data.seed}, dataset=str(data_path),
                   model=base, derived_batch_sizes=sizes, n_train=len(train), n_test=len(held_out))
    log.info("derived batch sizes: %s", sizes)
    print(f"[pulse train] run dir {out} | {len(train)} train / {len(held_out)} held-out examples | "
          f"model {base} | batch {sizes}", flush=True)

    summary: dict[str, Any] = {"run_name": cfg.run_name, "reward": as_dict(cfg.reward), "seed": cfg.seed,
                               "checkpoints": {"base": base}, "eval": {}}
    policy_path = cfg.init_from or base
    if cfg.init_from:
        check_model_path(cfg.init_from, key="init_from")
    if cfg.sft.enabled:
        from pulse.train.sft import run_sft

        policy_path = str(run_sft(cfg, policy_path, train, out / "sft"))
        summary["checkpoints"]["sft"] = policy_path
    if cfg.grpo.enabled:
        from pulse.train.grpo import run_grpo

        policy_path = str(run_grpo(cfg, policy_path, train, out / "grpo", nproc))
        summary["checkpoints"]["grpo"] = policy_path
    summary["checkpoints"]["final"] = policy_path
    if cfg.eval_after and _is_main():
        for stage in [s for s in ("sft", "grpo") if s in summary["checkpoints"]]:
            path = out / f"eval_{stage}.json"
            if not path.exists():
                atomic_write_json(path, evaluate_checkpoint(cfg, summary["checkpoints"][stage], held_out))
            import json

            summary["eval"][stage] = json.loads(path.read_text())
    if _is_main():
        atomic_write_json(out / "summary.json", summary)
    return summary


def _is_main() -> bool:
    from accelerate import PartialState

    return PartialState().is_main_process
