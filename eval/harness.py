"""The evaluation harness: benchmark x method x task agent -> one JSONL row per episode.

Run directory (`out_dir`):
  config.yaml      the resolved config
  manifest.json    git commit, package versions, seed, suite name/version/seed, agent and judge
                   models, whether the agent is simulated, which memory store and kind ran, the
                   policy checkpoint path(s) used and their content hash, the config hash
                   (eval/provenance.py)
  episodes.jsonl   one row per task episode (appended as each finishes); every row carries the
                   same provenance (policy_checkpoints, checkpoint_hash, config_hash)
  summary.json     metrics over the rows (eval/metrics.py); standard JSON (undefined -> null)
A persona's tasks form one chain (shared memory and workspace, in order). Resume skips chains
whose every task already has a row; a partially finished chain is rerun from its start (its memory
state depends on the earlier tasks) after its old rows are dropped. A torn last line (a crash in
the middle of an append, wherever the cut falls) is dropped and the file rewritten from the parsed
rows before anything is appended (`plan_resume`), so a resumed run never glues a new row onto a
half-written one. An episode that raises is
recorded with status "failed" and the error, and the run continues (it scores 0 and is counted
in the summary; `pulse eval` then exits non-zero unless allow_failures=true).
Resume refuses (ConfigError) a run dir whose rows came from another method, benchmark, suite
version, config or policy checkpoint: one run dir never mixes them.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.agents.behaviour import HOLD_RESPONSES
from eval.config import EvalConfig
from eval.memory_backends import build_embedder
from eval.memory_backends import describe as describe_memory
from eval.methods.base import MethodContext, task_view
from eval.methods.seed import ChainSeed
from eval.metrics import dumps_strict, read_rows, read_rows_checked, summarize
from eval.policy_sources import build_policy_source
from eval.provenance import config_hash, policy_provenance
from eval.registry import AGENTS, BENCHMARKS, METHODS
from eval.suites.schema import SimTask
from pulse.agent.runtime import AgentStats
from pulse.reading import make_reader
from pulse.trace.record import note_outcome, traced  # PULSE_TRACE=1: a `trace` field per row (pulse trace)
from pulse.utils.atomic import atomic_write_text
from pulse.utils.manifest import write_manifest

ROWS = "episodes.jsonl"


def make_policy_getter(cfg: EvalConfig) -> Callable[[str], Any]:
    """get(source) -> the policy for `method.policy: <source>` (eval/policy_sources.py), built once per
    source; `get.used` lists the sources asked for (the provenance), `get.batched` the policies wrapped
    for concurrent chains. Raises ConfigError for an unknown source or a checkpoint not given."""
    cache: dict[str, Any] = {}

    def get(source: str):
        if source not in get.used:
            get.used.append(source)
        if source in cache:
            return cache[source]
        pol = build_policy_source(cfg, source)
        if cfg.chains_parallel > 1:  # concurrent chains: their decisions go out as one batch
            from pulse.policy.batching import BatchingPolicy

            pol = BatchingPolicy(pol)
            get.batched.append(pol)
        cache[source] = pol
        return pol

    get.used = []
    get.batched = []
    return get


def make_llm_getter(cfg: EvalConfig) -> Callable[[], Any]:
    """get() -> the run's memory-side LLM client (eval/methods/memory_llm.py; one per run, built on first
    use)."""
    made: list[Any] = []

    def get():
        if not made:
            from eval.methods.memory_llm import build_llm

            made.append(build_llm(cfg.llm))
        return made[0]

    return get


def _finite(obj: Any, path: str = "", bad: list[str] | None = None) -> Any:
    """obj with every NaN / infinite float replaced by None (their dotted paths appended to `bad`)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        if bad is not None:
            bad.append(path)
        return None
    if isinstance(obj, dict):
        return {k: _finite(v, f"{path}.{k}" if path else str(k), bad) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v, f"{path}[{i}]", bad) for i, v in enumerate(obj)]
    return obj


def row_json(row: dict[str, Any]) -> str:
    """One episodes.jsonl line (no newline): strict JSON, sorted keys; a NaN or infinite value is
    written as null and its path listed under `undefined`."""
    bad: list[str] = []
    row = _finite(row, bad=bad)
    if bad:
        row.setdefault("undefined", {}).update({p: "not a finite number" for p in bad})
    return dumps_strict(row, sort_keys=True)


# what must agree between a run dir's rows and the run that resumes it
PROVENANCE_KEYS = ("method", "benchmark", "suite_version", "checkpoint_hash", "config_hash")


def check_resume(rows: list[dict[str, Any]], current: dict[str, Any], out: Path) -> None:
    """Refuse (ConfigError) to resume a run dir whose rows were produced by something else."""
    from pulse.config.schema import ConfigError

    for key in PROVENANCE_KEYS:
        old = sorted({str(r.get(key, "<not recorded>")) for r in rows})
        if old != [str(current[key])]:
            what = "policy checkpoint hash" if key == "checkpoint_hash" else key.replace("_", " ")
            olds = ", ".join(repr(o) for o in old)
            paths = sorted({"/".join(r.get("policy_checkpoints") or []) or "-" for r in rows})
            extra = (
                f" (rows: checkpoint(s) {', '.join(paths)}; this run: "
                f"{'/'.join(current['policy_checkpoints']) or '-'})"
                if key == "checkpoint_hash"
                else ""
            )
            raise ConfigError(
                f"resume: {out / ROWS} holds rows with {what} {olds} but this run has {str(current[key])!r}"
                f"{extra}; refusing to mix them in one run dir. Use a new out_dir, or resume=false to "
                f"discard the old rows."
            )


def plan_resume(
    rows_path: Path,
    rows: list[dict[str, Any]],
    clean: bool,
    chains: dict[str, list[SimTask]],
    retry_failed: bool = False,
) -> dict[str, list[SimTask]]:
    """The chains still to run, with the run log made safe to append to.

    `rows`, `clean` come from `read_rows_checked(rows_path)`. Rows of every chain that will be rerun
    are dropped (a chain reruns from its start), and the file is rewritten from the rows that stay
    whenever anything was dropped or it was not clean (a torn or newline-less last line, blank
    lines): the next append then always starts on a fresh line, wherever a crash cut the file.
    """
    done = {
        r.get("task_id")
        for r in rows
        if r.get("status") == "ok" or (r.get("status") == "failed" and not retry_failed)
    }
    todo = {u: ts for u, ts in chains.items() if not all(t.task_id in done for t in ts)}
    rerun = {t.task_id for ts in todo.values() for t in ts}
    kept = [r for r in rows if r.get("task_id") not in rerun]
    if rows_path.exists() and (not clean or len(kept) != len(rows)):
        atomic_write_text(rows_path, "".join(row_json(r) + "\n" for r in kept))
    return todo


def _append_row(path: Path, row: dict[str, Any]) -> None:
    line = row_json(row) + "\n"
    with open(path, "a") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def _counters(outcome, stats: AgentStats) -> dict[str, Any]:
    """The episode counters every row carries, whichever benchmark scored it."""
    return {
        "seconds": round(outcome.seconds, 4),
        "memory_blocking_s": round(outcome.memory_blocking_s, 6),
        "llm_calls": outcome.llm_calls,
        "tool_calls": outcome.tool_calls,
        "tool_errors": outcome.tool_errors,
        "abandoned_steps": outcome.abandoned_steps,
        "interventions": len(outcome.interventions),
        "interventions_correct": sum(i.correct for i in outcome.interventions),
        "interventions_fixed": sum(i.fixed for i in outcome.interventions),
        "interventions_misled": sum(i.misled for i in outcome.interventions),
        # what the agent did with held calls: gave up, asked the user, repeated, re-planned
        **{f"holds_{k}": outcome.hold_responses.get(k, 0) for k in HOLD_RESPONSES},
        **{k: v for k, v in stats.to_dict().items() if k != "interventions"},
    }


def _score_fields(bench, task, env, outcome) -> dict[str, Any]:
    """The benchmark's own scorer: its score, and its components, detail and fields where it has them."""
    sc = bench.score(task, env, outcome)
    out: dict[str, Any] = {"score": sc.score, "metric": bench.metric, **sc.row}
    if sc.components is not None:
        out["components"] = sc.components
    if sc.detail is not None:
        out["score_detail"] = sc.detail
    if "termination" in outcome.extra:
        out["termination"] = outcome.extra["termination"]
    if "reader_mentions" in outcome.extra:  # the suite reader's recall on what this method delivered
        out.update(
            reader_mentions=outcome.extra["reader_mentions"],
            reader_attributed=outcome.extra["reader_attributed"],
        )
    return out


def _quiet_libraries() -> None:
    import logging

    for name in ("mcp", "httpx"):
        logging.getLogger(name).setLevel(logging.WARNING)


@dataclass
class _Run:
    """What one evaluation run is made of, opened before any episode: the benchmark, the task agent,
    the method, its policy getter and the fields every row carries (`base`)."""

    bench: Any
    agent: Any
    method: Any
    getter: Any
    prov: dict[str, Any]  # policy_checkpoints, checkpoint_hash, config_hash
    base: dict[str, Any]


# the row fields a summary repeats
SUMMARY_KEYS = (
    "benchmark",
    "suite_version",
    "method",
    "agent",
    "simulated",
    "seed",
    "experiment",
    "policy_checkpoints",
    "checkpoint_hash",
    "config_hash",
)


def run_eval(cfg: EvalConfig, resolved_config_yaml: str = "") -> Path:
    """Run `cfg`'s benchmark x method x task agent into `cfg.out_dir` (the module docstring's run
    directory), resuming what an earlier run there finished (`cfg.resume`). An episode that raises
    is recorded as failed (its status and error in its row) and the run goes on.

    Args:
        cfg: the typed `EvalConfig`.
        resolved_config_yaml: the composed config, written as config.yaml ("" = not written).

    Returns:
        The run directory, with episodes.jsonl, manifest.json and summary.json written.

    Raises:
        ConfigError, RegistryError: before any episode, for a config that cannot run: an unknown
            benchmark, method or agent name, an agent or method that cannot run the benchmark, a
            missing checkpoint; ConfigError also when resuming a run dir made by something else.
        BenchmarkDataError, SuiteError: a benchmark's data or suite file that fails validation.
        RowsError: an existing episodes.jsonl with a bad line before its last one.
    """
    _quiet_libraries()
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    run = _open_run(cfg, out)
    rows_path = out / ROWS
    rows, clean = read_rows_checked(rows_path) if cfg.resume else ([], True)
    if rows:
        check_resume(rows, run.base, out)  # before anything in the run dir is touched
    _write_records(cfg, out, run, resolved_config_yaml)
    if not cfg.resume and rows_path.exists():
        rows_path.unlink()
    chains = run.bench.chains()
    todo = plan_resume(rows_path, rows, clean, chains, cfg.retry_failed) if cfg.resume else chains
    _run_chains(cfg, out, run, todo)
    summary = summarize(read_rows(rows_path))
    summary.update({k: run.base[k] for k in SUMMARY_KEYS})
    summary.update(judge=run.bench.judge_label, nonstandard=run.bench.nonstandard)
    atomic_write_text(out / "summary.json", dumps_strict(summary, indent=2, sort_keys=True) + "\n")
    return out


def _open_run(cfg: EvalConfig, out: Path) -> _Run:
    """The benchmark, task agent and method of `cfg`, each refused up front if it cannot run the
    benchmark, and the provenance fields every row carries."""
    bench = BENCHMARKS.get(cfg.benchmark.name)(cfg.benchmark)
    agent = AGENTS.get(cfg.agent.name)(cfg.agent)
    agent.check(bench)  # an agent that cannot run this benchmark is refused before any episode
    getter = make_policy_getter(cfg)
    method = METHODS.get(cfg.method.impl)(cfg.method, MethodContext(getter, make_llm_getter(cfg)))
    if hasattr(method, "check"):  # a method that cannot run this benchmark is refused up front too
        method.check(bench)
    prov = {**policy_provenance(getter.used, cfg), "config_hash": config_hash(cfg)}
    base = {
        "run": cfg.experiment or out.name,
        "benchmark": bench.name,
        "suite_version": bench.version,
        "suite_seed": bench.seed,
        # what the suite's tasks are (generated suites; "" for the real benchmarks): two runs with
        # one name but different content are never merged into one table cell (eval/tables.py)
        "suite_fingerprint": getattr(bench, "fingerprint", ""),
        "method": cfg.method.name,
        "agent": agent.name,
        "agent_model": agent.model,
        "simulated": agent.simulated,
        "seed": cfg.seed,
        "experiment": cfg.experiment,
        "metric": bench.metric,
        **prov,
    }
    return _Run(bench, agent, method, getter, prov, base)


def _write_records(cfg: EvalConfig, out: Path, run: _Run, resolved_config_yaml: str) -> None:
    """config.yaml (when given) and manifest.json."""
    from pulse.config.schema import as_dict

    bench, agent, method = run.bench, run.agent, run.method
    if resolved_config_yaml:
        atomic_write_text(out / "config.yaml", resolved_config_yaml)
    write_manifest(
        out,
        seed=cfg.seed,
        experiment=cfg.experiment,
        config=as_dict(cfg),
        policy={"sources": list(run.getter.used), **run.prov},
        suite={
            "name": bench.name,
            "version": bench.version,
            "seed": bench.seed,
            "tasks": len(bench.tasks),
            "metric": bench.metric,
            "fingerprint": getattr(bench, "fingerprint", ""),
        },
        method=cfg.method.name,
        agent={"name": agent.name, "model": agent.model, "simulated": agent.simulated},
        judge=bench.judge_label,
        nonstandard=bench.nonstandard,
        memory=describe_memory(method.memory_kind, cfg.embedder.name) if method.uses_memory else "none",
        transport=cfg.benchmark.transport,
    )


def _run_chains(cfg: EvalConfig, out: Path, run: _Run, todo: dict[str, list[SimTask]]) -> None:
    """Every chain of `todo`, one after another or on `chains_parallel` threads (their policy
    decisions meet in one batch, pulse/policy/batching.py); rows appended as episodes finish."""
    n_todo = sum(len(ts) for ts in todo.values())
    bar = None
    if cfg.progress and n_todo:
        from tqdm import tqdm

        bar = tqdm(
            total=n_todo, desc=f"{run.bench.name}/{cfg.method.name}/seed{cfg.seed}", unit="ep", leave=False
        )
    uses_memory = run.method.uses_memory and bool(todo)
    chain = _ChainRunner(
        cfg,
        out,
        run,
        # the run's embedder and reader (pulse/reading/; None: the cue rules alone), shared by every chain
        embedder=build_embedder(cfg.embedder) if uses_memory else None,
        reader=make_reader(cfg.reader.name) if uses_memory and cfg.reader.name != "rule" else None,
        bar=bar,
    )
    if cfg.chains_parallel <= 1 or len(todo) <= 1:
        for user, tasks in todo.items():
            chain.run(user, tasks)
    else:
        from concurrent.futures import ThreadPoolExecutor

        def pooled(item):
            with contextlib.ExitStack() as live:
                for pol in run.getter.batched:
                    live.enter_context(pol.chain())
                chain.run(*item)

        with ThreadPoolExecutor(max_workers=cfg.chains_parallel) as pool:
            list(pool.map(pooled, todo.items()))
    if bar:
        bar.close()


class _ChainRunner:
    """Runs one persona's chain of tasks: its memory seeded and opened once, then each episode in
    order, each recorded as a row (status "failed" with the error when it raises)."""

    def __init__(self, cfg: EvalConfig, out: Path, run: _Run, embedder: Any, reader: Any, bar: Any):
        self.cfg, self.out, self.ctx = cfg, out, run
        self.embedder, self.reader, self.bar = embedder, reader, bar
        self.rows_path = out / ROWS
        self.write_lock = threading.Lock()

    def run(self, user: str, tasks: list) -> None:
        bench, method = self.ctx.bench, self.ctx.method
        tools = bench.tools(user)
        memory = None
        if method.uses_memory:
            root = self.out / "memory" / user
            shutil.rmtree(root, ignore_errors=True)
            # the seed hook: every method builds its own memory from the same seed history
            memory = method.open_chain(
                ChainSeed(
                    user,
                    tuple(t.project_id for t in tasks),
                    bench.seed_history(user),
                    root,
                    self.embedder,
                    tuple(tools),
                    reader=self.reader,
                )
            )
        env = bench.open_env(user, self.cfg.benchmark.transport)
        try:
            for task in tasks:
                row = self.episode(task, env, memory, tools)
                with self.write_lock:
                    _append_row(self.rows_path, row)
                    if self.bar:
                        self.bar.update(1)
        finally:
            env.close()
            if memory is not None:
                memory.close()

    def episode(self, task: SimTask, env: Any, memory: Any, tools: Any) -> dict[str, Any]:
        """One task's row: the run's fields, the task's, and its score and counters (or the error)."""
        bench, method, agent = self.ctx.bench, self.ctx.method, self.ctx.agent
        row = {
            **self.ctx.base,
            "task_id": task.task_id,
            "user_id": task.user_id,
            "category": task.category,
            "level": task.level,
            "depends_on": list(task.depends_on),
            "scored": getattr(task, "scored", True),
        }
        session = None
        try:
            env.begin(task)
            session = traced(
                method.open_session(
                    task if getattr(method, "reads_gold", False) else task_view(task),
                    memory,
                    self.cfg.agent.concurrent,
                    tools=tools,
                ),
                task,
                row,
            )
            outcome = agent.run(task, env, session, self.cfg.seed, bench)
            note_outcome(row, outcome)  # the traced row's intervention verdicts (pulse trace)
            stats = getattr(session, "stats", AgentStats())
            row.update(status="ok", **_score_fields(bench, task, env, outcome), **_counters(outcome, stats))
        except Exception as e:  # recorded; the run goes on
            if session is not None:
                try:
                    session.end(False)
                except Exception:
                    pass
            row.update(
                status="failed",
                score=0.0,
                error=f"{type(e).__name__}: {e}",
                traceback=traceback.format_exc(limit=6)[-2000:],
            )
        return row
