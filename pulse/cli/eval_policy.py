"""`pulse eval-policy` / `python -m pulse.cli.eval_policy`: policy metrics for one checkpoint.

    pulse eval-policy policy.name_or_path=outputs/train/tiny_qwen3-pulse-s0/grpo/final
    pulse eval-policy policy.backend=openai policy.base_url=http://localhost:8000/v1 \\
        policy.name_or_path=Qwen/Qwen3-8B policy.prompt_style=rich
    pulse eval-policy source=suite policy.name_or_path=CKPT seed=0      # where it runs (below)

source=dataset (default): held-out labelled examples; writes metrics.json and predictions.jsonl.
source=suite: runs each offline suite of `benchmarks` with the real PulseAgent driven by the policy
and the simulated task agent, as `pulse eval method=pulse` does (eval/policy_decisions.py), and
scores every policy call against the gold rule on the input the run time built: action and decision
accuracy, intervene recall, interruption success, interventions vs the oracle's on the same points,
confusion matrix, plus the run's suite score and harness-judged interventions. Writes
suite_decisions.json (per benchmark) and decisions.jsonl (one line per policy call).
`policy.name_or_path=rule` evaluates the gold rule itself (the oracle reference).
"""

from __future__ import annotations

import json
from pathlib import Path

from pulse.cli.support import hydra_entry


def build_any_policy(pcfg):
    """The policy `pulse eval-policy` scores: a checkpoint or endpoint, or a non-learned reference.

    Args:
        pcfg: the `PolicyBackendConfig`; `name_or_path` "rule" is the gold rule, "supplement_all" /
            "intervene_all" the situation-blind policies, anything else goes to `build_policy`.

    Returns:
        A policy (`decide_batch(inputs)` -> one `PolicyOutput` per input).

    Raises:
        ConfigError, ModelLoadError: as `pulse.policy.factory.build_policy` raises them.
    """
    if pcfg.name_or_path == "rule":
        from pulse.agent.rule_policy import RulePolicy

        return RulePolicy()
    if pcfg.name_or_path in ("supplement_all", "intervene_all"):
        from pulse.agent.blind_policies import BlindPolicy

        return BlindPolicy(pcfg.name_or_path)
    from pulse.policy.factory import build_policy

    return build_policy(pcfg)


def _run(cfg) -> None:
    from data_gen.ensure import ensure_dataset
    from pulse.config.schema import EvalPolicyConfig, to_typed
    from pulse.policy.evaluate import evaluate_policy, format_metrics_table
    from pulse.train.data import load_examples
    from pulse.utils.atomic import atomic_write_json, atomic_write_text
    from pulse.utils.manifest import write_manifest

    c = to_typed(cfg, EvalPolicyConfig)
    # the dataset is read before the model is loaded: a bad row or a missing dataset is named at once
    examples = (
        load_examples(ensure_dataset(c.data), c.split, c.data.max_eval_examples)
        if c.source != "suite"
        else []
    )
    policy = build_any_policy(c.policy)
    out = Path(c.out_dir)
    label = c.label or c.policy.name_or_path
    if c.source == "suite":
        from eval.policy_decisions import suite_decisions

        results, rows = suite_decisions(policy, c.benchmarks, c.seed, c.suite_seed, progress=True)
        write_manifest(out, config=c, policy=c.policy.__dict__, benchmarks=list(c.benchmarks), seed=c.seed)
        atomic_write_json(
            out / "suite_decisions.json", {"policy": label, "seed": c.seed, "benchmarks": results}
        )
        atomic_write_text(out / "decisions.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
        print(format_suite_table({label: results}, c.benchmarks))
        print(f"[pulse eval-policy] wrote {out}/suite_decisions.json")
        return
    metrics, rows = evaluate_policy(policy, examples, batch_size=c.policy.batch_size)
    write_manifest(out, config=c, policy=c.policy.__dict__, dataset=c.data.path, split=c.split, seed=c.seed)
    atomic_write_json(out / "metrics.json", metrics)
    atomic_write_text(out / "predictions.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    print(
        format_metrics_table(
            {label: metrics}, f"Policy evaluation on {c.data.path} [{c.split}], {len(examples)} examples"
        )
    )
    print(f"[pulse eval-policy] wrote {out}/metrics.json")


def format_suite_table(results: dict, benchmarks) -> str:
    def pct(v):
        return "n/a" if v is None else f"{100 * v:.1f}"

    lines = [
        "Decision points of suite runs (every policy call; gold rule label; simulated task agent)",
        "| policy | benchmark | calls | decision acc % | action acc % | intervene recall % | "
        "interruption success % | interventions | oracle interventions | mean task score % |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, per in results.items():
        for b in benchmarks:
            m = per[b]
            lines.append(
                f"| {name} | {b} | {m['n']} | {pct(m.get('decision_accuracy'))} | "
                f"{pct(m.get('action_accuracy'))} | {pct(m.get('intervene_recall'))} | "
                f"{pct(m.get('interruption_success'))} | {m.get('interventions')} | "
                f"{m['oracle_interventions']} | {pct(m.get('task_mean_score'))} |"
            )
    return "\n".join(lines)


main = hydra_entry("eval-policy", _run, config_name="eval_policy")

if __name__ == "__main__":
    main()
