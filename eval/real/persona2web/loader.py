"""Persona2Web's raw data, read at run time from <data_dir>/persona2web (no licence: never copied here),
validated (errors name the file, the line and the key). The one place that reads it: the benchmark
(benchmark.py) and the generator's `source=persona2web` (data_gen/build.py, through
synthetic_world.py) both load it here.

  task_groups.jsonl                  one line per task group: `task_group`, `user`, `slot`,
                                     `task_ids` (level -> task id), `L2_values`, `L3_website`,
                                     optionally `L1` and `L3_location`
  tasks/personalization_{1,2,3}/     one JSON per task: `task_id`, `intent`, `start_url`
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.benchmark import BenchmarkDataError, RealTask
from eval.real.data_dir import dataset_dir
from eval.real.persona2web.gold import gold_sites
from pulse.utils.json_input import read_json_file, read_jsonl_file

TASK_KEYS = ("task_id", "intent", "start_url")
GROUP_KEYS = ("task_group", "user", "slot", "task_ids", "L2_values", "L3_website")


@dataclass(frozen=True)
class P2WGold:
    """A Persona2Web task's gold: its task group and level, the accepted sites, the preference values, the
    location and the start URL."""

    group: str
    level: int
    sites: tuple[str, ...]
    values: tuple[str, ...]
    location: str
    start_url: str


def _read_json(path: Path) -> Any:
    return read_json_file(path, error=BenchmarkDataError, what="Persona2Web task file")


def load_groups(root: Path) -> dict[str, dict[str, Any]]:
    path = root / "task_groups.jsonl"
    groups = {}
    for i, g in read_jsonl_file(path, error=BenchmarkDataError, what="Persona2Web task groups"):
        if not isinstance(g, dict):
            raise BenchmarkDataError(f"{path}: line {i} is not a JSON object")
        for key in GROUP_KEYS:
            if key not in g:
                raise BenchmarkDataError(f"{path}: line {i}: key {key!r} missing")
        if not g["L2_values"]:
            raise BenchmarkDataError(f"{path}: line {i} ({g['task_group']}): L2_values is empty")
        groups[g["task_group"]] = g
    return groups


def load_tasks(root: Path) -> list[RealTask]:
    groups = load_groups(root)
    by_id = {tid: (g, int(level[1])) for g in groups.values() for level, tid in g["task_ids"].items()}
    tasks = []
    for level in (1, 2, 3):
        folder = root / "tasks" / f"personalization_{level}"
        if not folder.is_dir():
            raise BenchmarkDataError(f"{folder}: missing")
        for path in sorted(folder.glob("*.json")):
            d = _read_json(path)
            for key in TASK_KEYS:
                if not isinstance(d.get(key), str):
                    raise BenchmarkDataError(f"{path}: key {key!r} missing or not text")
            if d["task_id"] not in by_id:
                raise BenchmarkDataError(
                    f"{path}: task_id {d['task_id']!r} is in no task group of task_groups.jsonl"
                )
            g, glevel = by_id[d["task_id"]]
            if glevel != level:
                raise BenchmarkDataError(
                    f"{path}: task_id {d['task_id']!r} is level {glevel} in task_groups.jsonl"
                )
            gold = P2WGold(
                g["task_group"],
                level,
                gold_sites(g["L3_website"]),
                tuple(g["L2_values"]),
                str(g.get("L3_location") or ""),
                d["start_url"],
            )
            tasks.append(
                RealTask(
                    task_id=d["task_id"],
                    user_id=g["user"],
                    project_id=g["task_group"],
                    request_text=d["intent"].removeprefix("Query:").strip(),
                    time="",
                    category=f"L{level}",
                    level=level,
                    data=gold,
                )
            )
    # one chain per user, levels in order (sorted is stable: level order kept within a user)
    return sorted(tasks, key=lambda t: t.user_id)


def read_groups(data_dir: str = "") -> list[dict[str, Any]]:
    """The 150 real task groups of <data_dir>/persona2web ("" = $PULSE_DATA_DIR), sorted by id."""
    return [g for _, g in sorted(load_groups(dataset_dir("persona2web", data_dir, key="data_dir")).items())]
