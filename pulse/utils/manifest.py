"""Run manifest: what produced a run directory (git commit, package versions, seeds, config)."""
from __future__ import annotations

import importlib.metadata as md
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pulse.utils.atomic import atomic_write_json

PACKAGES = ("torch", "transformers", "trl", "peft", "accelerate", "datasets", "hydra-core", "wandb",
            "sentence-transformers", "vllm", "pulse-memory")


def git_commit(repo: Path | None = None) -> str:
    try:
        cwd = repo or Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return versions


def write_manifest(out_dir: str | Path, **extra: Any) -> dict[str, Any]:
    manifest = {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git_commit": git_commit(),
                "python": sys.version.split()[0], "platform": platform.platform(),
                "packages": package_versions(), "argv": sys.argv, **extra}
    atomic_write_json(Path(out_dir) / "manifest.json", manifest)
    return manifest
