"""Reproduce the offline Table 1-3 rows: every experiment config x suites x seeds, each distinct run once.

    pulse reproduce --runs outputs/tables/runs --out results/tables \
        --checkpoint 'outputs/demo/s{seed}/grpo_pulse/grpo/final' \
        --base 'outputs/demo/s{seed}/sft_run/sft/final'

(`python scripts/reproduce_tables.py ...` is the same command; `main(argv)` returns its exit status.)

Each run is `pulse eval experiment=<table>/<row> benchmark=<suite> seed=<seed>` composed from
configs/ exactly as the CLI composes it (hydra compose API) and run by `eval.harness.run_eval` in a
worker process (`--workers N`, default 2, 'spawn' processes with one torch thread each; `--workers 1`
runs everything in this process), so model loading and interpreter start-up are paid once per
worker instead of once per run. The distinct runs go out longest first (the learned-policy rows and
independent_sim are the slow ones; seconds measured by an earlier reproduction into
<runs>/run_seconds.json are used when present). `{seed}` in a checkpoint path pairs training seed s
with evaluation seed s (3 training seeds -> spread over seeds includes training variance); a policy
is loaded once per worker and shared by every run of that worker that uses it.

Identical runs are run once (`--no-reuse` runs every row). Several rows repeat another table's row
under their own name (table1/pulse = table2/pulse = table3/pulse = tableB4/pulse, ...). Two runs are
the same run when their resolved configs are equal except for the keys that only name or place
the run (`reuse_key`: the `experiment` label, and what the config hash already leaves out: out_dir,
progress, resume, chains_parallel, ...; pulse/utils/manifest.py NON_RESULT_KEYS); method.name, the
policy checkpoint paths, the suite, the seed and every other key must agree. The other rows' run
directories are then materialised from the run that ran (`materialise_reused`): its episode rows and
summary with this row's own `run`/`experiment` label and config hash, this row's own config.yaml,
and a manifest that says `reused_from` (the source run dir) and why, so `pulse tables` and resume
treat it as if it had been run.

The memory baselines (Mem0, LightMem, A-MEM, OpenClaw, dsh, ZCode, the Proactive Memory Agent) need no
checkpoint: their memory-side calls go to the `llm=` group (offline stand-ins unless overridden, e.g.
`llm=openai llm.model=M llm.base_url=URL`). Rows that need a checkpoint that was not given are skipped
and listed.
Runs resume (rows already complete are not rerun). A run that raises stops the reproduction with
its name and exit status 1 (a worker that dies is reported the same way). Results come from the
*simulated* task agent unless overrides select another (`agent=openai ...`); they are labelled as
such everywhere. Then `pulse tables` renders Markdown/LaTeX/PNG from the run directories.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "configs"
SECONDS_FILE = "run_seconds.json"  # <runs>/run_seconds.json: measured seconds per run, for ordering
# keys that only name a run (on top of what the config hash leaves out, NON_RESULT_KEYS)
NAME_ONLY_KEYS = ("experiment",)
REUSE_REASON = (
    "identical resolved config except the run's name (experiment label, out_dir and the keys the "
    "config hash leaves out); see eval/reproduce.py reuse_key"
)
# rough seconds per run on 2 cores when nothing was measured: learned policies are the slow rows
LEARNED_S, OTHER_S = 25.0, 2.0
BENCH_FACTOR = {"independent_sim": 1.1, "pibench_sim": 1.0, "mcp_persona_sim": 0.4}


def rows_of(tables: list[str], only: list[str]) -> list[str]:
    """The experiment rows ("tableK/<row>") of `tables` under configs/experiment/, in file order;
    only those in `only` when it is not empty."""
    out = []
    for t in tables:
        for p in sorted((CONF / "experiment" / t).glob("*.yaml")):
            name = f"{t}/{p.stem}"
            if not only or name in only:
                out.append(name)
    return out


def share_loaded_policies() -> None:
    """Every run of this process that asks for the same policy config gets the model loaded once
    (`pulse.policy.factory.build_policy`, memoised by its frozen config)."""
    import pulse.policy.factory as factory

    build, cache = factory.build_policy, {}

    def shared(cfg, *args, **kwargs):
        key = (repr(cfg), repr(args), repr(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = build(cfg, *args, **kwargs)
        return cache[key]

    factory.build_policy = shared


def reuse_key(cfg: Any) -> str:
    """sha256 of the resolved config (typed EvalConfig or plain dict) without the keys that only name
    or place a run: the `experiment` label and the config hash's own exclusions (out_dir, run_name,
    label, logger, resume, retry_failed, progress, allow_failures, chains_parallel, endpoint, api keys;
    pulse/utils/manifest.py). Everything else -- method (including method.name, which labels table
    rows), policy and base_policy (checkpoint paths), benchmark, seed, agent, embedder, llm -- is in
    the key, so two runs with one key compute the same episodes."""
    from pulse.utils.manifest import canonical_json, result_config

    rc = result_config(cfg)
    for k in NAME_ONLY_KEYS:
        rc.pop(k, None)
    return hashlib.sha256(canonical_json(rc).encode("utf-8")).hexdigest()


@dataclass(eq=False)
class Run:
    """One row x benchmark x seed of the grid: its typed config, where it runs, its reuse key, and
    the identical run it reuses (`source`) or the runs that reuse it (`reused_by`)."""

    row: str
    bench: str
    seed: int
    out_dir: Path
    cfg: Any  # typed EvalConfig
    yaml: str  # the resolved config, as config.yaml
    key: str
    learned: bool  # runs a learned policy (trained or base checkpoint)
    source: Run | None = field(default=None, repr=False)  # the identical run this one reuses
    reused_by: list[Run] = field(default_factory=list, repr=False)

    @property
    def name(self) -> str:
        return f"{self.row} {self.bench} seed {self.seed}"

    @property
    def seconds_key(self) -> str:
        return f"{self.row}|{self.bench}|{self.seed}"


def plan(a: argparse.Namespace) -> tuple[list[Run], list[str]]:
    """Every (row, bench, seed) composed as `pulse eval` composes it; identical runs linked to the
    first of them (`Run.source`) unless --no-reuse."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from eval.config import EvalConfig
    from pulse.config.schema import to_typed

    runs_dir = Path(a.runs)
    out: list[Run] = []
    skipped: list[str] = []
    first: dict[str, Run] = {}
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        for row in rows_of(a.tables, a.rows):
            for bench in a.benchmarks:
                for seed in a.seeds:
                    run_dir = runs_dir / row / bench / f"seed{seed}"
                    ov = [
                        f"experiment={row}",
                        f"benchmark={bench}",
                        f"seed={seed}",
                        "progress=false",
                        f"out_dir={run_dir}",
                        f"chains_parallel={a.chains_parallel}",
                        *a.overrides,
                    ]
                    probe = compose("eval", overrides=ov)
                    # only Pulse's own rows run a policy (the baselines' memory-side calls go to llm=)
                    uses_policy = (
                        probe.method.impl == "pulse" and probe.method.get("mode", "streaming") != "start_only"
                    )
                    needs_trained = uses_policy and probe.method.get("policy", "trained") == "trained"
                    needs_base = uses_policy and probe.method.get("policy", "trained") == "base"
                    if needs_trained and not a.checkpoint:
                        skipped.append(f"{row} (needs --checkpoint)")
                        break
                    if needs_base and not a.base:
                        skipped.append(f"{row} (needs --base)")
                        break
                    if needs_trained and a.checkpoint == "rule":
                        ov += ["method.policy=rule", f"method.name={probe.method.name}-rule"]
                    elif needs_trained:
                        ov.append(f"policy.name_or_path={a.checkpoint.format(seed=seed)}")
                    if needs_base:
                        ov.append(f"base_policy.name_or_path={a.base.format(seed=seed)}")
                    cfg = compose("eval", overrides=ov) if needs_trained or needs_base else probe
                    typed = to_typed(cfg, EvalConfig)
                    run = Run(
                        row,
                        bench,
                        seed,
                        run_dir,
                        typed,
                        OmegaConf.to_yaml(cfg, resolve=True),
                        reuse_key(typed),
                        learned=needs_base or (needs_trained and a.checkpoint != "rule"),
                    )
                    if a.reuse and run.key in first:
                        run.source = first[run.key]
                        run.source.reused_by.append(run)
                    else:
                        first.setdefault(run.key, run)
                    out.append(run)
    return out, skipped


def estimated_seconds(run: Run, measured: dict[str, float]) -> float:
    """The run's seconds as measured by an earlier reproduction, else a rough guess (for ordering)."""
    if run.seconds_key in measured:
        return float(measured[run.seconds_key])
    return (LEARNED_S if run.learned else OTHER_S) * BENCH_FACTOR.get(run.bench, 1.0)


def _read_json(path: Path) -> dict[str, Any]:
    """A run's summary or manifest: a broken one is a one-line error naming the file, never `{}`."""
    from pulse.config.schema import ConfigError
    from pulse.utils.json_input import read_json_file

    return read_json_file(path, ConfigError, "run file")


def _measured_seconds(path: Path) -> dict[str, float]:
    """Per-run seconds of an earlier reproduction: only an ordering hint, so a missing or broken file
    means 'estimate instead' (said once, not silently)."""
    if not path.exists():
        return {}
    try:
        return dict(_read_json(path))
    except Exception as e:
        print(f"ignoring {path} (run order falls back to estimates): {e}", flush=True)
        return {}


_RUN_ONLY_MANIFEST_KEYS = (  # written afresh by write_manifest, or this row's own
    "created",
    "git_commit",
    "python",
    "platform",
    "packages",
    "argv",
    "config",
    "config_hash",
    "config_hash_excludes",
    "experiment",
    "seed",
)


def materialise_reused(run: Run) -> str:
    """Write `run`'s run directory from its identical source run (which has completed): the source's
    episode rows and summary relabelled with this run's `run`/`experiment` and config hash, this run's
    config.yaml, and a manifest with `reused_from`. A run dir that already holds this run's complete
    rows (a real run or an earlier reuse) is left as it is (resume). Returns "reused" or "complete"."""
    from eval.harness import ROWS, check_resume, row_json
    from eval.metrics import dumps_strict, read_rows
    from eval.provenance import config_hash
    from pulse.config.schema import ConfigError, as_dict
    from pulse.utils.atomic import atomic_write_text
    from pulse.utils.manifest import write_manifest

    src, dst, cfg = run.source.out_dir, run.out_dir, run.cfg
    src_rows = read_rows(src / ROWS)
    src_hash = config_hash(run.source.cfg)
    if not (src / "summary.json").exists() or any(r.get("config_hash") != src_hash for r in src_rows):
        raise ConfigError(f"reuse: {src} is not a complete run of {run.source.name}; cannot reuse it")
    label = {"run": cfg.experiment or dst.name, "experiment": cfg.experiment, "config_hash": config_hash(cfg)}
    rows = [{**r, **label} for r in src_rows]
    old = read_rows(dst / ROWS) if (dst / ROWS).exists() else []
    if old and rows:
        check_resume(old, rows[0], dst)  # the same refusal run_eval would give
        done = {r.get("task_id") for r in old}
        if (dst / "summary.json").exists() and done >= {r.get("task_id") for r in rows}:
            return "complete"
    dst.mkdir(parents=True, exist_ok=True)
    for p in src.iterdir():  # anything else a run leaves (memory/, workspaces): copied as it is
        if p.name in (ROWS, "summary.json", "config.yaml", "manifest.json") or p.name.startswith("."):
            continue
        if p.is_dir():
            shutil.rmtree(dst / p.name, ignore_errors=True)
            shutil.copytree(p, dst / p.name)
        else:
            shutil.copy2(p, dst / p.name)
    atomic_write_text(dst / ROWS, "".join(row_json(r) + "\n" for r in rows))
    summary = {**_read_json(src / "summary.json"), **{k: label[k] for k in ("experiment", "config_hash")}}
    atomic_write_text(dst / "summary.json", dumps_strict(summary, indent=2, sort_keys=True) + "\n")
    atomic_write_text(dst / "config.yaml", run.yaml)
    src_manifest = _read_json(src / "manifest.json")
    extra = {k: v for k, v in src_manifest.items() if k not in _RUN_ONLY_MANIFEST_KEYS}
    if isinstance(extra.get("policy"), dict):
        extra["policy"] = {**extra["policy"], "config_hash": label["config_hash"]}
    write_manifest(
        dst,
        seed=cfg.seed,
        experiment=cfg.experiment,
        config=as_dict(cfg),
        **extra,
        reused_from=str(src),
        reused_because=REUSE_REASON,
        reused_source={
            "experiment": run.source.cfg.experiment,
            "config_hash": src_hash,
            "reuse_key": run.key,
            "created": src_manifest.get("created"),
            "git_commit": src_manifest.get("git_commit"),
        },
    )
    return "reused"


def _run_one(cfg: Any, yaml: str) -> None:
    from eval.harness import run_eval

    run_eval(cfg, yaml)


def _worker(jobs, results, parent: int) -> None:
    """One worker process: one torch thread (two workers on two cores do not oversubscribe them), its
    own policy cache; takes (index, cfg, yaml) jobs until None, reports start / done / error. Stops
    when `parent` (the planning process) is gone: the queue holds every run up front, and a killed
    command's workers would otherwise go on running them, unseen, on the cores the next job needs."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    import torch

    torch.set_num_threads(1)
    share_loaded_policies()
    import queue

    import eval.harness  # noqa: F401  (warm: imported while the parent plans)

    while True:
        if os.getppid() != parent:
            return
        try:
            job = jobs.get(timeout=1.0)
        except queue.Empty:
            continue
        if job is None:
            return
        i, cfg, yaml = job
        results.put(("start", i, os.getpid()))
        t = time.perf_counter()
        try:
            _run_one(cfg, yaml)
        except BaseException as e:  # reported with the run's name by the parent
            results.put(("error", i, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=12)}"))
            return
        results.put(("done", i, time.perf_counter() - t))


class RunFailed(RuntimeError):
    """A run raised in a worker, or a worker died; the message names the run."""


class Workers:
    """`n` spawned worker processes (`_worker`), started at once so that their imports overlap the
    planning in this process; `run` hands them the runs, `close` stops them."""

    def __init__(self, n: int):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.jobs, self.results = ctx.Queue(), ctx.Queue()
        self.procs = [
            ctx.Process(
                target=_worker, args=(self.jobs, self.results, os.getpid()), name=f"reproduce-worker-{k}"
            )
            for k in range(max(1, n))
        ]
        for p in self.procs:
            p.start()
        self.finished = False

    def run(self, todo: list[Run], on_done) -> None:
        """Run `todo` in this order (each worker takes the next when it is free); on_done(run, seconds)
        here as each finishes. A run that raises, or a worker that dies, raises RunFailed naming the
        run (`close` then stops the other workers)."""
        import queue

        for i, run in enumerate(todo):
            self.jobs.put((i, run.cfg, run.yaml))
        for _ in self.procs:
            self.jobs.put(None)
        running: dict[int, int] = {}  # pid -> run index
        left, suspect = len(todo), set()
        while left:
            try:
                kind, i, val = self.results.get(timeout=2.0)
            except queue.Empty:
                # a worker that exited early, or with a run in hand: dead (once its last message, if
                # any, had another timeout to arrive)
                dead = {
                    p.pid for p in self.procs if not p.is_alive() and (p.exitcode != 0 or p.pid in running)
                }
                for p in self.procs:
                    if p.pid in dead & suspect:
                        what = todo[running[p.pid]].name if p.pid in running else "no run"
                        raise RunFailed(
                            f"worker {p.name} died (exit code {p.exitcode}) during {what}"
                        ) from None
                suspect = dead
                continue
            if kind == "start":
                running[val] = i
            elif kind == "done":
                running = {pid: j for pid, j in running.items() if j != i}
                left -= 1
                on_done(todo[i], val)
            else:
                raise RunFailed(f"{todo[i].name} failed: {val}")
        self.finished = True

    def close(self) -> None:
        if not self.finished:
            # runs still queued would block this process's exit: the queue's feeder thread waits to
            # flush them into a pipe that no worker reads any more (a failed run hung the command)
            self.jobs.cancel_join_thread()
        for p in self.procs:
            if not self.finished and p.is_alive():
                p.terminate()
        for p in self.procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
                p.join()
        self.jobs.close()
        self.results.close()


def main(argv: list[str] | None = None) -> int:
    """`pulse reproduce [options] [overrides...]`: plan, run and tabulate the grid; the exit status
    (1 when a run fails, 2 when the runs cannot be tabulated)."""
    ap = argparse.ArgumentParser(prog="pulse reproduce", description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="outputs/tables/runs", help="run directories go here")
    ap.add_argument("--out", default="outputs/tables", help="tables (Markdown, LaTeX, JSON, PNG) go here")
    ap.add_argument("--tables", nargs="+", default=["table1", "table2", "table3", "tableB4"])
    ap.add_argument("--rows", nargs="*", default=[], help="only these tableK/row names")
    ap.add_argument("--benchmarks", nargs="+", default=["pibench_sim", "mcp_persona_sim", "independent_sim"])
    ap.add_argument(
        "--chains-parallel",
        type=int,
        default=6,
        help="persona chains of a run at once; their policy decisions go out as one batch",
    )
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument(
        "--checkpoint", default="", help="trained policy path; '{seed}' is replaced; 'rule' = rule policy"
    )
    ap.add_argument(
        "--base", default="", help="policy of the 'w/o RL' rows (base_policy); '{seed}' is replaced"
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=2,
        help="worker processes (spawned, one torch thread each); 1 = every run in this process",
    )
    ap.add_argument(
        "--no-reuse",
        dest="reuse",
        action="store_false",
        help="run every row, also those whose config equals another row's except for its name",
    )
    ap.add_argument("overrides", nargs="*", help="extra hydra overrides for every run")
    a = ap.parse_args(argv)

    t0 = time.perf_counter()
    runs_dir = Path(a.runs)
    workers = Workers(a.workers) if a.workers > 1 else None
    try:
        return _reproduce(a, t0, runs_dir, workers)
    finally:
        if workers is not None:
            workers.close()


def _reproduce(a: argparse.Namespace, t0: float, runs_dir: Path, workers: Workers | None) -> int:
    from pulse.utils.atomic import atomic_write_json

    all_runs, skipped = plan(a)
    todo = [r for r in all_runs if r.source is None]
    measured = _measured_seconds(runs_dir / SECONDS_FILE)
    todo.sort(key=lambda r: -estimated_seconds(r, measured))  # longest first (stable: else row order)
    n_reused = len(all_runs) - len(todo)
    print(
        f"{len(all_runs)} runs, {len(todo)} distinct configurations ({n_reused} reused), "
        f"{max(1, a.workers)} worker(s)",
        flush=True,
    )
    counts = {"run": 0, "reused": 0, "complete": 0}

    def on_done(run: Run, seconds: float) -> None:
        counts["run"] += 1
        measured[run.seconds_key] = round(seconds, 2)
        atomic_write_json(runs_dir / SECONDS_FILE, measured)
        print(f"[{time.perf_counter() - t0:7.1f}s] {run.row} {run.bench} seed {run.seed}", flush=True)
        for other in run.reused_by:
            counts[materialise_reused(other)] += 1
            print(
                f"[{time.perf_counter() - t0:7.1f}s] {other.row} {other.bench} seed {other.seed} "
                f"(reused {run.row}: identical config)",
                flush=True,
            )

    if workers is None:
        share_loaded_policies()
        for run in todo:
            t = time.perf_counter()
            try:
                _run_one(run.cfg, run.yaml)
            except Exception:
                print(f"run failed: {run.name}", file=sys.stderr, flush=True)
                raise
            on_done(run, time.perf_counter() - t)
    else:
        try:
            workers.run(todo, on_done)
        except RunFailed as e:
            print(f"pulse reproduce: {e}", file=sys.stderr, flush=True)
            return 1
    if skipped:
        print("rows not run: " + "; ".join(dict.fromkeys(skipped)))
    n = counts["run"] + counts["reused"] + counts["complete"]
    print(
        f"{n} runs in {time.perf_counter() - t0:.1f}s ({counts['run']} run, {counts['reused']} reused "
        f"from an identical run"
        + (f", {counts['complete']} identical ones already complete" if counts["complete"] else "")
        + ")"
    )
    per_seed = "{seed}" in a.checkpoint or "{seed}" in a.base
    return render_tables([str(runs_dir)], a.out, per_seed_checkpoints=per_seed)


def render_tables(
    runs: list[str], out: str | None, plots: bool = True, per_seed_checkpoints: bool = False
) -> int:
    """`pulse tables`: print the tables of the run directories `runs` (written to `out` with the PNG
    plots unless `plots=False`); 0, or 2 with one message on stderr when the runs cannot be tabulated
    honestly (eval/tables.py)."""
    from eval.tables import render

    try:
        print(render(runs, out, plots=plots, per_seed_checkpoints=per_seed_checkpoints))
    except (FileNotFoundError, ValueError) as e:
        print(f"pulse tables: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
