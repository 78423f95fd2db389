"""Fingerprints of what a training run was made from: the examples it read, the code that trains and
evaluates, and the weights it started from.

`pulse train` records them in `<out_dir>/fingerprints.json` and refuses to resume stage outputs
(checkpoints, final/ weights, cached held-out evaluations) whose recorded fingerprints differ from the
run's own (pulse/train/pipeline.py): a demo that resumed checkpoints trained by older code once
republished figures that a fresh clone could not reproduce (issue 35).

- `examples_fingerprint(examples)`: sha256 of the rows themselves (not of the dataset's path or files),
  so regenerated data with identical rows matches and any changed row does not.
- `code_fingerprint()`: sha256 of the source of `TRAIN_CODE`, the modules that decide the trained
  weights and the held-out evaluation (the trainers, the model builders, the policy backends and
  their prompt format, the records, gold rule and correctness, the config schema). Any byte counts,
  comments included: a hash cannot tell a comment from a change.
- `model_fingerprint(path)`: sha256 of a local model directory's weight, config and tokenizer files
  (training state, `checkpoint-*` folders and provenance.json, which names a git commit, left out;
  adapter_config.json read with its `target_modules` sorted: peft writes that set in a different
  order in each process, so two runs with bit-identical weights would otherwise differ);
  "" for a path that is not local (a hub id).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# relative to the repository root; a directory means every .py file under it
TRAIN_CODE: tuple[str, ...] = (
    "pulse/train",
    "pulse/models",
    "pulse/policy",
    "pulse/core",
    "pulse/config",
    "pulse/agent/precheck.py",  # which prompts GRPO sees under grpo.prompts=decision_points
)
# files of a model directory that never change what the model computes
_MODEL_SKIP = {
    "provenance.json",  # names the git commit: identical weights from two commits must match
    "optimizer.pt",
    "optimizer.bin",
    "scheduler.pt",
    "scaler.pt",
    "trainer_state.json",
    "training_args.bin",
}
_CHUNK = 1 << 20


def _sha256_files(files: Iterable[tuple[str, Path]]) -> str:
    h = hashlib.sha256()
    for rel, path in files:
        h.update(rel.encode() + b"\0")
        if path.name == "adapter_config.json":
            h.update(_adapter_config_bytes(path))
        else:
            with open(path, "rb") as fh:
                while chunk := fh.read(_CHUNK):
                    h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def _adapter_config_bytes(path: Path) -> bytes:
    """peft's adapter config with `target_modules` (a set when saved) in sorted order."""
    try:
        cfg = json.loads(path.read_text())
    except (OSError, ValueError):
        return path.read_bytes()
    if isinstance(cfg, dict) and isinstance(cfg.get("target_modules"), list):
        cfg["target_modules"] = sorted(map(str, cfg["target_modules"]))
    return json.dumps(cfg, sort_keys=True).encode()


def code_files(paths: Iterable[str] = TRAIN_CODE, root: Path = ROOT) -> list[Path]:
    out: list[Path] = []
    for rel in paths:
        p = root / rel
        out.extend(sorted(p.rglob("*.py")) if p.is_dir() else ([p] if p.exists() else []))
    return out


def code_fingerprint(paths: Iterable[str] = TRAIN_CODE, root: Path = ROOT) -> str:
    return _sha256_files((f.relative_to(root).as_posix(), f) for f in code_files(paths, root))


def examples_fingerprint(examples: Iterable[Any]) -> str:
    """sha256 of the examples' rows (`PolicyExample.to_row()`), in order."""
    h = hashlib.sha256()
    for e in examples:
        h.update(json.dumps(e.to_row(), sort_keys=True, default=str).encode())
        h.update(b"\n")
    return h.hexdigest()


def model_fingerprint(path: str | Path) -> str:
    """Content hash of a local model directory; "" when `path` is empty or not a local directory."""
    if not path:
        return ""
    root = Path(path)
    if not root.is_dir():
        return ""
    files = []
    for p in sorted(root.rglob("*"), key=lambda q: q.relative_to(root).as_posix()):
        rel = p.relative_to(root)
        if not p.is_file() or p.name in _MODEL_SKIP or p.name.startswith(("rng_state", ".")):
            continue
        if any(part.startswith(("checkpoint-", ".")) for part in rel.parts[:-1]):
            continue
        files.append((rel.as_posix(), p))
    return _sha256_files(files)
