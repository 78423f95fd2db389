"""Reproduction check: the README's main job on a fresh clone of HEAD, against the committed results.

    make reproduce-check      # = .venv/bin/python scripts/reproduce_check.py; exit 1 on any difference
    make reproduce-update     # = ... --update: regenerate results/demo/ and the README's demo figures
    .venv/bin/python scripts/reproduce_check.py --readme   # README's demo block from results/demo, no run

1. `git clone` this checkout into a temporary folder and check out HEAD: committed files only
   (uncommitted changes are not checked, and it says so). Nothing is reused: no artifacts/ (data,
   tiny model), no outputs/ (checkpoints, evaluations). The Python environment is the one running
   this script (normally .venv: installed packages only, the project is an editable install); the
   clone's own code is imported (PYTHONPATH = the clone, verified before anything runs), never this
   checkout's. `make` is not run in the clone: its install step would repoint .venv at the clone.
2. Parts (`--parts`, default all; `--update` runs `demo` only unless `--parts` says otherwise):
   - demo: `python -m pulse.cli.demo` in the clone (what `make demo` and `pulse demo` run); its
     outputs/demo/demo_results.json and demo_table.md against the clone's results/demo/, or against
     results/demo/other_cpus/<cpu>/ when those were made on this machine's CPU (CPU-trained figures
     differ between CPU vendors; `demo_reference`).
   - tables: `scripts/reproduce_tables.py --seeds 0` without checkpoints: every row that needs no
     trained policy (memory baselines with the offline stand-ins, the gold rule, the reference rows)
     on the three suites, seed 0; each run's summary against the seed-0 entry of
     results/tables/table_data.json. Under a minute on 2 cores.
   - real_tools: `scripts/real_tools.sh` (offline, no policy checkpoint; needs PULSE_DATA_DIR and is
     skipped, saying so, without it): summaries/*.json and table_b3.md against results/real_tools/.
     About 1 min 15 s alone on 2 cores (3 min 17 s before the Persona2Web synthetic world was built
     once per run).
   The two slices are single-process: they run side by side, beside the demo at the lowest priority
   (nice 19: they take the cores its single-threaded stretches leave idle, then finish after it).
   The README's demo block is also checked against the clone's results/demo (`readme_block`).
3. Comparison: every JSON leaf, and every cell of every Markdown table (in .md files and in JSON
   strings). Left out by name only: TIMING_KEYS (measured wall time), PLACE_KEYS (where a run was
   written), PROVENANCE_KEYS (commit and fingerprints: a fresh clone's commit differs by construction;
   differing fingerprints are printed as notes), Markdown columns whose header contains one of
   TIMING_COLUMNS, and reward_curves.png (a picture). Numbers are equal when they agree to 1e-9
   relative (the same values summed in another order differ in the last bits: per-category means
   over episodes that finish in another order); every other value must be identical. Differences
   print side by side (where, committed, fresh).

Exit status: 0 every figure identical; 1 a figure differs or is missing, or a run failed (its log
is named); 2 the set-up is wrong (no git checkout, the clone would import another checkout's code).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulse.utils.manifest import cpu_model

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("demo", "tables", "real_tools")

# Leaf names left out of the comparison, at any depth. Measured wall time, never a result:
TIMING_KEYS = ("seconds", "examples_per_s", "seconds_per_task", "memory_blocking_s", "step_time", "created")
# Where a run was written (the slices write to the clone's outputs/, the committed files name theirs):
PLACE_KEYS = ("run",)
# What the figures came from: the commit differs by construction; fingerprints are reported as notes.
PROVENANCE_KEYS = ("provenance",)
# Markdown table columns whose header contains one of these: seconds per task (modelled latency plus
# the measured memory-side time).
TIMING_COLUMNS = ("s/task",)
REL_TOL = 1e-9

DEMO_FILES = ("demo_results.json", "demo_table.md")  # compared; reward_curves.png is copied, not compared
DEMO_COPIED = (*DEMO_FILES, "reward_curves.png", "suite_decisions.json")
REPRODUCE_META = "reproduce.json"  # results/demo/: commit, wall time and machine of the run that wrote it
# results/demo/other_cpus/<cpu>/: the same demo's files from a CPU that computes otherwise (an Intel Xeon
# trains another tiny policy than an AMD EPYC from the same code: docs/speed_and_reliability.md). The
# check compares with the files made on its own CPU; results/demo and the README hold CI's machine's.
OTHER_CPUS = "other_cpus"
README_START = (
    "<!-- reproduce-check:demo:start (generated from results/demo by scripts/reproduce_check.py) -->"
)
README_END = "<!-- reproduce-check:demo:end -->"
ABSENT = "(absent)"
# How to regenerate each part's committed files once the difference is understood.
FIX = {
    "demo": "`make reproduce-update`, then commit results/demo and README.md",
    "tables": "rerun the command in results/tables/README.md (all seeds, with the trained checkpoints)",
    "real_tools": "rerun scripts/real_tools.sh (results/real_tools/README.md)",
}
# Wall-time limit per part (about 3x what each takes on 2 cores): a hung run fails the check.
TIMEOUT_S = {"demo": 45 * 60, "tables": 15 * 60, "real_tools": 15 * 60}
TIMED_OUT = 124  # the exit status reported for a part stopped at its limit (as timeout(1) does)


class SetupError(Exception):
    """The check cannot run as asked (exit 2)."""


# ---------------------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class Diff:
    where: str
    committed: Any
    fresh: Any


def text_cells(text: str) -> dict[str, str]:
    """Markdown text as {location: value}: each table cell by table number, row number (with its first
    cell) and column header, columns named in TIMING_COLUMNS left out; each other non-empty line by
    its number among those lines (so a changed table does not shift the prose)."""
    out: dict[str, str] = {}
    header: list[str] | None = None
    table = row = prose = 0
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("|"):
            header = None
            if s:
                prose += 1
                out[f"text line {prose}"] = s
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if header is None:
            header, table, row = cells, table + 1, 0
            out[f"table {table} header"] = " | ".join(h for h in cells if not _timing_column(h))
            continue
        if all(c and set(c) <= set("-: ") for c in cells):  # the |---| line
            continue
        row += 1
        label = f"table {table} row {row} ({cells[0]})"
        if len(cells) != len(header):
            out[f"{label} cells"] = str(len(cells))
        for h, c in zip(header, cells):
            if not _timing_column(h):
                out[f"{label} [{h}]"] = c
    return out


def _timing_column(header: str) -> bool:
    return any(t in header for t in TIMING_COLUMNS)


def flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    """JSON as {dotted path: leaf} without the excluded keys; a string holding a Markdown table is
    expanded into its cells (`text_cells`)."""
    excluded = (*TIMING_KEYS, *PLACE_KEYS, *PROVENANCE_KEYS)
    if isinstance(node, Mapping) and node:
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k not in excluded:
                out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(node, list) and node:
        out = {}
        for i, v in enumerate(node):
            out.update(flatten(v, f"{prefix}[{i}]"))
        return out
    if isinstance(node, str) and "\n|" in node:
        return {f"{prefix} › {k}": v for k, v in text_cells(node).items()}
    return {prefix: node}


def same_value(a: Any, b: Any) -> bool:
    """Numbers within REL_TOL (bools are not numbers here); everything else identical."""
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)
    return type(a) is type(b) and a == b


def compare(committed: Any, fresh: Any, prefix: str = "") -> list[Diff]:
    """Every differing leaf (JSON) or cell (Markdown text) of two results, in the committed order."""
    a = text_cells(committed) if isinstance(committed, str) else flatten(committed)
    b = text_cells(fresh) if isinstance(fresh, str) else flatten(fresh)
    out = []
    for k in [*a, *(k for k in b if k not in a)]:
        va, vb = a.get(k, ABSENT), b.get(k, ABSENT)
        if k not in a or k not in b or not same_value(va, vb):
            out.append(Diff(f"{prefix}{k}", va, vb))
    return out


def provenance_notes(committed: Any, fresh: Any) -> list[str]:
    """Fingerprints that differ between two demo results (the commit is left out: it always differs)."""
    if not isinstance(committed, Mapping) or not isinstance(fresh, Mapping):
        return []
    a = _flat_all(committed.get("provenance") or {})
    b = _flat_all(fresh.get("provenance") or {})
    return [
        f"{k}: {str(a.get(k, ABSENT))[:12]} -> {str(b.get(k, ABSENT))[:12]}"
        for k in sorted(set(a) | set(b))
        if k != "git_commit" and a.get(k) != b.get(k)
    ]


def _flat_all(node: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(node, Mapping) and node:
        out: dict[str, Any] = {}
        for k, v in node.items():
            out.update(_flat_all(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: node}


def print_diffs(title: str, diffs: list[Diff], limit: int = 200) -> None:
    if not diffs:
        print(f"  same: {title}")
        return
    print(f"  DIFFERENT: {title} ({len(diffs)} figure(s))")
    shown = diffs[:limit]
    w = min(90, max(len(d.where) for d in shown))
    print(f"    {'where':<{w}}  {'committed':<24}  fresh")
    for d in shown:
        print(f"    {d.where:<{w}}  {_show(d.committed):<24}  {_show(d.fresh)}")
    if len(diffs) > limit:
        print(f"    ... and {len(diffs) - limit} more")


def _show(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v)
    return s if len(s) <= 60 else s[:57] + "..."


def load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: missing") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None


def compare_files(committed: Path, fresh: Path, label: str) -> list[Diff]:
    """A committed result file against the fresh one; a missing file is one difference."""
    if not committed.exists() or not fresh.exists():
        return [
            Diff(label, "present" if committed.exists() else ABSENT, "present" if fresh.exists() else ABSENT)
        ]
    if committed.suffix == ".json":
        return compare(load_json(committed), load_json(fresh), f"{label}: ")
    return compare(committed.read_text(), fresh.read_text(), f"{label}: ")


def table_slice_diffs(committed: Mapping[str, list], fresh: Mapping[str, list], seed: int = 0) -> list[Diff]:
    """results/tables/table_data.json ({"table|row|suite": [summary per seed]}): the fresh runs of
    `seed` against the committed summaries of `seed` for every cell that needs no trained policy
    (its `policy_checkpoints` empty or only policies nothing trained: the gold rule, the blind ones)."""
    from eval.provenance import NON_LEARNED_POLICIES

    def untrained(entries: list) -> dict[str, Any] | None:
        for e in entries:
            checkpoints = e.get("policy_checkpoints") or []
            if e.get("seed") == seed and all(c in NON_LEARNED_POLICIES for c in checkpoints):
                return e
        return None

    a = {k: e for k, v in committed.items() if (e := untrained(v)) is not None}
    b = {k: e for k, v in fresh.items() if (e := untrained(v)) is not None}
    out = []
    for k in [*a, *(k for k in b if k not in a)]:
        if k not in a or k not in b:
            out.append(Diff(k, "present" if k in a else ABSENT, "present" if k in b else ABSENT))
        else:
            out += compare(a[k], b[k], f"{k} seed {seed}: ")
    return out


# ---------------------------------------------------------------------------------------- README


def readme_block(results: Mapping[str, Any], meta: Mapping[str, Any]) -> str:
    """The README's demo figures, rendered from results/demo (demo_results.json + reproduce.json)."""
    held_out = []
    for line in str(results["table"]).splitlines():
        if line.startswith("|"):
            held_out.append(line)
        elif held_out:
            break
    checks = results.get("checks") or {}
    rows = {name: runs[0] for name, runs in (results.get("results") or {}).items() if runs}
    p, p0, sft = rows.get("GRPO (penalty -1)"), rows.get("GRPO (penalty 0)"), rows.get("SFT only")
    lines = [
        README_START,
        f"Measured on a fresh clone of {str(meta.get('git_commit', '?'))[:7]} ({meta.get('date', '?')}; "
        f"`make reproduce-update`: `git clone` into a temporary folder, `pulse demo` there, nothing reused "
        f"but the installed `.venv`): {_minutes(meta.get('demo_seconds'))} of demo on "
        f"{meta.get('cpu_count', '?')} cores ({meta.get('cpu', 'CPU not recorded')}). "
        f"Seeds {results.get('seeds')}; "
        f"`results/demo/` holds the files that run wrote.",
        "",
        *held_out,
        "",
    ]
    if p and p0 and sft:
        lines.append(
            f"Checks (`checks` in `demo_results.json`): GRPO(−1) − SFT decision accuracy "
            f"{_pts(checks.get('grpo_minus_sft_decision_accuracy_pts'))} points; GRPO(−1) vs GRPO(0): "
            f"{p['interventions']} vs {p0['interventions']} interventions, interruption success "
            f"{_pct(p['interruption_success'])} vs {_pct(p0['interruption_success'])} %; "
            + ", ".join(f"`{k}={json.dumps(v)}`" for k, v in checks.items() if not isinstance(v, float))
            + "."
        )
    suites = (results.get("suites") or {}).get("checks") or {}
    if suites:
        names = (
            ("pulse_no_rl", "w/o RL (SFT only)"),
            ("pulse_penalty0", "GRPO (penalty 0)"),
            ("pulse", "GRPO (penalty −1)"),
        )
        order = [b for b in ("pibench_sim", "mcp_persona_sim") if b in suites]
        suites = {b: suites[b] for b in [*order, *(b for b in suites if b not in order)]}
        head = ["policy"]
        for b in suites:
            head += [f"{b} score %", f"{b} interventions", f"{b} interruption success %"]
        lines += [
            "",
            "Offline suites, simulated task agent (`suites.checks` in `demo_results.json`; score: COMP on "
            "pibench_sim, Acc on mcp_persona_sim; Tables 1 and 2 with policy calls per task in "
            "`demo_table.md`):",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        for key, label in names:
            cells = [label]
            for b in suites:
                m = (suites[b].get("means") or {}).get(key) or {}
                cells += [
                    _pct(m.get("score")),
                    _num(m.get("interventions")),
                    _pct(m.get("interruption_success")),
                ]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append(README_END)
    return "\n".join(lines)


def _minutes(s: Any) -> str:
    if not isinstance(s, (int, float)):
        return "?"
    m, sec = divmod(int(round(s)), 60)
    return f"{m} min {sec} s"


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}"


def _pts(v: Any) -> str:
    return "n/a" if v is None else f"{v:+.1f}".replace("-", "−")


def _num(v: Any) -> str:
    return "n/a" if v is None else f"{v:.1f}"


def readme_with_block(readme: str, block: str) -> str:
    if README_START not in readme or README_END not in readme:
        raise ValueError(f"README.md: no demo block (the lines {README_START!r} ... {README_END!r})")
    head, rest = readme.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    return head + block + tail


def readme_diffs(readme: str, results_dir: Path) -> list[Diff]:
    """The README's demo block against the one rendered from results_dir."""
    block = readme_block(load_json(results_dir / "demo_results.json"), _meta(results_dir))
    try:
        current = readme.split(README_START, 1)[1].split(README_END, 1)[0]
    except IndexError:
        return [Diff("README.md demo block", ABSENT, "present")]
    return compare(current, block.split(README_START, 1)[1].split(README_END, 1)[0], "README.md demo block: ")


def _meta(results_dir: Path) -> dict[str, Any]:
    p = results_dir / REPRODUCE_META
    return load_json(p) if p.exists() else {}


def cpu_slug(cpu: str) -> str:
    """A folder name for a CPU model ("Intel(R) Xeon(R) Processor" -> "intel_xeon_processor")."""
    words = "".join(c if c.isalnum() else " " for c in cpu.replace("(R)", "").replace("(TM)", "")).lower()
    return "_".join(words.split()) or "unknown_cpu"


def demo_reference(results_dir: Path, cpu: str) -> tuple[Path, str]:
    """The committed demo files to compare a run on `cpu` with, and a note when none was made on it.

    results/demo first, then results/demo/other_cpus/*: the first whose reproduce.json names this CPU.
    Without one, results/demo, and the note says its figures came from another CPU."""
    others = sorted(p for p in (results_dir / OTHER_CPUS).glob("*") if p.is_dir())
    for d in (results_dir, *others):
        if _meta(d).get("cpu") == cpu:
            return d, ""
    made_on = _meta(results_dir).get("cpu", "an unrecorded CPU")
    return results_dir, (
        f"results/demo was made on {made_on!r} and no file under results/demo/{OTHER_CPUS}/ on this "
        f"CPU ({cpu!r}); CPU-trained figures differ between CPU vendors (docs/speed_and_reliability.md), "
        "so differences here may be the machine, not the code"
    )


# ---------------------------------------------------------------------------------------- running


def git(repo: Path, *args: str) -> str:
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SetupError(f"git {' '.join(args)} in {repo} failed: {r.stderr.strip()}")
    return r.stdout.strip()


def make_clone(root: Path, parent: Path) -> tuple[Path, str]:
    sha = git(root, "rev-parse", "HEAD")
    if git(root, "status", "--porcelain", "--untracked-files=no"):
        print(f"note: {root} has uncommitted changes; the check runs the committed HEAD {sha[:12]} only")
    clone = parent / "clone"
    r = subprocess.run(
        ["git", "clone", "--quiet", "--no-checkout", str(root), str(clone)], capture_output=True, text=True
    )
    if r.returncode != 0:
        raise SetupError(f"git clone {root} failed: {r.stderr.strip()}")
    git(clone, "checkout", "--quiet", "--detach", sha)
    return clone, sha


def clone_env(clone: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(clone)  # the clone's packages before the editable install's finder
    return env


def check_imports(py: str, clone: Path, env: dict[str, str]) -> None:
    """The clone's own code must be what runs; a .pth path entry or a stray PYTHONPATH would not be."""
    probe = (
        "import data_gen, eval, pulse; print(pulse.__file__); print(eval.__file__); print(data_gen.__file__)"
    )
    r = subprocess.run([py, "-c", probe], cwd=clone, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SetupError(f"{py} cannot import the project in the clone: {r.stderr.strip()[-2000:]}")
    for f in r.stdout.split():
        if not Path(f).resolve().is_relative_to(clone.resolve()):
            raise SetupError(
                f"in the clone, {py} imports {f}, not the clone's code; the check would test the wrong files"
            )


def run_logged(
    cmd: list[str], cwd: Path, env: dict[str, str], log: Path, timeout_s: float, echo_prefix: str = ""
) -> tuple[int, float]:
    """Run `cmd`, its output to `log`; lines starting with `echo_prefix` are also printed (progress).
    Past `timeout_s` its whole process group is stopped (a hung run must not hold CI) and the
    status is TIMED_OUT. Returns (exit status, wall seconds)."""
    t0 = time.monotonic()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: the timeout stops its workers too
        )
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 0)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    return
                try:
                    proc.wait(wait)
                    return
                except subprocess.TimeoutExpired:
                    continue

        timer = threading.Timer(timeout_s, stop)
        timer.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            fh.write(line)
            if echo_prefix and line.startswith(echo_prefix):
                print("    " + line.rstrip(), flush=True)
        rc = proc.wait()
        timer.cancel()
        if timed_out.is_set():
            fh.write(f"\n[reproduce_check] stopped after {timeout_s:.0f} s (the part's time limit)\n")
            rc = TIMED_OUT
    return rc, time.monotonic() - t0


def _failed(what: str, rc: int, log: Path) -> list[Diff]:
    tail = log.read_text().splitlines()[-30:] if log.exists() else []
    status = "stopped at its time limit" if rc == TIMED_OUT else f"exited {rc}"
    print(f"  FAILED: {what} {status}; log {log}; its last lines:")
    for line in tail:
        print("    | " + line)
    return [Diff(what, "runs", f"exit {rc}")]


def part_demo(
    py: str, clone: Path, env: dict[str, str], logs: Path, demo_args: list[str]
) -> tuple[list[Diff], float]:
    print(f"[demo] python -m pulse.cli.demo {' '.join(demo_args)}  (in {clone})", flush=True)
    rc, secs = run_logged(
        [py, "-m", "pulse.cli.demo", *demo_args], clone, env, logs / "demo.log", TIMEOUT_S["demo"], "[pulse"
    )
    print(f"[demo] {_minutes(secs)} ({secs:.0f} s)", flush=True)
    if rc != 0:
        return _failed("pulse demo", rc, logs / "demo.log"), secs
    committed, fresh = clone / "results" / "demo", clone / "outputs" / "demo"
    reference, note = demo_reference(committed, cpu_model())
    label = reference.relative_to(clone).as_posix()
    stale = stale_reference(reference, committed, _maybe_json(fresh / "demo_results.json"))
    if stale:
        print(
            f"[demo] NOT COMPARED: {label} was made from other training data (dataset {stale}), so its "
            "figures say nothing of this run's; `make reproduce-update` on this CPU makes a current one. "
            "Compared with results/demo instead: what does not depend on the CPU (the training data's "
            "fingerprint and the training config)."
        )
        diffs = cpu_independent_diffs(committed / "demo_results.json", fresh / "demo_results.json")
        print_diffs("results/demo/demo_results.json: dataset fingerprint and train_config", diffs)
    else:
        print(f"[demo] compared with {label} (made on {_meta(reference).get('cpu', 'an unrecorded CPU')})")
        diffs = []
        for name in DEMO_FILES:
            d = compare_files(reference / name, fresh / name, f"{label}/{name}")
            print_diffs(f"{label}/{name}", d)
            diffs += d
    notes = provenance_notes(
        _maybe_json(reference / "demo_results.json"), _maybe_json(fresh / "demo_results.json")
    )
    for n in notes:
        print(f"    note: fingerprint differs: {n}")
    if note and diffs:
        print(f"    note: {note}")
    d = readme_diffs((clone / "README.md").read_text(), committed)
    print_diffs("README.md demo block vs results/demo", d)
    return diffs + d, secs


def _fingerprint(results: Any) -> str:
    return str(((results or {}).get("provenance") or {}).get("dataset_fingerprint") or "")


def stale_reference(reference: Path, committed: Path, fresh_results: Any) -> str:
    """ "old -> new" when `reference` is another CPU's files made from other training data than this
    run's (a data change updated results/demo on one CPU only); "" when it is current or is results/demo
    itself (whose staleness is a real difference)."""
    if reference == committed:
        return ""
    a = _fingerprint(_maybe_json(reference / "demo_results.json"))
    b = _fingerprint(fresh_results)
    return f"{a[:8]} -> {b[:8]}" if a and b and a != b else ""


def cpu_independent_diffs(committed: Path, fresh: Path) -> list[Diff]:
    """The demo's training data fingerprint and training config against results/demo's: what a run on any
    CPU must share with it."""
    a, b = _maybe_json(committed) or {}, _maybe_json(fresh) or {}
    out = []
    if _fingerprint(a) != _fingerprint(b):
        out.append(
            Diff("demo_results.json: provenance.dataset_fingerprint", _fingerprint(a), _fingerprint(b))
        )
    out += compare(a.get("train_config"), b.get("train_config"), "demo_results.json: train_config: ")
    return out


def _maybe_json(path: Path) -> Any:
    return load_json(path) if path.exists() else None


@dataclass
class SliceRun:
    """One table slice: its command, where it writes, and (once run) its exit status and wall time."""

    name: str
    cmd: list[str]
    env: dict[str, str]
    out: Path
    rc: int = 0
    secs: float = 0.0


def tables_run(py: str, clone: Path, env: dict[str, str]) -> SliceRun:
    out = clone / "outputs" / "reproduce" / "tables"
    cmd = [py, "scripts/reproduce_tables.py", "--runs", str(out / "runs"), "--out", str(out), "--seeds", "0"]
    print("[tables] scripts/reproduce_tables.py --seeds 0 (rows that need no trained policy)", flush=True)
    return SliceRun("tables", cmd, env, out)


def real_tools_run(py: str, clone: Path, env: dict[str, str]) -> SliceRun | None:
    data = env.get("PULSE_DATA_DIR", "")
    if not data or not Path(data).is_dir():
        print(
            "[real_tools] skipped: PULSE_DATA_DIR is "
            + ("not set" if not data else f"{data!r}, not a directory")
        )
        return None
    out = clone / "outputs" / "reproduce" / "real_tools"
    print("[real_tools] scripts/real_tools.sh", flush=True)
    return SliceRun("real_tools", ["bash", "scripts/real_tools.sh", str(out)], {**env, "PY": py}, out)


def start_slices(runs: list[SliceRun], clone: Path, logs: Path, beside_demo: bool) -> list[threading.Thread]:
    """Start the slices side by side (each is one single-threaded process, so on 2 cores the pair takes
    the longer one's time instead of the sum); `beside_demo`: at the lowest priority (nice 19) while the
    demo runs, so that they take only the cores the demo leaves idle (its single-threaded stretches:
    data generation, tokenizer, sampling, the suites) and finish after it. The demo's figures do not
    depend on it (a fixed torch thread count), nor do the slices'. Join the threads returned."""

    def one(r: SliceRun) -> None:
        cmd = ["nice", "-n", "19", *r.cmd] if beside_demo else r.cmd
        limit = TIMEOUT_S[r.name] + (TIMEOUT_S["demo"] if beside_demo else 0)
        r.rc, r.secs = run_logged(cmd, clone, r.env, logs / f"{r.name}.log", limit)

    threads = [threading.Thread(target=one, args=(r,)) for r in runs]
    for t in threads:
        t.start()
    return threads


def tables_diffs(run: SliceRun, clone: Path, logs: Path) -> list[Diff]:
    print(f"[tables] {_minutes(run.secs)}", flush=True)
    if run.rc != 0:
        return _failed("scripts/reproduce_tables.py", run.rc, logs / "tables.log")
    d = table_slice_diffs(
        load_json(clone / "results" / "tables" / "table_data.json"), load_json(run.out / "table_data.json")
    )
    print_diffs("results/tables/table_data.json, seed 0, rows without a trained policy", d)
    return d


def real_tools_diffs(run: SliceRun, clone: Path, logs: Path) -> list[Diff]:
    print(f"[real_tools] {_minutes(run.secs)}", flush=True)
    if run.rc != 0:
        return _failed("scripts/real_tools.sh", run.rc, logs / "real_tools.log")
    committed, out = clone / "results" / "real_tools", run.out
    diffs = []
    names = sorted(
        {p.name for p in (committed / "summaries").glob("*.json")}
        | {p.name for p in (out / "summaries").glob("*.json")}
    )
    for name in names:
        diffs += compare_files(committed / "summaries" / name, out / "summaries" / name, f"summaries/{name}")
    diffs += compare_files(committed / "table_b3.md", out / "table_b3.md", "table_b3.md")
    print_diffs("results/real_tools/ (summaries/*.json, table_b3.md)", diffs)
    return diffs


def update_demo(root: Path, clone: Path, sha: str, demo_seconds: float) -> None:
    """Write the fresh clone's demo files into results/demo, its wall time into reproduce.json, and
    the README's demo block rendered from them."""
    src, dest = clone / "outputs" / "demo", root / "results" / "demo"
    dest.mkdir(parents=True, exist_ok=True)
    cpu, previous = cpu_model(), _meta(dest)
    if previous.get("cpu") and previous["cpu"] != cpu:
        # Made on another CPU: kept beside, for the check on that CPU (it cannot be remade here).
        keep = dest / OTHER_CPUS / cpu_slug(previous["cpu"])
        keep.mkdir(parents=True, exist_ok=True)
        for name in (*DEMO_FILES, REPRODUCE_META):
            if (dest / name).exists():
                shutil.copyfile(dest / name, keep / name)
        print(f"[update] results/demo was made on {previous['cpu']!r}: kept in {keep.relative_to(root)}")
    for name in DEMO_COPIED:
        if (src / name).exists():
            shutil.copyfile(src / name, dest / name)
        elif (dest / name).exists():
            (dest / name).unlink()  # a file this run no longer writes must not stay behind
    meta = {
        "git_commit": sha,
        "date": time.strftime("%Y-%m-%d"),
        "demo_seconds": round(demo_seconds, 1),
        "cpu_count": os.cpu_count(),
        "cpu": cpu,
        "command": "make reproduce-update (scripts/reproduce_check.py --update)",
    }
    (dest / REPRODUCE_META).write_text(json.dumps(meta, indent=1) + "\n")
    write_readme(root)
    written = [n for n in (*DEMO_COPIED, REPRODUCE_META) if (dest / n).exists()]
    print(f"[update] wrote {', '.join(written)} in {dest}, and README.md's demo block")


def write_readme(root: Path) -> None:
    results_dir = root / "results" / "demo"
    block = readme_block(load_json(results_dir / "demo_results.json"), _meta(results_dir))
    readme = root / "README.md"
    readme.write_text(readme_with_block(readme.read_text(), block))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--update", action="store_true", help="write the fresh demo's files into results/demo and the README"
    )
    ap.add_argument(
        "--readme", action="store_true", help="only rewrite README.md's demo block from results/demo"
    )
    ap.add_argument(
        "--parts", nargs="+", choices=PARTS, default=None, help="default: all (demo only with --update)"
    )
    ap.add_argument(
        "--workdir", default="", help="parent folder of the clone (default: a new temporary folder)"
    )
    ap.add_argument(
        "--keep", action="store_true", help="keep the clone (it is kept anyway when something differs)"
    )
    ap.add_argument(
        "--demo-args",
        nargs="*",
        default=[],
        help="hydra overrides for the demo, only to try this script quickly (the figures then differ)",
    )
    a = ap.parse_args(argv)
    if a.readme:
        write_readme(ROOT)
        print("README.md: demo block rewritten from results/demo")
        return 0
    parts = a.parts or (["demo"] if a.update else list(PARTS))
    if a.update and "demo" not in parts:
        print("--update regenerates results/demo: add demo to --parts", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    parent = Path(a.workdir or tempfile.mkdtemp(prefix="pulse-reproduce-")).resolve()
    parent.mkdir(parents=True, exist_ok=True)
    try:
        clone, sha = make_clone(ROOT, parent)
        env = clone_env(clone)
        check_imports(sys.executable, clone, env)
    except SetupError as e:
        print(f"reproduce_check: {e}", file=sys.stderr)
        return 2
    print(
        f"fresh clone of {sha[:12]} in {clone}; python {sys.executable}; parts {', '.join(parts)}", flush=True
    )
    logs = parent / "logs"
    diffs: dict[str, list[Diff]] = {}
    times: dict[str, float] = {}
    slices = {
        "tables": tables_run(sys.executable, clone, env) if "tables" in parts else None,
        "real_tools": real_tools_run(sys.executable, clone, env) if "real_tools" in parts else None,
    }
    threads = start_slices([r for r in slices.values() if r is not None], clone, logs, "demo" in parts)
    if "demo" in parts:
        diffs["demo"], times["demo"] = part_demo(sys.executable, clone, env, logs, a.demo_args)
    for t in threads:
        t.join()
    for name, check in (("tables", tables_diffs), ("real_tools", real_tools_diffs)):
        if name in parts:
            r = slices[name]
            diffs[name], times[name] = (check(r, clone, logs), r.secs) if r is not None else ([], 0.0)
    total = time.monotonic() - t0
    print(
        "times: " + ", ".join(f"{k} {_minutes(v)}" for k, v in times.items()) + f"; total {_minutes(total)}"
    )
    if a.update:
        demo_failed = any(d.where == "pulse demo" for d in diffs["demo"])
        if demo_failed or not (clone / "outputs" / "demo" / "demo_results.json").exists():
            print("reproduce_check: the demo failed; results/demo left as it was", file=sys.stderr)
            return 1
        update_demo(ROOT, clone, sha, times["demo"])
        diffs.pop("demo")  # rewritten: what differed is now what the files say
    failed = {part: d for part, d in diffs.items() if d}
    for part, d in failed.items():
        print(f"reproduce_check: {part}: {len(d)} figure(s) differ from the committed results; {FIX[part]}")
    if failed:
        print(f"reproduce_check: FAILED at {sha[:12]}; clone and logs kept in {parent}")
        return 1
    if a.update:
        print(
            f"reproduce_check: results/demo rewritten from a fresh clone of {sha[:12]}; "
            "commit it with README.md"
        )
    else:
        print(f"reproduce_check: every compared figure identical at {sha[:12]}")
    if not a.keep and not a.workdir:
        shutil.rmtree(parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
