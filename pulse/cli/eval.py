"""`pulse eval` (= `python -m pulse.cli.eval`): run one benchmark x method x task agent for one seed.

    pulse eval benchmark=pibench_sim method=pulse_no_rl base_policy.name_or_path=artifacts/models/tiny_qwen3
    pulse eval experiment=table1/pulse benchmark=mcp_persona_sim \
        policy.name_or_path=outputs/train/RUN/final seed=2
    pulse eval method=none agent=openai agent.model=M agent.base_url=http://localhost:8000/v1

Composes configs/eval.yaml; converts it once to the frozen `eval.config.EvalConfig`; writes the run
directory described in eval/harness.py and prints the summary (labelled "simulated agent" when the
task agent is the simulator). Exit status: 0; 1 when an episode failed (message on stderr naming
the count and the first error) unless allow_failures=true; 2 for a config error or a refused resume.
"""

from __future__ import annotations

import json
import sys

from omegaconf import DictConfig, OmegaConf

from pulse.cli.support import hydra_entry, report_and_exit


def _num(v, fmt: str = ".3f") -> str:
    return "n/a" if v is None else format(v, fmt)


def _fmt(summary: dict) -> str:
    label = " [simulated agent]" if summary.get("simulated") else ""
    if summary.get("agent") == "scripted":
        label = " [scripted agent: offline check, not a task agent]"
    if summary.get("judge"):  # real benchmarks: who judged (a proxy judge says so) and the components
        comps = ", ".join(f"{k} {_num(v)}" for k, v in (summary.get("components") or {}).items())
        label += f" [judge: {summary['judge']}]" + (f" [components: {comps}]" if comps else "")
    if summary.get("nonstandard"):
        label += f" [{summary['nonstandard']}]"
    stage = ", ".join(f"{k} {_num(v)}" for k, v in summary.get("stage_accuracy", {}).items())
    per = ", ".join(f"{k} {_num(v)}" for k, v in summary.get("score_per_persona", {}).items())
    ckpt = "/".join(summary.get("policy_checkpoints") or []) or "none"
    h = summary.get("checkpoint_hash") or ""
    return (
        f"{summary['benchmark']} / {summary['method']} / seed {summary['seed']}{label}: "
        f"score {_num(summary['score'])} over {summary['episodes']} episodes ({summary['failed']} failed); "
        f"per persona: {per}; "
        f"retrieve tok/task {_num(summary['retrieve_tokens'], '.1f')}; "
        f"store tok/task {_num(summary['store_tokens'], '.1f')}; "
        f"s/task {_num(summary['seconds_per_task'], '.2f')}; interventions {summary['interventions']} "
        f"(correct {summary['interventions_correct']}, fixed {summary['interventions_fixed']}, "
        f"misled {summary['interventions_misled']}; interruption success "
        f"{_num(summary['interruption_success'])}); tool errors {summary['tool_errors']}; "
        f"abandoned steps {summary['abandoned_steps']}; parse failures {summary['parse_failures']}/"
        f"{summary['policy_calls']}; stage acc: {stage}; policy checkpoint {ckpt}"
        f"{f' (sha256 {h[:12]})' if h else ''}"
    )


def failure_message(summary: dict) -> str | None:
    """The stderr line for a run with failed episodes (None when every episode ran)."""
    n = summary.get("failed", 0)
    if not n:
        return None
    first = (summary.get("failures") or [{}])[0]
    return (
        f"pulse eval: {n} of {summary['episodes']} episode(s) failed; first: {first.get('task_id', '?')}: "
        f"{first.get('error', '?')} (all in summary.json / episodes.jsonl; allow_failures=true exits 0)"
    )


def _run(cfg: DictConfig) -> None:
    from eval.config import EvalConfig
    from eval.harness import run_eval
    from eval.suites.schema import SuiteError
    from pulse.config.schema import to_typed

    try:
        typed = to_typed(cfg, EvalConfig)
        out = run_eval(typed, OmegaConf.to_yaml(cfg, resolve=True))
    except SuiteError as e:
        report_and_exit("eval", e)
    summary = json.loads((out / "summary.json").read_text())
    print(_fmt(summary))
    print(f"run dir: {out}")
    msg = failure_message(summary)
    if msg:
        print(msg, file=sys.stderr, flush=True)
        if not typed.allow_failures:
            sys.exit(1)


# Config errors, registry typos, missing models, a refused resume: one message, exit 2
# (pulse/cli/support.py). Failed episodes: exit 1 unless allow_failures=true.
main = hydra_entry("eval", _run)

if __name__ == "__main__":
    main()
