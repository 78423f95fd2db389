"""Run manifest: what produced a run directory (git commit, package versions, seeds, config), and the
config hash that identifies what a run computes.

Config hash = sha256 of the canonical JSON (`canonical_json`: sorted keys) of the resolved config with
the keys that cannot change a run's results left out (`NON_RESULT_KEYS`, `NON_RESULT_LEAVES`): where
the run is written, what it is called, how it is logged or displayed, whether it resumes, secrets.
`write_manifest(out_dir, config=cfg)` records the full config and adds `config_hash`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import platform
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import is_dataclass
from pathlib import Path
from typing import Any

from pulse.utils.atomic import atomic_write_json

PACKAGES = (
    "torch",
    "transformers",
    "trl",
    "peft",
    "accelerate",
    "datasets",
    "hydra-core",
    "wandb",
    "sentence-transformers",
    "vllm",
    "pulse-memory",
)

# Dotted keys (from the config root) that do not change what a run computes, so they are not hashed
# and may differ when a run is resumed:
#   out_dir, run_name, label               where the run is written, what it is called
#   logger                                 whether metrics also go to wandb (metrics.jsonl is always written)
#   resume, retry_failed                   how a rerun treats existing outputs
#   eval_after, progress, allow_failures   evaluate after training; progress bar; exit status on failed
#                                          episodes
#   data.generate_if_missing, model.build  what to do when the data / the model path is missing
#   chains_parallel                        how many persona chains run at once (batched decisions)
#   endpoint                               `pulse eval`'s shared endpoint: only a source of interpolations;
#                                          its values are hashed where they land (agent, llm, benchmark.*)
NON_RESULT_KEYS: tuple[str, ...] = (
    "out_dir",
    "run_name",
    "label",
    "logger",
    "resume",
    "retry_failed",
    "eval_after",
    "progress",
    "allow_failures",
    "data.generate_if_missing",
    "model.build",
    "chains_parallel",
    "endpoint",
)
# Leaf names left out at any depth (credentials, and where they are read from, never enter a hash or a diff).
NON_RESULT_LEAVES: tuple[str, ...] = ("api_key", "api_key_env")


def git_commit(repo: Path | None = None) -> str:
    try:
        cwd = repo or Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def cpu_model() -> str:
    """The CPU's model name ("AMD EPYC", "Intel(R) Xeon(R) Processor"): timings and CPU-trained figures
    depend on it (docs/speed_and_reliability.md)."""
    info = Path("/proc/cpuinfo")
    if info.exists():
        for line in info.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return versions


def _plain(config: Any) -> Any:
    if is_dataclass(config) and not isinstance(config, type):
        from pulse.config.schema import as_dict

        return as_dict(config)
    return config


# Training stages with an `enabled` switch: when off, only the switch is part of the result config
# (an SFT-only run is the same run whatever its GRPO knobs say, so `pulse demo` reuses it).
STAGE_KEYS: tuple[str, ...] = ("sft", "grpo")


def result_config(config: Any) -> dict[str, Any]:
    """The config as a plain dict without the keys that cannot change results (see NON_RESULT_KEYS)."""

    def strip(node: Any, prefix: str) -> Any:
        if isinstance(node, (list, tuple)):
            return [strip(v, prefix) for v in node]
        if not isinstance(node, Mapping):
            return node
        out = {}
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if key in NON_RESULT_KEYS or k in NON_RESULT_LEAVES:
                continue
            out[k] = strip(v, key)
        return out

    out = strip(_plain(config), "")
    for stage in STAGE_KEYS:  # a disabled stage's knobs cannot change results
        if (
            isinstance(out, dict)
            and isinstance(out.get(stage), Mapping)
            and out[stage].get("enabled") is False
        ):
            out[stage] = {"enabled": False}
    return out


def canonical_json(obj: Any) -> str:
    """Sorted keys, json's default separators and ASCII escapes (eval/provenance.py hashes the same
    text, so an eval run's manifest and rows carry one config hash)."""
    return json.dumps(obj, sort_keys=True, default=str)


def config_hash(config: Any) -> str:
    """sha256 (hex) of the canonical JSON of `result_config(config)`."""
    return hashlib.sha256(canonical_json(result_config(config)).encode("utf-8")).hexdigest()


def flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}; lists and scalars are leaves."""
    if isinstance(node, Mapping) and node:
        out: dict[str, Any] = {}
        for k, v in node.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: node}


ABSENT = "(absent)"


def config_diff(old: Any, new: Any) -> list[tuple[str, Any, Any]]:
    """Result-relevant differences as (dotted key, old value, new value), sorted by key."""
    a, b = flatten(result_config(old)), flatten(result_config(new))
    return [
        (k, a.get(k, ABSENT), b.get(k, ABSENT))
        for k in sorted(set(a) | set(b))
        if canonical_json(a.get(k, ABSENT)) != canonical_json(b.get(k, ABSENT))
    ]


def format_diff(diff: list[tuple[str, Any, Any]]) -> str:
    return "; ".join(f"{k}: {_show(o)} -> {_show(n)}" for k, o, n in diff)


def _show(v: Any) -> str:
    return v if v is ABSENT else json.dumps(v, default=str)


def write_manifest(out_dir: str | Path, config: Any = None, **extra: Any) -> dict[str, Any]:
    """Write out_dir/manifest.json. With `config` (a typed config or a plain dict), the manifest holds
    it in full under `config` plus `config_hash` and the keys the hash leaves out."""
    manifest = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "argv": sys.argv,
        **extra,
    }
    if config is not None:
        manifest["config"] = _plain(config)
        manifest["config_hash"] = config_hash(config)
        manifest["config_hash_excludes"] = [*NON_RESULT_KEYS, *(f"*.{leaf}" for leaf in NON_RESULT_LEAVES)]
    atomic_write_json(Path(out_dir) / "manifest.json", manifest)
    return manifest
