"""Policy evaluation on labeled examples: action accuracy, per-action precision/recall,
interruption success (share of chosen interventions that are correct, the paper's Fig. 3), total
interventions, parse-failure rate, and accuracy per case type.

Accuracies (all on the run-time semantics, a parse failure acting as silent, unless "strict"):
- `action_accuracy`: the chosen action equals the gold action;
- `decision_accuracy`: the decision is *correct* (`pulse.core.correctness`): right action and, for
  supplement/intervene, evidence naming every gold item;
- `strict_decision_accuracy`: as decision_accuracy, but every parse failure counts as wrong.
Per-action precision/recall and interruption success use correctness (evidence included).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pulse.core.correctness import is_correct, is_correct_parse
from pulse.core.examples import PolicyExample
from pulse.core.records import ACTIONS
from pulse.policy.base import Policy, PolicyOutput


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def policy_metrics(examples: Sequence[PolicyExample], outputs: Sequence[PolicyOutput]) -> dict[str, Any]:
    """The metrics of the module docstring for outputs against their examples' gold decisions, overall, per
    action and per case type."""
    n = len(examples)
    correct = [is_correct(o.decision, ex.gold) for ex, o in zip(examples, outputs)]
    same_action = [o.decision.action == ex.gold.action for ex, o in zip(examples, outputs)]
    strict = [is_correct_parse(o.parse, ex.gold) for ex, o in zip(examples, outputs)]
    per_action = {}
    for a in ACTIONS:
        chosen = [i for i, o in enumerate(outputs) if o.decision.action == a]
        gold = [i for i, ex in enumerate(examples) if ex.gold.action == a]
        hits = [i for i in chosen if correct[i]]
        per_action[a] = {
            "chosen": len(chosen),
            "gold": len(gold),
            "precision": _ratio(len(hits), len(chosen)),
            "recall": _ratio(len([i for i in gold if correct[i]]), len(gold)),
        }
    interventions = per_action["intervene"]["chosen"]
    correct_int = sum(1 for i, o in enumerate(outputs) if o.decision.action == "intervene" and correct[i])
    by_case: dict[str, list[bool]] = {}
    for ex, c in zip(examples, correct):
        by_case.setdefault(ex.case_type, []).append(c)
    action_by_case: dict[str, list[bool]] = {}
    for ex, c in zip(examples, same_action):
        action_by_case.setdefault(ex.case_type, []).append(c)
    confusion = Counter(f"{ex.gold.action}->{o.decision.action}" for ex, o in zip(examples, outputs))
    return {
        "n": n,
        "action_accuracy": _ratio(sum(same_action), n),
        "decision_accuracy": _ratio(sum(correct), n),
        "strict_decision_accuracy": _ratio(sum(strict), n),
        "parse_failure_rate": _ratio(sum(not o.parse.ok for o in outputs), n),
        "interventions": interventions,
        "correct_interventions": correct_int,
        "wrong_interventions": interventions - correct_int,
        "interruption_success": _ratio(correct_int, interventions),
        "per_action": per_action,
        "decision_accuracy_by_case": {k: sum(v) / len(v) for k, v in sorted(by_case.items())},
        "action_accuracy_by_case": {k: sum(v) / len(v) for k, v in sorted(action_by_case.items())},
        "confusion": dict(sorted(confusion.items())),
        "mean_completion_tokens": _ratio(sum(o.completion_tokens for o in outputs), n),
    }


def evaluate_policy(
    policy: Policy, examples: Sequence[PolicyExample], batch_size: int = 64, progress: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run the policy on every example; return (metrics, per-example rows)."""
    from tqdm.auto import tqdm

    outputs: list[PolicyOutput] = []
    t0 = time.perf_counter()
    bar = tqdm(
        total=len(examples), desc=f"eval {policy.name.split('/')[-1]}", disable=not progress, leave=False
    )
    for start in range(0, len(examples), batch_size):
        chunk = examples[start : start + batch_size]
        outputs.extend(policy.decide_batch([ex.inp for ex in chunk]))
        bar.update(len(chunk))
    bar.close()
    seconds = time.perf_counter() - t0
    metrics = policy_metrics(examples, outputs)
    metrics.update(
        seconds=round(seconds, 3),
        examples_per_s=round(len(examples) / max(seconds, 1e-9), 2),
        policy=policy.name,
    )
    rows = [
        {
            "example_id": ex.example_id,
            "case_type": ex.case_type,
            "gold": ex.gold.to_dict(),
            "decision": o.decision.to_dict(),
            "parse_ok": o.parse.ok,
            "parse_error": o.parse.error,
            "completion": o.completion,
        }
        for ex, o in zip(examples, outputs)
    ]
    return metrics, rows


def format_metrics_table(results: dict[str, dict[str, Any]], title: str = "") -> str:
    """Markdown table: one row per policy."""

    def pct(v: Any) -> str:
        return "n/a" if v is None else f"{100 * v:.1f}"

    lines = [title] if title else []
    lines += [
        "| policy | n | action acc % | decision acc % | interruption success % | interventions "
        "| parse fail % |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in results.items():
        lines.append(
            f"| {name} | {m['n']} | {pct(m['action_accuracy'])} | {pct(m['decision_accuracy'])} | "
            f"{pct(m['interruption_success'])} | {m['interventions']} | {pct(m['parse_failure_rate'])} |"
        )
    return "\n".join(lines)
