"""What a generated dataset was made from: the generator request and the code that turns it into rows.

`dataset_fingerprint(request, source)` hashes the request (seed, sizes, source, mix) together with the
source text of every module that decides the rows: the generator (data_gen/), the records, the gold
rule and the statement parser (pulse/core/), and for the run-time source the whole run-time path
(the agent, memory, the suites' generator, the simulated agent, Pulse's eval method). The card
records it (`dataset_card.json: fingerprint`); `pulse.train.data.ensure_dataset` regenerates a
dataset whose fingerprint differs instead of silently reusing rows made by other code (the cause of
committed demo figures that a fresh clone did not reproduce, issue 17).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

ROOT = Path(__file__).resolve().parent.parent
SYNTHETIC_CODE = ("data_gen", "pulse/core")
RUNTIME_CODE = SYNTHETIC_CODE + ("pulse/agent", "pulse/memory", "pulse/policy/suite_log.py", "eval/suites",
                                 "eval/agents", "eval/methods/pulse_method.py", "eval/methods/seed.py",
                                 "eval/memory_backends.py", "eval/envs.py", "eval/episode.py")


def code_files(source: str) -> list[Path]:
    out: list[Path] = []
    for rel in (RUNTIME_CODE if source == "runtime" else SYNTHETIC_CODE):
        p = ROOT / rel
        out.extend(sorted(p.rglob("*.py")) if p.is_dir() else ([p] if p.exists() else []))
    return out


def dataset_fingerprint(request: Mapping[str, Any], source: str) -> str:
    h = hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode())
    for f in code_files(source):
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()
