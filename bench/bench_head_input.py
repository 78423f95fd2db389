"""What a contiguous head input saves (pulse/models/loading.py `contiguous_head_input`).

Run: .venv/bin/python bench/bench_head_input.py [--model artifacts/models/qwen2.5_coder_0.5b]
Writes bench/results/head_input.json and prints it.

Generation and trl's log-probabilities ask a causal LM for the logits of the last positions only, so its
output head multiplies a slice `hidden[:, -k:, :]` that is not contiguous. With a frozen head weight
(the base under LoRA, a merged adapter) torch's matmul broadcasts the weight over the batch and copies
it. Measured here, in one process, 2 threads, bf16, median of `--repeats`:
- `head_only`: Qwen2.5-0.5B's head shape (151,936 x 896, random weights), the last position, batch 8
  and 16, frozen and trainable weight, sliced and contiguous input;
- `model` (when `--model` names a built folder): one forward of the loaded model on 16 x 120 random
  tokens with `logits_to_keep=1`, weights frozen, with and without the hook.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "head_input.json"


def _median_seconds(fn, repeats: int) -> float:
    fn()  # warm-up (kernel selection, allocation)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 4)


def head_only(repeats: int) -> list[dict]:
    import torch

    rows = []
    for batch in (8, 16):  # 64 would copy 17 GB: the out-of-memory kill this guards against
        hidden = torch.randn(batch, 120, 896, dtype=torch.bfloat16)
        for trainable in (False, True):
            weight = torch.randn(151936, 896, dtype=torch.bfloat16, requires_grad=trainable)
            for layout, x in (("slice", hidden[:, -1:, :]), ("contiguous", hidden[:, -1:, :].contiguous())):
                with torch.no_grad():
                    s = _median_seconds(lambda x=x, w=weight: torch.nn.functional.linear(x, w), repeats)
                rows.append(dict(batch=batch, weight_requires_grad=trainable, input=layout, seconds=s))
    return rows


def model_forward(path: str, repeats: int) -> list[dict]:
    import torch
    from transformers import AutoModelForCausalLM

    from pulse.models.loading import contiguous_head_input

    ids = torch.randint(0, 1000, (16, 120), generator=torch.Generator().manual_seed(0))
    rows = []
    for hooked in (False, True):
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16).eval().requires_grad_(False)
        if hooked:
            contiguous_head_input(model)
        with torch.no_grad():
            s = _median_seconds(lambda m=model: m(input_ids=ids, logits_to_keep=1), repeats)
        rows.append({"hook": hooked, "batch": 16, "tokens": 120, "seconds": s})
        del model
    return rows


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="artifacts/models/qwen2.5_coder_0.5b")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(2)
    result = {
        "what": "output head on the last-position slice vs a contiguous copy (bench/bench_head_input.py)",
        "torch": torch.__version__,
        "cpu": platform.processor() or platform.machine(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        "repeats": args.repeats,
        "head_only": head_only(args.repeats),
    }
    if (ROOT / args.model / "config.json").exists() or Path(args.model, "config.json").exists():
        result["model"] = {"path": args.model, "rows": model_forward(args.model, args.repeats)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(OUT)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
