"""Which policy checkpoint an evaluation run used, by content, and which config produced it.

`checkpoint_hash(path)`: sha256 over the sorted relative paths and the bytes of a checkpoint
directory's weight, config and tokenizer files (training state such as optimizer.pt or
trainer_state.json and nested `checkpoint-*` folders are left out). A LoRA adapter's hash also
covers its base model when `adapter_config.json` names a local base directory (the base weights
are part of the policy that ran). A path that is not a local file or directory (a hub id, an
endpoint model name, "") hashes to "". Hashes are cached per process (a checkpoint does not change
under a running evaluation).

`config_hash(cfg)`: sha256 of the parts of the resolved eval config that change results.
The harness records both in the manifest and in every episode row, and refuses to resume a run
directory whose rows came from a different checkpoint or config (eval/harness.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# weights, model/adapter configs and tokenizer files
_SUFFIXES = (
    ".safetensors",
    ".bin",
    ".pt",
    ".pth",
    ".ckpt",
    ".gguf",
    ".json",
    ".model",
    ".txt",
    ".tiktoken",
    ".py",
    ".jinja",
)
# training state, never read when the policy is loaded
_SKIP_NAMES = {
    "optimizer.pt",
    "optimizer.bin",
    "scheduler.pt",
    "scaler.pt",
    "trainer_state.json",
    "training_args.bin",
    "rng_state.pth",
}
_CACHE: dict[str, str] = {}
_CHUNK = 1 << 20


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    out = []
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if any(part.startswith(".") or part.startswith("checkpoint-") for part in rel.parts[:-1]):
            continue
        if not p.is_file() or p.name.startswith("."):
            continue
        if p.name in _SKIP_NAMES or p.name.startswith("rng_state"):
            continue
        if p.suffix in _SUFFIXES:
            out.append(p)
    return sorted(out, key=lambda q: q.relative_to(root).as_posix() if q != root else q.name)


# JSON lists that hold a set (peft writes `target_modules` in whatever order its set iterates)
_SET_KEYS = ("target_modules", "modules_to_save")


def _canonical_json(raw: bytes) -> bytes:
    """A JSON config as content, not bytes: keys sorted, set-valued lists sorted (the same adapter
    saved twice must hash the same). Unparsable JSON is hashed as it is."""
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw
    if isinstance(obj, dict):
        for k in _SET_KEYS:
            if isinstance(obj.get(k), list) and all(isinstance(x, str) for x in obj[k]):
                obj[k] = sorted(obj[k])
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def _hash_files(root: Path, files: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for f in files:
        rel = f.name if f == root else f.relative_to(root).as_posix()
        h.update(rel.encode() + b"\0")
        if f.suffix == ".json":
            h.update(_canonical_json(f.read_bytes()))
        else:
            with open(f, "rb") as fh:
                while chunk := fh.read(_CHUNK):
                    h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def checkpoint_hash(path: str | Path) -> str:
    """Content hash of a checkpoint directory (or file); "" for a path that does not exist locally."""
    if not path:
        return ""
    p = Path(path).expanduser()
    if not p.exists():
        return ""
    key = str(p.resolve())
    if key in _CACHE:
        return _CACHE[key]
    digest = _hash_files(p, _files(p))
    adapter = p / "adapter_config.json" if p.is_dir() else None
    if adapter is not None and adapter.is_file():
        try:
            base = json.loads(adapter.read_text()).get("base_model_name_or_path") or ""
        except (json.JSONDecodeError, OSError, AttributeError):
            base = ""
        base_hash = checkpoint_hash(base) if base and Path(base).resolve() != p.resolve() else ""
        if base_hash:
            digest = hashlib.sha256(f"{digest}+base:{base_hash}".encode()).hexdigest()
    _CACHE[key] = digest
    return digest


def clear_cache() -> None:
    _CACHE.clear()


# policies that are not learned (the gold rule, the situation-blind ones): no checkpoint, nothing trained
NON_LEARNED_POLICIES = frozenset({"rule", "supplement_all", "intervene_all"})


def policy_provenance(sources: Iterable[str], cfg: Any) -> dict[str, Any]:
    """What policy ran, from the policy sources a method asked for ("trained" -> policy.name_or_path,
    "base" -> base_policy.name_or_path, "rule"): {"policy_checkpoints": [path or "rule", ...],
    "checkpoint_hash": content hash ("" when no checkpoint on disk: no policy, the rule policy, a hub
    id or an endpoint model; the hashes of several checkpoints combined)}."""
    paths, hashes = [], []
    for src in sorted(set(sources)):
        if src in NON_LEARNED_POLICIES:
            paths.append(src)
            continue
        pcfg = cfg.policy if src == "trained" else cfg.base_policy
        paths.append(pcfg.name_or_path)
        hashes.append(checkpoint_hash(pcfg.name_or_path))
    hashes = [h for h in hashes if h]
    combined = (
        hashes[0]
        if len(hashes) == 1
        else (hashlib.sha256("+".join(hashes).encode()).hexdigest() if hashes else "")
    )
    return {"policy_checkpoints": paths, "checkpoint_hash": combined}


def config_hash(cfg: Any) -> str:
    """The one config hash (`pulse.utils.manifest.config_hash`): sha256 of the resolved config minus
    the keys that cannot change results (out_dir, resume, retry_failed, progress, allow_failures, ...)
    and secrets (api_key); an eval manifest, its summary and its rows carry the same value."""
    from pulse.utils.manifest import config_hash as _hash

    return _hash(cfg)
