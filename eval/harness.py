"""The evaluation harness: benchmark x method x task agent -> one JSONL row per episode.

Run directory (`out_dir`):
  config.yaml      the resolved config
  manifest.json    git commit, package versions, seed, suite name/version/seed, agent and judge
                   models, whether the agent is simulated, which memory store and kind ran
  episodes.jsonl   one row per task episode (appended as each finishes)
  summary.json     metrics over the rows (eval/metrics.py)
A persona's tasks form one chain (shared memory and workspace, in order). Resume skips chains
whose every task already has a row; a partially finished chain is rerun from its start (its memory
state depends on the earlier tasks) after its old rows are dropped. An episode that raises is
recorded with status "failed" and the error, and the run continues.
"""
from __future__ import annotations

import json
import os
import shutil
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from pulse.agent.runtime import AgentStats
from pulse.utils.atomic import atomic_write_json, atomic_write_text
from pulse.utils.manifest import write_manifest
from eval.config import EvalConfig
from eval.envs import check_task, make_env, task_score
from eval.memory_backends import describe as describe_memory
from eval.memory_backends import open_chain_memory
from eval.methods.base import MethodContext
from eval.metrics import STAGES, read_rows, summarize
from eval.registry import AGENTS, BENCHMARKS, METHODS
from eval.suites.schema import SimTask, Suite

ROWS = "episodes.jsonl"


def make_policy_getter(cfg: EvalConfig) -> Callable[[str], Any]:
    cache: dict[str, Any] = {}

    def get(source: str):
        if source in cache:
            return cache[source]
        from pulse.config.schema import ConfigError
        if source == "rule":
            from pulse.agent.rule_policy import RulePolicy
            pol = RulePolicy()
        elif source in ("trained", "base"):
            from pulse.policy.factory import build_policy
            pcfg = cfg.policy if source == "trained" else cfg.base_policy
            key = "policy" if source == "trained" else "base_policy"
            if not pcfg.name_or_path:
                raise ConfigError(f"{key}.name_or_path: method {cfg.method.name!r} needs the "
                                  f"{'trained checkpoint' if source == 'trained' else 'untrained base model'}")
            pol = build_policy(pcfg)
        else:
            raise ConfigError(f"method.policy: {source!r} not in ('trained', 'base', 'rule')")
        cache[source] = pol
        return pol

    return get


def _append_row(path: Path, row: dict[str, Any]) -> None:
    line = json.dumps(row, sort_keys=True, default=str) + "\n"
    with open(path, "a") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def _score_row(task: SimTask, suite: Suite, env, outcome, stats: AgentStats) -> dict[str, Any]:
    checks = check_task(task, env.state)
    stage_counts = {s: [0, 0] for s in STAGES}
    source_counts: dict[str, list[int]] = {}
    for c in checks:
        stage_counts[c.checkpoint.stage][0] += c.passed
        stage_counts[c.checkpoint.stage][1] += 1
        sc = source_counts.setdefault(c.checkpoint.source, [0, 0])
        sc[0] += c.passed
        sc[1] += 1
    return {
        "score": task_score(checks, suite.metric), "metric": suite.metric,
        "checkpoints_passed": sum(c.passed for c in checks), "checkpoints_total": len(checks),
        "stage_counts": stage_counts, "source_counts": source_counts,
        "failed_checkpoints": [c.checkpoint.checkpoint_id for c in checks if not c.passed],
        "seconds": round(outcome.seconds, 4), "memory_blocking_s": round(outcome.memory_blocking_s, 6),
        "llm_calls": outcome.llm_calls, "tool_calls": outcome.tool_calls, "tool_errors": outcome.tool_errors,
        "abandoned_steps": outcome.abandoned_steps,
        "interventions": len(outcome.interventions),
        "interventions_correct": sum(i.correct for i in outcome.interventions),
        "interventions_fixed": sum(i.fixed for i in outcome.interventions),
        "interventions_misled": sum(i.misled for i in outcome.interventions),
        **{k: v for k, v in stats.to_dict().items() if k != "interventions"},
    }


def _quiet_libraries() -> None:
    import logging
    try:  # bm25s sets its logger's level when imported; import first, then quiet it
        import bm25s  # noqa: F401
    except ImportError:
        pass
    for name in ("bm25s", "mcp", "httpx"):
        logging.getLogger(name).setLevel(logging.WARNING)


def run_eval(cfg: EvalConfig, resolved_config_yaml: str = "") -> Path:
    _quiet_libraries()
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    suite: Suite = BENCHMARKS.get(cfg.benchmark.name)(cfg.benchmark)
    agent = AGENTS.get(cfg.agent.name)(cfg.agent)
    method = METHODS.get(cfg.method.impl)(cfg.method, MethodContext(make_policy_getter(cfg)))
    if resolved_config_yaml:
        atomic_write_text(out / "config.yaml", resolved_config_yaml)
    from pulse.config.schema import as_dict
    write_manifest(out, seed=cfg.seed, experiment=cfg.experiment, config=as_dict(cfg),
                   suite={"name": suite.name, "version": suite.version, "seed": suite.seed,
                          "tasks": len(suite.tasks), "metric": suite.metric},
                   method=cfg.method.name, agent={"name": agent.name, "model": agent.model,
                                                   "simulated": agent.simulated},
                   judge="deterministic checkpoint checks (no LLM judge)",
                   memory=describe_memory(method.memory_kind) if method.uses_memory else "none",
                   transport=cfg.benchmark.transport)
    rows_path = out / ROWS
    rows = read_rows(rows_path) if cfg.resume else []
    if not cfg.resume and rows_path.exists():
        rows_path.unlink()
    done = {r["task_id"] for r in rows if r.get("status") == "ok" or (r.get("status") == "failed" and not cfg.retry_failed)}
    chains = suite.chains()
    todo = {u: ts for u, ts in chains.items() if not all(t.task_id in done for t in ts)}
    if todo:  # drop partial rows of chains that will be rerun
        rerun = {t.task_id for ts in todo.values() for t in ts}
        kept = [r for r in rows if r["task_id"] not in rerun]
        if len(kept) != len(rows):
            atomic_write_text(rows_path, "".join(json.dumps(r, sort_keys=True, default=str) + "\n" for r in kept))
    n_todo = sum(len(ts) for ts in todo.values())
    bar = None
    if cfg.progress and n_todo:
        from tqdm import tqdm
        bar = tqdm(total=n_todo, desc=f"{suite.name}/{cfg.method.name}/seed{cfg.seed}", unit="ep", leave=False)
    base = {"run": cfg.experiment or out.name, "benchmark": suite.name, "suite_version": suite.version,
            "suite_seed": suite.seed, "method": cfg.method.name, "agent": agent.name, "agent_model": agent.model,
            "simulated": agent.simulated, "seed": cfg.seed, "experiment": cfg.experiment}
    for user, tasks in todo.items():
        persona = suite.persona(user)
        memory = None
        if method.uses_memory:
            root = out / "memory" / user
            shutil.rmtree(root, ignore_errors=True)
            memory = open_chain_memory(method.memory_kind, root, user, [t.project_id for t in tasks],
                                       persona.memory)
        env = make_env(persona.tools, cfg.benchmark.transport)
        try:
            for task in tasks:
                row = {**base, "task_id": task.task_id, "user_id": task.user_id, "category": task.category,
                       "level": task.level, "depends_on": list(task.depends_on)}
                session = None
                try:
                    session = method.open_session(task, memory, cfg.agent.concurrent)
                    outcome = agent.run(task, env, session, cfg.seed)
                    stats = getattr(session, "stats", AgentStats())
                    row.update(status="ok", **_score_row(task, suite, env, outcome, stats))
                except Exception as e:  # recorded; the run goes on
                    if session is not None:
                        try:
                            session.end(False)
                        except Exception:
                            pass
                    row.update(status="failed", score=0.0, error=f"{type(e).__name__}: {e}",
                               traceback=traceback.format_exc(limit=6)[-2000:])
                _append_row(rows_path, row)
                if bar:
                    bar.update(1)
        finally:
            env.close()
            if memory is not None:
                memory.close()
    if bar:
        bar.close()
    summary = summarize(read_rows(rows_path))
    summary.update({k: base[k] for k in ("benchmark", "suite_version", "method", "agent", "simulated", "seed",
                                          "experiment")})
    atomic_write_json(out / "summary.json", summary)
    return out
