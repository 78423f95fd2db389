"""The retail database as plain dicts, normalised to τ²'s pydantic dump, and its hash.

τ² compares databases by `sha256(json.dumps(model_dump(db), sort_keys=True, default=str))`. The
model dump carries every optional order field (None when unset) and float prices/balances, so the
raw db.json is normalised to that shape on load; then the hash here is the hash τ² computes.
(Re-implemented from τ²-bench, MIT: see NOTICE.)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from eval.benchmark import BenchmarkDataError
from pulse.utils.json_input import read_json_file

ORDER_OPTIONAL = (
    "cancel_reason",
    "exchange_items",
    "exchange_new_items",
    "exchange_payment_method_id",
    "exchange_price_difference",
    "return_items",
    "return_payment_method_id",
)
ORDER_STATUSES = (
    "processed",
    "pending",
    "pending (item modified)",
    "delivered",
    "cancelled",
    "exchange requested",
    "return requested",
)


def _normalise(db: dict[str, Any], path: Path) -> dict[str, Any]:
    for key in ("products", "users", "orders"):
        if not isinstance(db.get(key), dict):
            raise BenchmarkDataError(f"{path}: key {key!r} missing or not an object")
    for pid, p in db["products"].items():
        for vid, v in p.get("variants", {}).items():
            if "price" not in v:
                raise BenchmarkDataError(f"{path}: products.{pid}.variants.{vid}: key 'price' missing")
            v["price"] = float(v["price"])
    for u in db["users"].values():
        for pm in u.get("payment_methods", {}).values():
            if pm.get("source") == "gift_card":
                pm["balance"] = float(pm["balance"])
    for oid, o in db["orders"].items():
        if o.get("status") not in ORDER_STATUSES:
            raise BenchmarkDataError(
                f"{path}: orders.{oid}.status {o.get('status')!r} not in {ORDER_STATUSES}"
            )
        for it in o["items"]:
            it["price"] = float(it["price"])
        for pay in o["payment_history"]:
            pay["amount"] = float(pay["amount"])
        for k in ORDER_OPTIONAL:
            o.setdefault(k, None)
    return db


_CACHE: dict[str, dict[str, Any]] = {}


def load_db(path: str | Path) -> dict[str, Any]:
    """The normalised database at `path`, parsed once per process and shared: it is the read-only
    base of every task's `RetailTools` (each task's changes live in its own copy-on-write layer)."""
    key = str(Path(path).resolve())
    if key not in _CACHE:
        raw = read_json_file(path, BenchmarkDataError, "the retail database")
        _CACHE[key] = _normalise(raw, Path(path))
    return _CACHE[key]


def canonical(obj: Any) -> str:
    """τ²'s canonical JSON (sorted keys, non-JSON values as str): what its database hash hashes."""
    return json.dumps(obj, sort_keys=True, default=str)


def db_hash(db: dict[str, Any]) -> str:
    """τ²'s database hash: sha256 of the canonical JSON (sorted keys, non-JSON values as str)."""
    return hashlib.sha256(canonical(db).encode()).hexdigest()
