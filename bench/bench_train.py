"""Training speed on the CPU default: GRPO seconds/step of Pulse's trainer vs bare trl GRPOTrainer on
the same tiny model and batch, and SFT seconds/step.

    .venv/bin/python bench/bench_train.py [--steps 12] [--repeats 2] [--out bench/results/train.json]

"Pulse" = our GRPOConfig builder, the three Eq. 12 reward terms (strict parsing), the metrics JSONL
callback and our dataset shaping. "bare trl" = GRPOTrainer with one constant reward function and
the same GRPOConfig sizes. Both use learning_rate=0 so that both sample the same completions
(same seed, unchanged weights) and the difference is our overhead alone. Runs alternate
(bare, pulse, bare, pulse, ...) to spread machine noise; medians of per-step times after 2 warm-up
steps are reported.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _step_timer():
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):
        def __init__(self):
            self.times: list[float] = []
            self._t = 0.0

        def on_step_begin(self, args, state, control, **kw):
            self._t = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            self.times.append(time.perf_counter() - self._t)

    return StepTimer()


def run_grpo(kind: str, model_path: str, examples, cfg, out: Path) -> list[float]:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from pulse.models.loading import load_model, load_tokenizer
    from pulse.train.data import grpo_rows
    from pulse.train.grpo import build_grpo_config
    from pulse.train.metrics_log import JsonlMetricsCallback
    from pulse.train.rewards import make_reward_terms
    from pulse.train.trainer_common import lora_config

    tok = load_tokenizer(model_path)
    model = load_model(model_path)
    timer = _step_timer()
    rows = grpo_rows(examples, "compact")
    args = build_grpo_config(cfg, out / kind)
    if kind == "pulse":
        funcs = list(make_reward_terms(tok.eos_token_id).values())
        callbacks = [timer, JsonlMetricsCallback(out / kind / "metrics.jsonl", "grpo")]
        dataset = Dataset.from_list(rows)
    else:

        def constant(completions, **_):
            return [0.0] * len(completions)

        # Same sizes, trl defaults otherwise; only the prompt column.
        # Same sizes; trl re-derives the generation batch from them.
        args = GRPOConfig(
            **{
                **args.to_dict(),
                "reward_weights": None,
                "report_to": [],
                "generation_batch_size": None,
                "steps_per_generation": None,
            }
        )
        funcs, callbacks = [constant], [timer]
        dataset = Dataset.from_list([{"prompt": r["prompt"]} for r in rows])
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=funcs,
        args=args,
        train_dataset=dataset,
        processing_class=tok,
        peft_config=lora_config(cfg),
        callbacks=callbacks,
    )
    trainer.train()
    return timer.times[2:]


def run_sft(model_path: str, examples, cfg, out: Path) -> list[float]:
    from datasets import Dataset
    from trl import SFTTrainer

    from pulse.models.loading import load_model, load_tokenizer
    from pulse.train.data import sft_rows
    from pulse.train.sft import build_sft_config

    timer = _step_timer()
    trainer = SFTTrainer(
        model=load_model(model_path),
        args=build_sft_config(cfg, out / "sft"),
        train_dataset=Dataset.from_list(sft_rows(examples, "compact")),
        processing_class=load_tokenizer(model_path),
        callbacks=[timer],
    )
    trainer.train()
    return timer.times[2:]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--out", default="bench/results/train.json")
    a = p.parse_args()

    import torch
    from transformers.utils import logging as hf_logging

    from data_gen.build import build_dataset
    from data_gen.config import GenDataConfig
    from pulse.config.schema import TinyModelSpec, TrainConfig
    from pulse.models.tiny_qwen3 import build_tiny_qwen3
    from pulse.train.data import load_examples, tokenizer_corpus

    hf_logging.set_verbosity_error()
    tmp = Path(tempfile.mkdtemp(prefix="pulse-bench-"))
    build_dataset(GenDataConfig(seed=0, n_users=48), tmp / "data")
    examples = load_examples(tmp / "data", "train", 512)
    model = build_tiny_qwen3(tmp / "model", tokenizer_corpus(examples, "compact"), TinyModelSpec())
    base = TrainConfig()
    cfg = dataclasses.replace(
        base,
        out_dir=str(tmp),
        # the prompt style the tokenizer above was built on (and bench/results/train.json measured)
        model=dataclasses.replace(base.model, prompt_style="compact"),
        grpo=dataclasses.replace(base.grpo, steps=a.steps, learning_rate=0.0, save_every_steps=10**6),
        sft=dataclasses.replace(base.sft, steps=a.steps, save_every_steps=10**6),
    )
    times: dict[str, list[float]] = {"bare": [], "pulse": []}
    for r in range(a.repeats):
        for kind in ("bare", "pulse"):
            times[kind] += run_grpo(kind, str(model), examples, cfg, tmp / f"r{r}")
    sft_times = run_sft(str(model), examples, cfg, tmp)
    med = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "benchmark": "train_speed",
        "machine": {
            "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(),
            "cpu_count": os.cpu_count(),
        },
        "model": {
            "path": "tiny_qwen3 (random init)",
            "parameters": sum(
                p.numel()
                for p in __import__("transformers")
                .AutoModelForCausalLM.from_pretrained(str(model))
                .parameters()
            ),
        },
        "grpo_batch": {
            "prompts_per_step": cfg.grpo.prompts_per_step,
            "generations_per_prompt": cfg.grpo.generations_per_prompt,
            "max_completion_tokens": cfg.model.max_completion_tokens,
        },
        "grpo_s_per_step_median": med,
        "grpo_s_per_step_all": times,
        "grpo_overhead_pct": round(100 * (med["pulse"] / med["bare"] - 1), 2),
        "sft_examples_per_step": cfg.sft.examples_per_step,
        "sft_s_per_step_median": statistics.median(sft_times),
        "steps_measured_per_run": a.steps - 2,
        "repeats": a.repeats,
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2) + "\n")
    print(
        json.dumps(
            {k: result[k] for k in ("grpo_s_per_step_median", "grpo_overhead_pct", "sft_s_per_step_median")},
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
