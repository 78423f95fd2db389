"""The GPU constraint set (constraints/gpu-py311.txt, written by scripts/resolve_gpu.sh): it pins every
package the `gpu` extra and the project's dependencies name, inside pyproject's ranges, and the
GPU section of docs/training.md states what it pins. With PULSE_NETWORK=1 a fresh metadata-only resolve
(uv, PyPI) must reproduce the committed file byte for byte, and the CUDA read from torch's wheel
metadata must be the one the docs state."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints" / "gpu-py311.txt"
SCRIPT = ROOT / "scripts" / "resolve_gpu.sh"
DOC = ROOT / "docs" / "training.md"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)\s*$")


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = PIN.match(line)
        assert m, f"not an exact pin: {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"{name} pinned twice"
        pins[name] = Version(m.group(2))
    return pins


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _requirements() -> list[tuple[str, Requirement]]:
    p = _project()
    return [("gpu", Requirement(r)) for r in p["optional-dependencies"]["gpu"]] + [
        ("dependencies", Requirement(r)) for r in p["dependencies"]
    ]


@pytest.mark.parametrize("group,req", _requirements(), ids=lambda x: str(x))
def test_every_requirement_is_pinned_inside_its_range(group, req):
    pins = _pins()
    name = canonicalize_name(req.name)
    assert name in pins, f"{req.name} ({group} in pyproject.toml) is not pinned in {CONSTRAINTS.name}"
    assert req.specifier.contains(pins[name], prereleases=True), (
        f"{CONSTRAINTS.name} pins {req.name}=={pins[name]}, outside pyproject's {group} range "
        f"{req.specifier}; rerun scripts/resolve_gpu.sh"
    )


def test_the_gpu_extra_is_in_the_set():
    extra = {canonicalize_name(Requirement(r).name) for r in _project()["optional-dependencies"]["gpu"]}
    assert extra >= {"vllm", "deepspeed"}
    assert extra <= set(_pins())


def test_header_names_the_script_and_its_cutoff_date():
    header = CONSTRAINTS.read_text().splitlines()[:3]
    command = next(line for line in header if "resolve_gpu.sh" in line)
    default = re.search(r"GPU_RESOLVE_EXCLUDE_NEWER:-([^}]+)}", SCRIPT.read_text()).group(1)
    assert f"--exclude-newer {default}" in command
    assert "--extra gpu" in command and "--python-version 3.11" in command


def test_the_docs_state_what_is_pinned():
    pins, doc = _pins(), DOC.read_text()
    assert "constraints/gpu-py311.txt" in doc and "scripts/resolve_gpu.sh" in doc
    for name in ("torch", "vllm", "transformers", "trl", "deepspeed"):
        assert f"{name} {pins[name]}" in doc, f"docs/training.md does not state {name} {pins[name]}"


def _uv() -> str:
    for cand in (Path(sys.executable).parent / "uv", shutil.which("uv")):
        if cand and Path(cand).is_file():
            return str(cand)
    pytest.fail("PULSE_NETWORK=1 needs uv: .venv/bin/python -m pip install uv")


network = pytest.mark.skipif(
    os.environ.get("PULSE_NETWORK") != "1", reason="resolves against PyPI: set PULSE_NETWORK=1"
)


@pytest.mark.slow
@network
def test_a_fresh_resolve_reproduces_the_committed_set(tmp_path):
    _uv()
    out = tmp_path / "gpu-py311.txt"
    r = subprocess.run(
        ["bash", str(SCRIPT), "--no-report", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert out.read_text() == CONSTRAINTS.read_text(), (
        "the committed set is stale: run scripts/resolve_gpu.sh"
    )


@pytest.mark.slow
@network
def test_the_cuda_the_wheels_need_is_the_one_the_docs_state():
    r = subprocess.run(
        [sys.executable, "scripts/gpu_wheel_metadata.py", str(CONSTRAINTS), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads(r.stdout)
    torch = report["packages"]["torch"]
    assert torch["version"] == str(_pins()["torch"])
    assert any(req.startswith("cuda-toolkit") for req in torch["cuda_requires"])
    vllm_torch = [q for q in report["packages"]["vllm"]["cuda_requires"] if re.match(r"torch\b", q)]
    assert vllm_torch == [f"torch=={torch['version']}"], vllm_torch
    assert f"CUDA {report['cuda']}" in DOC.read_text()
