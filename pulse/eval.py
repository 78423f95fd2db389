"""`pulse eval` (= `python -m pulse.eval`): run one benchmark x method x task agent for one seed.

    pulse eval benchmark=pibench_sim method=pulse_no_rl base_policy.name_or_path=artifacts/models/tiny_qwen3
    pulse eval experiment=table1/pulse benchmark=mcp_persona_sim policy.name_or_path=outputs/train/RUN/final seed=2
    pulse eval method=none agent=openai agent.model=M agent.base_url=http://localhost:8000/v1

Composes configs/eval.yaml; converts it once to the frozen `eval.config.EvalConfig`; writes the run
directory described in eval/harness.py and prints the summary (labelled "simulated agent" when the
task agent is the simulator).
"""
from __future__ import annotations

import json

from omegaconf import DictConfig, OmegaConf

from pulse.cli_support import hydra_entry, report_and_exit


def _fmt(summary: dict) -> str:
    label = " [simulated agent]" if summary.get("simulated") else ""
    stage = ", ".join(f"{k} {v:.3f}" for k, v in summary.get("stage_accuracy", {}).items())
    return (f"{summary['benchmark']} / {summary['method']} / seed {summary['seed']}{label}: "
            f"score {summary['score']:.3f} over {summary['episodes']} episodes ({summary['failed']} failed); "
            f"retrieve tok/task {summary['retrieve_tokens']:.1f}; store tok/task {summary['store_tokens']:.1f}; "
            f"s/task {summary['seconds_per_task']:.2f}; interventions {summary['interventions']} "
            f"(right {summary['interventions_right']}); parse failures {summary['parse_failures']}/"
            f"{summary['policy_calls']}; stage acc: {stage}")


def _run(cfg: DictConfig) -> None:
    from pulse.config.schema import to_typed
    from eval.config import EvalConfig
    from eval.harness import run_eval
    from eval.suites.schema import SuiteError

    try:
        typed = to_typed(cfg, EvalConfig)
        out = run_eval(typed, OmegaConf.to_yaml(cfg, resolve=True))
    except SuiteError as e:
        report_and_exit("eval", e)
    summary = json.loads((out / "summary.json").read_text())
    print(_fmt(summary))
    print(f"run dir: {out}")


# Config errors, registry typos, missing models: one message, exit 2 (pulse/cli_support.py).
main = hydra_entry("eval", _run)

if __name__ == "__main__":
    main()
