"""`benchmark.transport=mcp` for the real benchmarks: the environment's tools served by a real MCP
server (the official `mcp` SDK, in-memory transport on a private event loop) and called through an
MCP client, as π-Bench serves AppWorld. State and scores are the wrapped environment's, so direct
and mcp runs score the same (tests check it). Attributes the scorers read (the database, the
workspace, the opened sites) are the wrapped environment's.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any

from pulse.agent.gate import ToolCallError


def _function(env, schema: dict[str, Any]):
    """A Python function with the schema's typed signature (string -> str, array -> list[str])."""
    name = schema["name"]
    props = schema.get("parameters", {}).get("properties", {})

    def fn(**kwargs):
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            return env(name, kwargs)
        except Exception as e:  # a tool's refusal reaches the client with its message (as direct does)
            raise ToolError(str(e)) from e

    ann = {p: (list[str] if spec.get("type") == "array" else str) for p, spec in props.items()}
    fn.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a) for p, a in ann.items()]
    )
    fn.__annotations__ = dict(ann)
    fn.__name__ = name
    return fn


class MCPToolEnv:
    transport = "mcp"

    def __init__(self, inner, server_name: str):
        import logging

        from anyio.from_thread import start_blocking_portal
        from mcp.client.client import Client
        from mcp.server.mcpserver import MCPServer

        logging.getLogger("mcp").setLevel(logging.WARNING)
        self.inner = inner
        self._schemas = inner.tool_schemas()
        srv = MCPServer(server_name)
        for s in self._schemas:
            f = s["function"]
            srv.add_tool(_function(inner, f), name=f["name"], description=f.get("description", ""))
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._client_cm = self._portal.wrap_async_context_manager(Client(srv))
        self._client = self._client_cm.__enter__()

    def __getattr__(self, name: str):  # db, texts, opened, text(): the wrapped environment's
        return getattr(self.inner, name)

    def begin(self, task) -> None:
        self.inner.begin(task)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self._schemas

    def list_tools(self) -> list[str]:
        return [t.name for t in self._portal.call(self._client.list_tools).tools]

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any:
        r = self._portal.call(self._client.call_tool, tool, dict(args))
        text = "".join(getattr(c, "text", "") for c in r.content)
        if r.is_error:
            raise ToolCallError(text)
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    def close(self) -> None:
        try:
            self._client_cm.__exit__(None, None, None)
        finally:
            self._portal_cm.__exit__(None, None, None)
            self.inner.close()


def wrap(inner, transport: str, server_name: str):
    """The environment itself (direct) or served over MCP (mcp)."""
    return MCPToolEnv(inner, server_name) if transport == "mcp" else inner
