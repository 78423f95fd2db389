"""Load π-Bench's personas and tasks from <data_dir>/pibench, validated (errors name file and key).

Per persona folder: `episode.yaml` (execution order, depends_on), `tools.yaml` (AppWorld API names),
`profile.yaml` (the user simulator's role text; never shown to the task agent) and
`tasks/<task_id>/task.yaml` with its input files. A task is *scored* when it has checklist criteria
or a rule script (`tools_evaluation_path`); prerequisites carry neither and enter COMP only through
their dependent's group size (eval.metrics.persona_comp).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from eval.benchmark import BenchmarkDataError, RealTask

PERSONAS = ("researcher", "marketer", "pharmacist", "law_trainee", "Financier")
OBJECTIVE_KEYS = {"checklist", "files_read", "tools", "tools_evaluation_path"}


@dataclass(frozen=True)
class PiTaskData:
    """A π-Bench task's own record (`RealTask.data`): its folder, hidden intents, weighted checklist, files to
    read, rule-script path, input files and the persona's profile text."""

    folder: Path
    hidden_intents: tuple[str, ...]
    checklist: tuple[tuple[str, float], ...]  # (criterion, weight)
    files_read: tuple[str, ...]
    rule_script: str  # upstream path of the rule script (not distributed: its keys cannot be scored here)
    assets: tuple[Path, ...]  # files copied into the workspace at task start
    role: str  # the persona's profile text (user simulator only)


def _yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BenchmarkDataError(f"{path}: missing") from None
    except yaml.YAMLError as e:
        raise BenchmarkDataError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None


def _need(d: Any, key: str, path: Path, kind: type | tuple = str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise BenchmarkDataError(f"{path}: key {key!r} missing")
    if not isinstance(d[key], kind):
        raise BenchmarkDataError(
            f"{path}: key {key!r} must be {getattr(kind, '__name__', kind)}, got {type(d[key]).__name__}"
        )
    return d[key]


def load_task(folder: Path, persona: str, depends_on: tuple[str, ...], role: str) -> RealTask:
    path = folder / "task.yaml"
    d = _yaml(path)
    if _need(d, "schema_version", path) != "v2":
        raise BenchmarkDataError(f"{path}: schema_version {d['schema_version']!r} is not 'v2'")
    task_id = _need(d, "task_id", path)
    if task_id != folder.name:
        raise BenchmarkDataError(f"{path}: task_id {task_id!r} does not match its folder {folder.name!r}")
    if _need(d, "user_id", path) != persona:
        raise BenchmarkDataError(f"{path}: user_id {d['user_id']!r} is not the persona {persona!r}")
    intent = _need(d, "intent", path, dict)
    request = _need(intent, "initial_input", path)
    hidden = _need(intent, "hidden_intent", path, list)
    if not hidden:
        raise BenchmarkDataError(f"{path}: intent.hidden_intent is empty")
    intents = []
    for i, h in enumerate(hidden):
        if not isinstance(h, dict) or not isinstance(h.get("content"), str):
            raise BenchmarkDataError(f"{path}: intent.hidden_intent[{i}].content missing or not text")
        intents.append(h["content"])
    obj = d.get("objectives") or {}
    if not isinstance(obj, dict):
        raise BenchmarkDataError(f"{path}: objectives must be a mapping")
    bad = sorted(set(obj) - OBJECTIVE_KEYS)
    if bad:
        raise BenchmarkDataError(f"{path}: objectives key(s) {bad} not in {sorted(OBJECTIVE_KEYS)}")
    checklist = []
    for i, c in enumerate(obj.get("checklist") or []):
        if not isinstance(c, dict) or not isinstance(c.get("criterion"), str):
            raise BenchmarkDataError(f"{path}: objectives.checklist[{i}].criterion missing or not text")
        w = float(c.get("weight", 1.0))
        if w <= 0:
            raise BenchmarkDataError(f"{path}: objectives.checklist[{i}].weight must be > 0")
        checklist.append((c["criterion"], w))
    files_read = tuple(str(f) for f in (obj.get("files_read") or []))
    script = str(obj.get("tools_evaluation_path") or "")
    assets = tuple(
        sorted(
            p
            for p in folder.rglob("*")
            if p.is_file() and p.name != "task.yaml" and not p.name.startswith(".")
        )
    )
    data = PiTaskData(folder, tuple(intents), tuple(checklist), files_read, script, assets, role)
    trigger = (d.get("trigger") or {}).get("type", "user")
    return RealTask(
        task_id=task_id,
        user_id=persona,
        project_id=f"{persona}_workspace",
        request_text=request,
        time="",
        category=str(d.get("task_type", "")),
        depends_on=depends_on,
        scored=bool(checklist or script),
        data=data,
        system_prompt="",
        level=0 if trigger == "user" else 1,
    )


def load_persona(folder: Path) -> list[RealTask]:
    persona = folder.name
    ep_path = folder / "episode.yaml"
    ep = _yaml(ep_path)
    if _need(ep, "user_id", ep_path) != persona:
        raise BenchmarkDataError(f"{ep_path}: user_id {ep['user_id']!r} is not the folder name {persona!r}")
    profile = _yaml(folder / "profile.yaml") if (folder / "profile.yaml").exists() else {}
    role = str((profile or {}).get("role", ""))
    seen: list[str] = []
    tasks = []
    for i, entry in enumerate(_need(ep, "tasks", ep_path, list)):
        tid = _need(entry, "task_id", ep_path)
        deps = tuple(entry.get("depends_on") or ())
        for dep in deps:
            if dep not in seen:
                raise BenchmarkDataError(
                    f"{ep_path}: tasks[{i}] ({tid}): depends_on {dep!r} is not an earlier task"
                )
        if tid in seen:
            raise BenchmarkDataError(f"{ep_path}: tasks[{i}]: task {tid!r} listed twice")
        tdir = folder / "tasks" / tid
        if not tdir.is_dir():
            raise BenchmarkDataError(f"{ep_path}: tasks[{i}]: no folder {tdir}")
        tasks.append(load_task(tdir, persona, deps, role))
        seen.append(tid)
    by_id = {t.task_id: t for t in tasks}
    for t in tasks:  # π-Bench's contract: a dependent is scored, its prerequisites are not
        for dep in t.depends_on:
            if by_id[dep].scored:
                raise BenchmarkDataError(
                    f"{ep_path}: {dep} is a prerequisite of {t.task_id} but has criteria"
                )
    return tasks


def appworld_tools(folder: Path) -> tuple[str, ...]:
    path = folder / "tools.yaml"
    if not path.exists():
        return ()
    names = _need(_yaml(path), "tool_names", path, list)
    return tuple(str(n) for n in names)


def load_all(root: Path, personas: tuple[str, ...] = ()) -> dict[str, list[RealTask]]:
    """{persona: tasks in episode order} for every persona folder under `root` (or those named)."""
    folders = sorted(p for p in root.iterdir() if (p / "episode.yaml").exists())
    if not folders:
        raise BenchmarkDataError(f"{root}: no persona folder with an episode.yaml")
    return {f.name: load_persona(f) for f in folders if not personas or f.name in personas}
