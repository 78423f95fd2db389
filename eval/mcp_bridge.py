"""`benchmark.transport=mcp`: a tool environment served by real MCP servers and called through MCP
clients (the official `mcp` SDK, in-memory transport on a private event loop), as π-Bench serves
AppWorld. The one bridge of every benchmark: the offline suites' workspace (eval/suites/workspace.py,
one server per service, arguments typed by the tool's allowed values) and the real benchmarks'
environments (`serve_env`, one server, arguments typed from their JSON schemas). The wrapped
environment keeps the state and the scoring, so direct and mcp runs score the same (tests check it).

Calls behave as direct ones: a result comes back as the environment returned it (JSON decoded; text
that is not JSON as text); an unknown tool, arguments the server's schema rejects, or a refusal the
environment raises come back as `ToolCallError` with the reason in its message.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pulse.agent.gate import ToolCallError

ToolCall = Callable[[str, Mapping[str, Any]], Any]  # (tool, arguments) -> result; raises to refuse


@dataclass(frozen=True)
class BridgedTool:
    """One tool as an MCP server publishes it."""

    name: str
    description: str
    params: Mapping[str, Any]  # argument -> its type annotation (the server validates calls by them)
    server: str  # the MCP server that serves it (tools with one server name share a server)


def tool_function(tool: BridgedTool, call: ToolCall):
    """A Python function with the tool's typed keyword-only signature that an MCP server can expose;
    it calls `call(tool.name, arguments)`, and a refusal reaches the client with its message."""

    def fn(**kwargs):
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            return call(tool.name, kwargs)
        except Exception as e:  # a tool's refusal reaches the client with its message (as direct does)
            raise ToolError(str(e)) from e

    fn.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a) for p, a in tool.params.items()]
    )
    fn.__annotations__ = dict(tool.params)
    fn.__name__ = tool.name
    return fn


def schema_tools(schemas: Sequence[Mapping[str, Any]], server: str) -> list[BridgedTool]:
    """OpenAI function-tool schemas as tools of one server (string -> str, array -> list[str])."""
    out = []
    for s in schemas:
        f = s["function"]
        props = f.get("parameters", {}).get("properties", {})
        params = {p: (list[str] if spec.get("type") == "array" else str) for p, spec in props.items()}
        out.append(BridgedTool(f["name"], f.get("description", ""), params, server))
    return out


class MCPBridge:
    """`tools` served by their MCP servers, each reached through its own MCP client; calls go
    server-side to `call`."""

    def __init__(self, tools: Sequence[BridgedTool], call: ToolCall):
        import logging

        from anyio.from_thread import start_blocking_portal
        from mcp.client.client import Client
        from mcp.server.mcpserver import MCPServer

        logging.getLogger("mcp").setLevel(logging.WARNING)
        servers: dict[str, Any] = {}
        for t in tools:
            srv = servers.setdefault(t.server, MCPServer(t.server))
            srv.add_tool(tool_function(t, call), name=t.name, description=t.description)
        self._server_of = {t.name: t.server for t in tools}
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._clients: dict[str, Any] = {}
        self._client_cms: list[Any] = []
        try:
            for name, srv in servers.items():
                cm = self._portal.wrap_async_context_manager(Client(srv))
                self._clients[name] = cm.__enter__()
                self._client_cms.append(cm)
        except BaseException:
            self.close()
            raise

    def list_tools(self) -> dict[str, dict]:
        """Tool name -> the input schema its server publishes."""
        out = {}
        for client in self._clients.values():
            for t in self._portal.call(client.list_tools).tools:
                out[t.name] = t.input_schema
        return out

    def call(self, tool: str, args: Mapping[str, Any]) -> Any:
        if tool not in self._server_of:
            raise ToolCallError(f"unknown tool {tool!r}; available: {sorted(self._server_of)}")
        client = self._clients[self._server_of[tool]]
        r = self._portal.call(client.call_tool, tool, dict(args))
        text = "".join(getattr(c, "text", "") for c in r.content)
        if r.is_error:
            raise ToolCallError(text)
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    def close(self) -> None:
        try:
            for cm in reversed(self._client_cms):
                try:
                    cm.__exit__(None, None, None)
                except Exception:
                    pass
            self._client_cms = []
        finally:
            if self._portal_cm is not None:
                self._portal_cm.__exit__(None, None, None)
                self._portal_cm = None


class MCPToolEnv:
    """A benchmark's tool environment (eval/benchmark.py `ToolEnv`) served over MCP. Attributes the
    scorers read (the database, the workspace, the opened sites) are the wrapped environment's."""

    transport = "mcp"

    def __init__(self, inner, server_name: str):
        self.inner = inner
        self._schemas = inner.tool_schemas()
        self._bridge = MCPBridge(schema_tools(self._schemas, server_name), inner)

    def __getattr__(self, name: str):  # db, texts, opened, text(): the wrapped environment's
        return getattr(self.inner, name)

    def begin(self, task) -> None:
        self.inner.begin(task)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self._schemas

    def list_tools(self) -> dict[str, dict]:
        return self._bridge.list_tools()

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any:
        return self._bridge.call(tool, args)

    def close(self) -> None:
        try:
            self._bridge.close()
        finally:
            self.inner.close()


def serve_env(inner, transport: str, server_name: str):
    """The environment itself (`direct`) or served over MCP (`mcp`)."""
    return MCPToolEnv(inner, server_name) if transport == "mcp" else inner
