"""`pulse eval-policy` / `python -m pulse.eval_policy`: held-out policy metrics for one checkpoint.

    pulse eval-policy policy.name_or_path=outputs/train/tiny_qwen3-pulse-s0/grpo/final
    pulse eval-policy policy.backend=openai policy.base_url=http://localhost:8000/v1 \
        policy.name_or_path=Qwen/Qwen3-8B policy.prompt_style=rich

Writes metrics.json and predictions.jsonl to out_dir and prints a table.
"""
from __future__ import annotations

import json
from pathlib import Path

from pulse.cli_support import hydra_entry


def _run(cfg) -> None:
    from pulse.config.schema import EvalPolicyConfig, to_typed
    from pulse.policy.evaluate import evaluate_policy, format_metrics_table
    from pulse.policy.factory import build_policy
    from pulse.train.data import ensure_dataset, load_examples
    from pulse.utils.atomic import atomic_write_json, atomic_write_text
    from pulse.utils.manifest import write_manifest

    c = to_typed(cfg, EvalPolicyConfig)
    examples = load_examples(ensure_dataset(c.data), c.split, c.data.max_eval_examples)
    policy = build_policy(c.policy)
    metrics, rows = evaluate_policy(policy, examples, batch_size=c.policy.batch_size)
    out = Path(c.out_dir)
    write_manifest(out, config=c, policy=c.policy.__dict__, dataset=c.data.path, split=c.split, seed=c.seed)
    atomic_write_json(out / "metrics.json", metrics)
    atomic_write_text(out / "predictions.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    print(format_metrics_table({c.label or c.policy.name_or_path: metrics},
                               f"Policy evaluation on {c.data.path} [{c.split}], {len(examples)} examples"))
    print(f"[pulse eval-policy] wrote {out}/metrics.json")


main = hydra_entry("eval-policy", _run, config_name="eval_policy")

if __name__ == "__main__":
    main()
