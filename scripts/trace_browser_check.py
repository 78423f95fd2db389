"""Render a small traced run with `pulse trace` and check the page in a real browser (headless Chromium).

    python scripts/trace_browser_check.py                         # checks; exit 0 when the page is right
    python scripts/trace_browser_check.py --screenshot docs/trace_screenshot.png

Two runs of the same tasks (pibench_sim, persona `researcher`, two tasks; `pulse_rule` and `none`,
simulated agent, recorded with PULSE_TRACE=1) -> one trace.html -> Chromium (Debian's `chromium`
package: `apt-get install -y chromium`) loads it from disk with no network, runs its JavaScript and
dumps the DOM; the check reads the side-by-side view of the first task: both methods' columns, an
intervention with its evidence and what the agent did next, a retrieval reason, a checkpoint marked
failed for `none`; then the method filter. `--screenshot` also saves a PNG of that view.
Exit status: 0 checks passed, 1 a check failed (each failure printed), 2 Chromium not found.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TASK = "researcher_task_001"


def small_runs(out: Path, methods=("pulse_rule", "none"), trace: bool = True) -> list[Path]:
    """`methods` on pibench_sim (researcher, 2 tasks), recorded with PULSE_TRACE=1 (`trace`); their run
    dirs."""
    sys.path.insert(0, str(REPO))
    from hydra import compose, initialize_config_dir

    from eval.config import EvalConfig
    from eval.harness import run_eval
    from pulse.config.schema import to_typed

    old = os.environ.get("PULSE_TRACE")
    os.environ["PULSE_TRACE"] = "1" if trace else "0"
    try:
        dirs = []
        for m in methods:
            ov = [
                f"method={m}",
                "benchmark=pibench_sim",
                f"out_dir={out / m}",
                "progress=false",
                "benchmark.max_tasks=2",
                "benchmark.personas=[researcher]",
            ]
            with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
                cfg = to_typed(compose("eval", overrides=ov), EvalConfig)
            dirs.append(run_eval(cfg))
        return dirs
    finally:
        if old is None:
            os.environ.pop("PULSE_TRACE", None)
        else:
            os.environ["PULSE_TRACE"] = old


def chromium() -> str:
    return shutil.which("chromium") or shutil.which("chromium-browser") or ""


def browse(page: Path, fragment: str, screenshot: Path | None = None, size: str = "1500,1000") -> str:
    """The page's DOM after its JavaScript ran (and a PNG if `screenshot`), from a fresh profile."""
    exe = chromium()
    url = page.resolve().as_uri() + fragment
    with tempfile.TemporaryDirectory() as profile:
        base = [exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}"]
        dom = subprocess.run([*base, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [*base, f"--screenshot={screenshot.resolve()}", url], capture_output=True, timeout=120
            )
    return dom


def text_of(dom: str) -> str:
    body = re.sub(r"<script.*?</script>", " ", dom, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).replace("&gt;", ">").replace("&amp;", "&")


def check(page: Path, screenshot: Path | None = None) -> list[str]:
    """Failures (empty when the page is right)."""
    fails = []
    dom = browse(page, f"#compare=0:{TASK}&only=1", screenshot)
    txt = text_of(dom)
    want = {
        "the page ran its script": 'data-ready="1"' in dom,
        "two columns side by side": dom.count('class="card"') == 2
        and "Side by side: " + TASK + " in 2 run(s)" in txt,
        "pulse_rule column": f"pulse_rule · {TASK}" in txt,
        "none column": f"none · {TASK}" in txt,
        "an intervention": "Pulse: intervene" in txt,
        "its evidence message": "The user prefers seed_policy = three_seeds" in txt,
        "what the agent did next": "Agent next: re-called log_experiment" in txt and "(follows memory" in txt,
        "a retrieval reason": "valid at the cutoff" in txt,
        "a passed checkpoint": "✓ seed_policy=three_seeds" in txt,
        "a failed checkpoint (none)": "✗ seed_policy=three_seeds" in txt,
    }
    fails += [f"compare view: {name}" for name, ok in want.items() if not ok]
    # one episode with the method filter: the list shows that method's episodes only
    dom = browse(page, f"#ep=1:{TASK}&method=none&persona=researcher")
    txt = text_of(dom)
    if "2 of 4 episodes" not in txt or dom.count('class="card"') != 1 or dom.count('class="ep') != 2:
        fails.append("filtered view: expected 2 of 4 episodes listed (method none) and one card")
    if "pulse_rule" in text_of(dom.split('id="list"')[1].split('id="detail"')[0]):
        fails.append("filtered view: a pulse_rule episode is listed under method=none")
    if "#1 request" not in txt:
        fails.append("single episode view: the timeline's first event (the request) is missing")
    return fails


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--screenshot", type=Path, default=None, help="also save a PNG of the side-by-side view here"
    )
    ap.add_argument(
        "--keep", type=Path, default=None, help="build the runs and the page here (default: a temp dir)"
    )
    a = ap.parse_args(argv)
    if not chromium():
        print("trace_browser_check: chromium not found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = a.keep or Path(tmp)
        runs = small_runs(root)
        from pulse.trace.html import render
        from pulse.trace.load import load

        page = root / "trace.html"
        page.write_text(
            render(load([str(r) for r in runs]), "Pulse trace: pulse_rule vs none (pibench_sim, researcher)")
        )
        fails = check(page, a.screenshot)
    for f in fails:
        print(f"FAIL {f}")
    print(
        f"trace_browser_check: {'ok' if not fails else f'{len(fails)} check(s) failed'}"
        + (f"; screenshot {a.screenshot}" if a.screenshot and not fails else "")
    )
    return 1 if fails else 0


if __name__ == "__main__":
    raise SystemExit(main())
