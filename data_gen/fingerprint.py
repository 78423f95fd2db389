"""What a generated dataset was made from: the generator request and the code that turns it into rows.

`dataset_fingerprint(request, source)` hashes the request (seed, sizes, source, mix) together with the
source text of the modules that define the rows: the generator (data_gen/), the records, the gold
rule and the statement parser, and for the run-time source the decision-point log, the suites'
generator, the simulated agent and the seed renderer (`RUNTIME_CODE`). The card
records it (`dataset_card.json: fingerprint`); `data_gen.ensure.ensure_dataset` regenerates a
dataset whose fingerprint differs instead of silently reusing rows made by other code (the cause of
committed demo figures that a fresh clone did not reproduce, issue 17).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# the modules that define rows and labels (not every module a row passes through: in a shared working
# tree the run-time path changes often without changing the data, and each change would regenerate)
SYNTHETIC_CODE = (
    "data_gen",
    "pulse/core/gold.py",
    "pulse/core/statements.py",
    "pulse/core/records.py",
    "pulse/core/examples.py",
    # source=persona2web: the real task groups' loader and the synthetic world anchored on them
    "eval/real/persona2web/loader.py",
    "eval/real/persona2web/synthetic_world.py",
)
RUNTIME_CODE = SYNTHETIC_CODE + (
    "eval/policy_decisions.py",
    "eval/suites/generator.py",
    "eval/agents/simulated.py",
    "eval/agents/behaviour.py",
    "eval/methods/seed.py",
)


def code_files(source: str) -> list[Path]:
    out: list[Path] = []
    for rel in RUNTIME_CODE if source == "runtime" else SYNTHETIC_CODE:
        p = ROOT / rel
        out.extend(sorted(p.rglob("*.py")) if p.is_dir() else ([p] if p.exists() else []))
    return out


def dataset_fingerprint(request: Mapping[str, Any], source: str) -> str:
    h = hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode())
    for f in code_files(source):
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()
