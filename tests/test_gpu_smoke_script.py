"""scripts/gpu_smoke.sh on a machine without a GPU: it parses, answers --help, refuses bad arguments
(exit 2) and refuses to start without a visible CUDA GPU or vLLM (exit 3, before writing anything).
With PULSE_SLOW=1 its CPU rehearsal runs the train / transformers-eval / export / serve commands for
real, without vLLM (~1 min on 2 cores)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "scripts" / "gpu_smoke.sh"


def _run(args: list[str], env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SMOKE), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.mark.parametrize("script", ["gpu_smoke.sh", "resolve_gpu.sh"])
def test_scripts_parse(script):
    r = subprocess.run(["bash", "-n", str(ROOT / "scripts" / script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_help_and_bad_arguments():
    r = _run(["--help"])
    assert r.returncode == 0 and "One-GPU smoke" in r.stdout and "--cpu-rehearsal" in r.stdout
    assert "--no-vllm" in r.stdout
    bad_args = (["--bogus"], ["--port", "x"], ["--out"], ["--budget", "-1"], ["--no-vllm", "--cpu-rehearsal"])
    for bad in bad_args:
        r = _run(bad)
        assert r.returncode == 2, (bad, r.stdout, r.stderr)
        assert "gpu_smoke.sh:" in r.stderr


def test_refuses_without_a_gpu_before_writing_anything(tmp_path):
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    out, work = tmp_path / "out", tmp_path / "work"
    r = _run(["--out", str(out), "--work", str(work)], env)
    assert r.returncode == 3, r.stderr
    assert "refused: no CUDA GPU visible" in r.stderr
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        assert "refused: vllm is not installed" in r.stderr and "constraints/gpu-py311.txt" in r.stderr
    assert not out.exists() and not work.exists()


def test_no_vllm_needs_a_gpu_but_not_vllm(tmp_path):
    """`--no-vllm` (a GPU without vLLM installed) still refuses without a GPU, and never asks for vLLM."""
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    out, work = tmp_path / "out", tmp_path / "work"
    r = _run(["--no-vllm", "--out", str(out), "--work", str(work)], env)
    assert r.returncode == 3, r.stderr
    assert "refused: no CUDA GPU visible" in r.stderr and "vllm is not installed" not in r.stderr
    assert not out.exists() and not work.exists()


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.skipif(os.environ.get("PULSE_SLOW") != "1", reason="~1 min of CPU: set PULSE_SLOW=1")
def test_cpu_rehearsal_runs_the_commands(tmp_path):
    import socket

    with socket.socket() as sock:  # a free port for the stand-in server
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = ["--cpu-rehearsal", "--out", str(tmp_path / "out"), "--work", str(tmp_path / "work")]
    r = _run([*args, "--port", str(port)], timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["ok"] and s["cpu_rehearsal"] and all(s["checks"].values())
    assert [x["step"] for x in s["steps"]] == ["env", "train", "eval_tf", "export", "serve"]
    assert (tmp_path / "out" / "smoke.log").is_file()
