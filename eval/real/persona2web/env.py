"""Persona2Web's offline web stub: `web_search(query)`, `open_website(site)` (the site the agent
chooses), `submit_answer(answer)`; no live web offline, every result says so. The scorer reads what the
agent opened and wrote (`opened`, `texts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.benchmark import RealTask, string_tool
from pulse.agent.gate import ToolCallError

STUB = "offline stub: no live web in this environment"


SCHEMAS = [
    string_tool(
        "web_search", "Search the web (an offline stub: returns no live results).", {"query": "search query"}
    ),
    string_tool(
        "open_website",
        "Open a website to do the task there (the site you choose).",
        {"site": "the website (domain or URL)"},
    ),
    string_tool(
        "submit_answer", "Submit the final result: the options you chose and why.", {"answer": "final answer"}
    ),
]


class WebStub:
    """Persona2Web's `ToolEnv` (the module docstring): `web_search`, `open_website` and `submit_answer`,
    recording the sites opened (`opened`) and every text argument (`texts`) for the scorer."""

    transport = "direct"

    def __init__(self):
        self.opened: list[str] = []
        self.texts: list[str] = []

    def begin(self, task: RealTask) -> None:
        self.opened, self.texts = [], []

    def tool_schemas(self) -> list[dict[str, Any]]:
        return SCHEMAS

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any:
        param = {"web_search": "query", "open_website": "site", "submit_answer": "answer"}.get(tool)
        if param is None:
            raise ToolCallError(f"unknown tool {tool!r}; available: web_search, open_website, submit_answer")
        if not isinstance(args.get(param), str):
            raise ToolCallError(f"{tool}: missing or non-text argument {param!r}")
        self.texts.append(args[param])
        if tool == "open_website":
            self.opened.append(args[param])
            return {"status": STUB, "opened": args[param]}
        if tool == "web_search":
            return {"status": STUB, "results": []}
        return {"status": "submitted"}

    def close(self) -> None:
        pass
