"""τ²-bench retail's data files (MIT; see NOTICE): tasks.json read and checked, and what a task says
about its customer and request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.benchmark import BenchmarkDataError
from eval.real.tau2_retail.tools import SCHEMAS, RetailTools
from pulse.utils.json_input import read_json_file


def customer_of(task: dict[str, Any], db: dict[str, Any]) -> str:
    """The retail user id the gold actions act for ("" when none names one)."""
    tools = RetailTools(db)
    for a in task["evaluation_criteria"].get("actions") or []:
        args = a.get("arguments") or {}
        if "user_id" in args:
            return str(args["user_id"])
        if "order_id" in args and args["order_id"] in db["orders"]:
            return db["orders"][args["order_id"]]["user_id"]
        if a["name"] in ("find_user_id_by_name_zip", "find_user_id_by_email"):
            try:
                return tools.call(a["name"], args)
            except ValueError:
                continue
    return ""


def request_of(instr: dict[str, Any]) -> str:
    return " ".join(str(instr.get(k) or "") for k in ("known_info", "reason_for_call")).strip()


def read_json(path: Path) -> Any:
    return read_json_file(path, BenchmarkDataError, "benchmark data")


def load_tasks(root: Path) -> list[dict[str, Any]]:
    """τ²'s tasks.json in `root` as a list of task dicts; BenchmarkDataError when a task is malformed."""
    path = root / "tasks.json"
    raw = read_json(path)
    if not isinstance(raw, list):
        raise BenchmarkDataError(f"{path}: expected a list of tasks")
    for i, t in enumerate(raw):
        for key in ("id", "user_scenario", "evaluation_criteria"):
            if key not in t:
                raise BenchmarkDataError(f"{path}: task #{i} ({t.get('id', '?')}): key {key!r} missing")
        if t.get("initial_state"):
            raise BenchmarkDataError(f"{path}: task {t['id']}: initial_state is not supported in process")
        for j, a in enumerate(t["evaluation_criteria"].get("actions") or []):
            if a.get("name") not in SCHEMAS:
                raise BenchmarkDataError(
                    f"{path}: task {t['id']}: actions[{j}].name {a.get('name')!r} is not a retail tool"
                )
    return raw
