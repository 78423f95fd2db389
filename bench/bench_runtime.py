"""Runtime benchmark: wall time the memory agent adds to a task, and harness throughput.

    .venv/bin/python bench/bench_runtime.py [--tasks 3] [--llm-latency-s 1.0] [--policy MODEL_DIR|rule]

Part 1 (added wall time, measured in one run): the simulated task agent runs the same pibench_sim
tasks in *real time* — each LLM decision sleeps the latency model (`--llm-latency-s` + per-token
part), each tool call sleeps `--tool-latency-s` — three ways:
  none       no memory agent (baseline wall time T0)
  streaming  Pulse: memory agent on its own thread, event-gated retrieval, blocks only at gates
  serial     retrieve + policy before every step, inline and blocking (the serial baseline)
Memory is the real store (pulse.memory, BM25) and the policy is a real local model on CPU (a tiny
Qwen3 built offline unless --policy names a checkpoint, e.g. a trained tiny Qwen3 or SmolLM2-135M;
`rule` = the non-learned rule policy; `modelled:SECONDS` = rule decisions held SECONDS per call, the
modelled decision time of a served Qwen3-8B that cannot run here, labelled as modelled).
Two added-wall-time figures per mode, each under its own key (KEY_DEFINITIONS, also written into the JSON):
  waiting_for_memory_pct   100 * blocking_s / (wall_s - blocking_s): time the task agent spent
                           *waiting* for the memory agent over the rest of its wall time in the same
                           run, so extra replanning decisions that an intervention causes count as
                           task work, not as memory overhead. Goal (issue 4): streaming <= 5 %,
                           serial >= 15 %.
  wall_change_vs_none_pct  100 * (wall_s - T0) / T0: the raw wall change vs the no-memory run
                           (includes replanning).
(Result files written before commit 42bfcaa had only the second figure, then named `added_wall_pct`;
the committed ones were renamed to these keys.)
Part 2: harness throughput, episodes/s with the simulated agent (no sleeps) for none and
pulse (rule policy) on the full pibench_sim suite.
Writes bench/results/runtime_<timestamp>.json and prints a summary.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY_DEFINITIONS = {
    "waiting_for_memory_pct": "100 * blocking_s / (wall_s - blocking_s): time the task agent waited for the "
    "memory agent, as a share of the rest of its wall time in the same run",
    "wall_change_vs_none_pct": "100 * (wall_s - none.wall_s) / none.wall_s: raw wall-time change against "
    "the run without memory (includes extra replanning that interventions cause)",
}


class ModelledLatencyPolicy:
    """The rule policy's decisions, each call held for a fixed decision time: a stand-in for the
    latency of a served model that cannot run here (e.g. Qwen3-8B behind vLLM). Labelled "modelled".
    A batch of n inputs (plan-time speculation decides a plan and the call it announces together)
    is held `seconds * (1 + batch_overhead * (n - 1))`: a served model decodes a small batch in about
    the time of one input, prefill grows with it; `batch_overhead` is that extra share per input."""

    def __init__(self, seconds: float, batch_overhead: float = 0.25):
        from pulse.agent.rule_policy import RulePolicy

        self.inner, self.seconds, self.batch_overhead = RulePolicy(), seconds, batch_overhead

    def decide_batch(self, inputs):
        time.sleep(self.seconds * (1 + self.batch_overhead * max(0, len(inputs) - 1)))
        return self.inner.decide_batch(inputs)


def build_policy(arg: str, tmp: Path, max_new_tokens: int, batch_overhead: float = 0.25):
    if arg == "rule":
        from pulse.agent.rule_policy import RulePolicy

        return RulePolicy(), "rule"
    if arg.startswith("modelled:"):
        seconds = float(arg.split(":", 1)[1])
        return ModelledLatencyPolicy(seconds, batch_overhead), (
            f"modelled decision time {seconds} s/call (rule decisions; a batch of n inputs "
            f"{seconds} * (1 + {batch_overhead} * (n - 1)) s)"
        )
    from pulse.policy.transformers_policy import TransformersPolicy

    model_dir = arg
    if not model_dir:
        from eval.suites import pibench_sim
        from pulse.models.tiny_qwen3 import build_tiny_qwen3

        texts = [t.request_text for t in pibench_sim.generate(0).tasks] + ['{"action": "silent"}']
        model_dir = str(build_tiny_qwen3(tmp / "tiny", texts))
    from pulse.policy.factory import trained_prompt_style

    style = trained_prompt_style(model_dir) or "compact"  # read a checkpoint the way it was trained
    return TransformersPolicy(
        model_dir, prompt_style=style, max_new_tokens=max_new_tokens, batch_size=1
    ), model_dir


def run_mode(mode: str, tasks, suite, policy, params, tmp: Path, speculate: bool = True) -> dict:
    from eval.agents.simulated import SimulatedAgent
    from eval.memory_backends import open_chain_memory
    from eval.methods.none import NoMemory
    from eval.suites.workspace import make_env
    from pulse.agent.runtime import PulseAgent, PulseAgentConfig
    from pulse.agent.speculation import call_specs_from

    agent = SimulatedAgent(params, deterministic=False, realtime=True)
    walls, blocking, mem_work, policy_calls = [], [], [], 0
    spec = {"speculative_calls": 0, "speculative_hits": 0, "speculative_misses": 0}
    gates: list[dict] = []  # every gate that held a call >= 50 ms: where the task agent still waits
    by_user: dict[str, list] = {}
    for t in tasks:
        by_user.setdefault(t.user_id, []).append(t)
    from eval.methods.pulse_method import tools_vocab

    for user, ts in by_user.items():
        persona = suite.persona(user)
        root = tmp / f"mem-{mode}-{user}"
        shutil.rmtree(root, ignore_errors=True)
        mem = open_chain_memory("structured", root, user, [t.project_id for t in ts], persona.memory)
        env = make_env(persona.tools)
        for t in ts:
            if mode == "none":
                session = NoMemory().open_session(t, None, False)
            else:
                session = PulseAgent(
                    mem,
                    policy,
                    PulseAgentConfig(
                        t.user_id,
                        t.project_id,
                        mode="streaming" if mode == "streaming" else "serial",
                        concurrent=(mode == "streaming"),
                        as_of=t.time,
                        conversation_id=f"{mode}-{t.task_id}",
                        slot_vocab=tools_vocab(persona.tools),
                        call_specs=call_specs_from(persona.tools),
                        speculate=speculate,
                    ),
                )
                session.decide_call = _timed_gate(session, t.task_id, gates)
            t0 = time.perf_counter()
            agent.run(t, env, session, seed=0)
            walls.append(time.perf_counter() - t0)
            st = session.stats
            blocking.append(st.blocking_s)
            mem_work.append(st.memory_wall_s)
            policy_calls += st.policy_calls
            for k in spec:
                spec[k] += getattr(st, k, 0)
    return {
        "wall_s": sum(walls),
        "per_task_wall_s": walls,
        "blocking_s": sum(blocking),
        "memory_work_s": sum(mem_work),
        "policy_calls": policy_calls,
        **(spec if mode != "none" else {}),
        **({"gates_waiting": gates} if mode != "none" else {}),
    }


def _timed_gate(session, task_id: str, log: list[dict]):
    """`session.decide_call`, logging every gate that held the call >= 50 ms (step, tool, wait, action,
    whether the decision was made ahead)."""
    decide = session.decide_call

    def timed(event):
        n = len(session.stats.decisions)
        t0 = time.perf_counter()
        gd = decide(event)
        wait = time.perf_counter() - t0
        if wait >= 0.05:
            rec = session.stats.decisions[-1] if len(session.stats.decisions) > n else None
            log.append(
                {
                    "task": task_id,
                    "step": event.step,
                    "tool": event.tool,
                    "wait_s": round(wait, 3),
                    "action": gd.decision.action,
                    "policy_called": bool(rec and rec.policy_called),
                    "speculative": bool(rec and getattr(rec, "speculative", False)),
                }
            )
        return gd

    return timed


def _decision_time(res: dict) -> dict:
    """Mean memory-agent work per policy decision in each mode (retrieval + the policy's decision;
    decisions made ahead by speculation count)."""
    out = {}
    for m, r in res.items():
        if m == "none":
            continue
        n = r.get("policy_calls", 0) + r.get("speculative_calls", 0)
        out[m] = round(r["memory_work_s"] / n, 4) if n else None
    return out


def throughput(tmp: Path) -> dict:
    from eval.config import BenchmarkConfig, EvalConfig, MethodConfig
    from eval.harness import run_eval
    from eval.metrics import read_rows

    out = {}
    for name, m in (
        ("none", MethodConfig("none", "none")),
        ("pulse_rule", MethodConfig("pulse_rule", policy="rule")),
    ):
        t0 = time.perf_counter()
        d = run_eval(
            EvalConfig(
                out_dir=str(tmp / f"tp-{name}"),
                method=m,
                benchmark=BenchmarkConfig("pibench_sim"),
                resume=False,
                progress=False,
            )
        )
        dt = time.perf_counter() - t0
        n = len(read_rows(d / "episodes.jsonl"))
        out[name] = {"episodes": n, "seconds": round(dt, 3), "episodes_per_s": round(n / dt, 2)}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=4, help="pibench_sim tasks (first of each persona chain)")
    p.add_argument(
        "--llm-latency-s", type=float, default=1.0, help="fixed latency per task-agent LLM decision"
    )
    p.add_argument("--tool-latency-s", type=float, default=0.1)
    p.add_argument(
        "--policy",
        default="",
        help="policy model dir (a trained tiny Qwen3, a SmolLM2-135M dir), "
        "'rule', 'modelled:SECONDS' (rule decisions held SECONDS per call: a served Qwen3-8B's "
        "decision time), or '' = build a tiny Qwen3",
    )
    p.add_argument("--label", default="", help="a name for this policy in the result file")
    p.add_argument(
        "--batch-overhead",
        type=float,
        default=0.25,
        help="modelled policy: extra share of a decision's time per further input in one batch",
    )
    p.add_argument(
        "--no-speculate", action="store_true", help="streaming without plan-time speculation (ablation)"
    )
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--skip-throughput", action="store_true")
    p.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = p.parse_args(argv)

    import logging

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    from eval.agents.simulated import BehaviourParams
    from eval.suites import pibench_sim

    tmp = Path(tempfile.mkdtemp(prefix="pulse-bench-"))
    try:
        suite = pibench_sim.generate(0)
        chains = suite.chains()
        tasks = [ts[0] for ts in chains.values()][: a.tasks]
        policy, policy_name = build_policy(a.policy, tmp, a.max_new_tokens, a.batch_overhead)
        params = BehaviourParams(
            llm_latency_s=a.llm_latency_s,
            llm_latency_s_per_1k_ctx_tokens=0.0,
            tool_latency_s=a.tool_latency_s,
        )
        res = {
            m: run_mode(m, tasks, suite, policy, params, tmp, speculate=not a.no_speculate)
            for m in ("none", "streaming", "serial")
        }
        t0 = res["none"]["wall_s"]
        for m in ("streaming", "serial"):
            r = res[m]
            r["waiting_for_memory_pct"] = round(100 * r["blocking_s"] / (r["wall_s"] - r["blocking_s"]), 2)
            r["wall_change_vs_none_pct"] = round(100 * (r["wall_s"] - t0) / t0, 2)
        result = {
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "machine": platform.platform(),
            "tasks": [t.task_id for t in tasks],
            "steps": sum(len(t.steps) for t in tasks),
            "llm_latency_s": a.llm_latency_s,
            "tool_latency_s": a.tool_latency_s,
            "policy": policy_name,
            "policy_label": a.label,
            "policy_decision_s": _decision_time(res),
            "policy_max_new_tokens": a.max_new_tokens,
            "speculate": not a.no_speculate,
            "memory": "pulse.memory structured (bm25)",
            "added_wall_time": res,
            "key_definitions": KEY_DEFINITIONS,
            "throughput_simulated_agent": None if a.skip_throughput else throughput(tmp),
            "note": "simulated task agent in real time (sleeps the latency model); memory agent and policy "
            "real",
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    from pulse.utils.atomic import atomic_write_json

    path = out / f"runtime_{time.strftime('%Y%m%d-%H%M%S')}.json"
    atomic_write_json(path, result)
    r = result["added_wall_time"]
    print(
        f"added wall time vs no memory (T0 = {r['none']['wall_s']:.2f} s over {len(tasks)} tasks, "
        f"{result['steps']} steps, LLM latency {a.llm_latency_s} s/decision, policy {policy_name}):"
    )
    for m in ("streaming", "serial"):
        print(
            f"  {m:9s}: +{r[m]['waiting_for_memory_pct']:.1f} % waiting for memory (raw wall change vs none "
            f"{r[m]['wall_change_vs_none_pct']:+.1f} %; wall {r[m]['wall_s']:.2f} s, blocking "
            f"{r[m]['blocking_s']:.2f} s, memory work {r[m]['memory_work_s']:.2f} s, "
            f"policy calls {r[m]['policy_calls']}, "
            f"speculative {r[m]['speculative_calls']} = {r[m]['speculative_hits']} hits + "
            f"{r[m]['speculative_misses']} misses)"
        )
        for g in r[m]["gates_waiting"]:
            print(
                f"    waited {g['wait_s']:.2f} s at {g['task']} step {g['step']} {g['tool']} -> {g['action']}"
                f"{' (decided ahead)' if g['speculative'] else ''}"
            )
    if result["throughput_simulated_agent"]:
        for k, v in result["throughput_simulated_agent"].items():
            print(
                f"  harness throughput [{k}, simulated agent]: {v['episodes_per_s']} episodes/s "
                f"({v['episodes']} episodes in {v['seconds']} s)"
            )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
