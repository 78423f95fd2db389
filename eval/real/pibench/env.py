"""A persona's workspace: a folder kept across the persona's tasks, file tools confined to it.

At each task start the task's input files are copied into the workspace root (overwriting same
names, as π-Bench does); files the agent writes stay for later tasks. `list_dir`, `read_file`,
`write_file` and `edit_file` resolve every path inside the workspace and refuse anything outside it
(`..`, absolute paths, symlinks leading out). Tools that need the network (`web_search`,
`web_fetch`), a shell (`exec`) or AppWorld (`mcp_appworld_<app>__<api>`) return a labelled
"unavailable offline" result: the agent sees that they did not run.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.benchmark import string_tool
from pulse.agent.gate import ToolCallError

UNAVAILABLE = "unavailable offline"
FILE_TOOLS = {
    "list_dir": (
        "List the files under a workspace folder.",
        {"path": "folder, relative to the workspace ('.' = root)"},
    ),
    "read_file": ("Read a text file of the workspace.", {"path": "file path, relative to the workspace"}),
    "write_file": (
        "Write (create or replace) a text file in the workspace.",
        {"path": "file path, relative to the workspace", "content": "the full text"},
    ),
    "edit_file": (
        "Replace one exact occurrence of old_text by new_text in a workspace file.",
        {
            "path": "file path, relative to the workspace",
            "old_text": "text to find",
            "new_text": "replacement",
        },
    ),
}
OFFLINE_TOOLS = {
    "web_search": ("Search the web (unavailable offline).", {"query": "search query"}),
    "web_fetch": ("Fetch a web page (unavailable offline).", {"url": "page URL"}),
    "exec": ("Run a shell command in the workspace (unavailable offline).", {"command": "shell command"}),
}
MAX_READ_CHARS = 20000


class Workspace:
    """A π-Bench persona's `ToolEnv` (the module docstring): a folder kept across the persona's tasks, file
    tools confined to it (`ToolCallError` for a path outside), network, shell and AppWorld tools answered as
    unavailable. A temporary folder is removed on `close()`."""

    transport = "direct"

    def __init__(self, persona: str, appworld: Sequence[str] = (), root: str | Path | None = None):
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix=f"pulse-pibench-{persona}-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self._owned = root is None
        self.appworld = tuple(f"mcp_appworld_{n}" for n in appworld)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    # -- task start: stage the task's input files ------------------------------------------------
    def begin(self, task) -> None:
        data = task.data
        for src in data.assets:
            dst = self.root / src.relative_to(data.folder)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)

    def tool_schemas(self) -> list[dict[str, Any]]:
        out = [string_tool(n, d, p) for n, (d, p) in {**FILE_TOOLS, **OFFLINE_TOOLS}.items()]
        out += [string_tool(n, "AppWorld API (unavailable offline).", {}) for n in self.appworld]
        return out

    # -- confinement ------------------------------------------------------------------------------
    def resolve(self, path: str) -> Path:
        if not isinstance(path, str) or not path.strip():
            raise ToolCallError("path must be a non-empty string")
        p = (self.root / path).resolve()
        root = self.root.resolve()
        if p != root and root not in p.parents:
            raise ToolCallError(f"path {path!r} is outside the workspace")
        return p

    def text(self, rel: str) -> str | None:
        """A workspace file's text (None when missing or outside): for the judge's files_read blocks."""
        try:
            p = self.resolve(rel)
        except ToolCallError:
            return None
        return p.read_text(encoding="utf-8", errors="replace") if p.is_file() else None

    # -- tools --------------------------------------------------------------------------------------
    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any:
        self.calls.append((tool, dict(args)))
        if tool in OFFLINE_TOOLS or tool in self.appworld:
            return {
                "status": UNAVAILABLE,
                "tool": tool,
                "note": "this tool needs the network, a shell or AppWorld; it did not run",
            }
        if tool not in FILE_TOOLS:
            raise ToolCallError(f"unknown tool {tool!r}")
        need = FILE_TOOLS[tool][1]
        missing = [p for p in need if not isinstance(args.get(p), str)]
        if missing:
            raise ToolCallError(f"{tool}: missing or non-text argument(s) {missing}")
        p = self.resolve(args["path"])
        if tool == "list_dir":
            if not p.is_dir():
                raise ToolCallError(f"{args['path']!r} is not a folder")
            root = self.root.resolve()
            inside = (q for q in p.rglob("*") if root in q.resolve().parents)  # no link leading out
            return sorted(str(q.relative_to(root)) + ("/" if q.is_dir() else "") for q in inside)
        if tool == "read_file":
            if not p.is_file():
                raise ToolCallError(f"{args['path']!r}: no such file")
            return p.read_text(encoding="utf-8", errors="replace")[:MAX_READ_CHARS]
        if tool == "write_file":
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(args["content"], encoding="utf-8")
            return {"status": "ok", "path": args["path"], "chars": len(args["content"])}
        text = p.read_text(encoding="utf-8") if p.is_file() else None
        if text is None or args["old_text"] not in text:
            raise ToolCallError(f"edit_file: old_text not found in {args['path']!r}")
        p.write_text(text.replace(args["old_text"], args["new_text"], 1), encoding="utf-8")
        return {"status": "ok", "path": args["path"]}

    def close(self) -> None:
        if self._owned:
            shutil.rmtree(self.root, ignore_errors=True)
