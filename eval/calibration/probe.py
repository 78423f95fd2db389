"""Run the probes against a real model and record one JSON line per probe (resumable).

    # a local GGUF model on CPU (the project's server is started and stopped here)
    python -m eval.calibration.probe --gguf /work/models/qwen2.5-coder-1.5b-instruct.gguf \
        --name qwen2.5-coder-1.5b-instruct --n 420 --out results/calibration/qwen_coder_1_5b
    # any OpenAI-compatible endpoint (vLLM on a GPU, a hosted API)
    python -m eval.calibration.probe --base-url http://127.0.0.1:8000/v1 \
        --model Qwen/Qwen2.5-Coder-1.5B-Instruct --n 420 --out results/calibration/<name>

`<out>/probes.jsonl` gets one line per probe (appended and flushed each time); a rerun skips the
probe ids already there, so an interrupted run resumes. The probe set is deterministic from (suites,
n, seed) and the suites' code; the first run writes it to `<out>/plan.jsonl` and a rerun reads it
from there, so a resumed run asks the same probes even after the suite generators changed.
`--max-minutes` stops cleanly after that much time (the rest is left for a rerun).
`<out>/meta.json` records the model, endpoint, seed, n and suites. Bad input (a missing model file,
an unknown suite, an unreachable endpoint) is one error line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from eval.calibration.build import SUITES, Probe, load_suite, make_probes, messages
from eval.calibration.classify import classify
from pulse.core.errors import PulseUserError

DEFAULT_OUT = "results/calibration/qwen_coder_1_5b"


class ProbeError(PulseUserError):
    """Bad input (a missing model file, an unknown suite, an unreachable endpoint): one line, exit 2."""


def _wait_ready(base_url: str, proc: subprocess.Popen | None, timeout_s: float) -> None:
    t0 = time.time()
    while time.time() - t0 < timeout_s:
        if proc is not None and proc.poll() is not None:
            err = (proc.stderr.read() if proc.stderr else b"").decode(errors="replace").strip().splitlines()
            raise ProbeError(f"the GGUF server exited ({proc.returncode}): {err[-1] if err else 'no output'}")
        try:
            with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=5) as r:
                if r.status == 200:
                    return
        except Exception:
            if proc is None:
                break
        time.sleep(1.0)
    raise ProbeError(f"endpoint {base_url} is not reachable (GET /models failed)")


def start_server(
    gguf: str, name: str, port: int, threads: int, sha: str
) -> tuple[subprocess.Popen, list[str]]:
    if not os.path.isfile(gguf):
        raise ProbeError(f"model file {gguf} does not exist")
    cmd = [
        sys.executable,
        "-m",
        "eval.serving.gguf_server",
        gguf,
        "--port",
        str(port),
        "--threads",
        str(threads),
        "--name",
        name,
        "--slots",
        "3",
        "--n-ctx",
        "4096",
    ]
    if sha:
        cmd += ["--sha256", sha]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return proc, cmd


def _pinned(args) -> str:
    from pulse.models.packaged_gguf import PINNED

    return PINNED.get(args.name, "") if args.sha256 == "pinned" else args.sha256


def plan_probes(args, out: Path) -> list[Probe]:
    """The run's probe set: `<out>/plan.jsonl` when it exists (so a resumed run asks exactly what the
    first one planned, whatever the suites' code has become since), else made from (suites, n, seed)
    and written there."""
    plan = out / "plan.jsonl"
    if plan.exists():
        head = json.loads((out / "plan_meta.json").read_text()) if (out / "plan_meta.json").exists() else {}
        want = {"suites": list(args.suites), "n": args.n, "seed": args.seed}
        if head and {k: head.get(k) for k in want} != want:
            raise ProbeError(f"{plan} was planned for {head}, not {want}: use another --out")
        return [Probe(**json.loads(line)) for line in plan.read_text().splitlines() if line.strip()]
    probes = make_probes([load_suite(s, args.seed) for s in args.suites], args.n, args.seed)
    plan.write_text("".join(json.dumps(p.to_dict()) + "\n" for p in probes))
    (out / "plan_meta.json").write_text(
        json.dumps({"suites": list(args.suites), "n": args.n, "seed": args.seed, "code": _code_version()})
        + "\n"
    )
    return probes


def _code_version() -> str:
    """The commit the probe set was built from (+ "-dirty" when eval/ has uncommitted changes)."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10).stdout
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "eval"], capture_output=True, text=True, timeout=10
        ).stdout
        return head.strip() + ("-dirty" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return ""


def done_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    out = set()
    for line in path.read_text().splitlines():
        try:
            out.add(json.loads(line)["probe_id"])
        except (json.JSONDecodeError, KeyError):
            continue  # a line cut by an interruption: that probe runs again
    return out


def run(args) -> int:
    """Run the probes `args` asks for (argparse's namespace or eval.calibration.config.CalibrateConfig)."""
    _check_input(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    probes = plan_probes(args, out)
    path = out / "probes.jsonl"
    done = done_ids(path)
    todo = [p for p in probes if p.probe_id not in done]
    if args.limit:
        todo = todo[: args.limit]
    print(f"{len(probes)} probes, {len(done)} already recorded, {len(todo)} to run", flush=True)
    proc, cmd = None, []
    base_url = args.base_url
    if args.gguf:
        base_url = f"http://127.0.0.1:{args.port}/v1"
        proc, cmd = start_server(args.gguf, args.name, args.port, args.threads, args.sha256)
    try:
        _wait_ready(base_url, proc, 600 if proc else 10)
        client = _client(args, base_url)
        meta = _run_meta(args, base_url, cmd, len(probes))
        (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        t_start = time.time()
        with path.open("a") as f:
            for k, p in enumerate(todo):
                if args.max_minutes and time.time() - t_start > args.max_minutes * 60:
                    print(f"stopped after {args.max_minutes} min; rerun to resume", flush=True)
                    break
                rec, dt = _ask(client, p)
                f.write(json.dumps(rec) + "\n")
                f.flush()
                print(
                    f"[{k + 1}/{len(todo)}] {p.condition:22s} {rec['outcome']:10s} {dt:5.1f}s "
                    f"prompt {rec['prompt_tokens']} cached {rec['cached_tokens']}",
                    flush=True,
                )
    finally:
        if proc is not None:
            _stop(proc)
    return 0


def _check_input(args) -> None:
    """Bad input is reported before any work: no model, an unknown suite, a missing model file, an
    unreachable endpoint."""
    if not args.gguf and not args.base_url:
        raise ProbeError("give a GGUF file (--gguf / gguf=) or an endpoint (--base-url / base_url=)")
    for s in args.suites:
        if s not in SUITES:
            raise ProbeError(f"unknown suite {s!r} (known: {', '.join(SUITES)})")
    if args.gguf and not os.path.isfile(args.gguf):
        raise ProbeError(f"model file {args.gguf} does not exist")
    if not args.gguf:
        _wait_ready(args.base_url, None, 10)


def _client(args, base_url: str):
    from pulse.llm.endpoint import ChatConfig, EndpointClient

    return EndpointClient(
        ChatConfig(
            model=args.model or args.name,
            base_url=base_url,
            api_key=args.api_key,
            timeout_s=300,
            temperature=0.0,
            max_tokens=args.max_tokens,
        ),
        role="calibration probe",
    )


def _run_meta(args, base_url: str, cmd: list[str], n_probes: int) -> dict[str, Any]:
    """`<out>/meta.json`: the model, the endpoint (and the server command), the probe set's seed,
    n and suites, the decoding."""
    return {
        "model": args.model or args.name,
        "base_url": base_url,
        "gguf": args.gguf,
        "server_command": cmd,
        "sha256": args.sha256,
        "sha256_value": _pinned(args) if args.gguf else "",
        "seed": args.seed,
        "n": args.n,
        "suites": args.suites,
        "max_tokens": args.max_tokens,
        "temperature": 0.0,
        "n_probes": n_probes,
    }


def _ask(client, p: Probe) -> tuple[dict[str, Any], float]:
    """One probe asked: its record (the probe, the classified reply, the token counts) and the
    seconds the model took."""
    from pulse.llm.endpoint import EndpointError

    msgs = messages(p)
    t0 = time.perf_counter()
    try:
        r = client.complete(msgs, tools=p.tools)
    except EndpointError as e:
        raise ProbeError(str(e)) from None
    dt = time.perf_counter() - t0
    m = r.choices[0].message
    message = {
        "content": m.content or "",
        "tool_calls": [c.model_dump() for c in (m.tool_calls or [])],
    }
    d = p.to_dict()
    d["tools"] = [t["function"]["name"] for t in p.tools]
    usage = r.usage
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
    rec = {
        **d,
        **classify(p.to_dict(), message),
        "reply": message["content"],
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "cached_tokens": cached,
        "completion_tokens": getattr(usage, "completion_tokens", None),
        "seconds": round(dt, 3),
    }
    return rec, dt


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Probe a real model in task states with memory deliveries.")
    ap.add_argument("--suites", nargs="+", default=list(SUITES))
    ap.add_argument("--n", type=int, default=420, help="about how many probes in all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--base-url", default="", help="an OpenAI-compatible endpoint (…/v1)")
    ap.add_argument("--model", default="", help="model name on the endpoint (default: --name)")
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "EMPTY"))
    ap.add_argument("--gguf", default="", help="serve this GGUF file locally (eval/serving/gguf_server.py)")
    ap.add_argument("--name", default="qwen2.5-coder-1.5b-instruct")
    ap.add_argument(
        "--sha256",
        default="pinned",
        help="the GGUF file's sha256 ('pinned' = the server's PINNED[name]; '' = no check)",
    )
    ap.add_argument("--port", type=int, default=8031)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--limit", type=int, default=0, help="run at most this many probes now")
    ap.add_argument("--max-minutes", type=float, default=0.0)
    a = ap.parse_args(argv)
    try:
        return run(a)
    except ProbeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
