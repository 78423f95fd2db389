"""The offline suites' tool environment: a typed workspace, called directly or served as MCP servers.

`Workspace` holds the persistent state (artifact -> last written arguments) and validates every
call: an unknown tool, a missing argument or a value outside the tool's allowed values raises
`ToolCallError`, which the pre-commit gate turns into an error result the task agent sees.
`MCPWorkspace` serves the same tools as real MCP servers through the one MCP bridge
(eval/mcp_bridge.py: official `mcp` SDK, one server per service, in-memory transport) and calls
them through MCP clients; the state and the scoring are identical (tests check both give the same
result). The final state is scored by eval/suites/scoring.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from eval.mcp_bridge import BridgedTool, MCPBridge
from eval.suites.schema import ToolSpec
from pulse.agent.gate import ToolCallError
from pulse.agent.writeback import DECISION_PREFIX


class Workspace:
    """A generated suite's `ToolEnv` (the module docstring): the typed workspace state (artifact -> last
    arguments) and the calls made; `apply` / calling it validates and executes one call (ToolCallError for an
    unknown tool, a missing or unknown argument, a value not allowed)."""

    transport = "direct"

    def __init__(self, tools: Sequence[ToolSpec]):
        self.tools = {t.name: t for t in tools}
        self.state: dict[str, dict[str, str]] = {}
        self.calls: list[tuple[str, dict[str, str]]] = []

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.tools.values())

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas (the benchmark protocol's ToolEnv, eval/benchmark.py)."""
        return [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.json_schema()},
            }
            for t in self.tool_specs()
        ]

    def begin(self, task) -> None:
        """The workspace persists across a persona's tasks: nothing to reset."""

    def validate(self, tool: str, args: Mapping[str, Any]) -> ToolSpec:
        if tool not in self.tools:
            raise ToolCallError(f"unknown tool {tool!r}; available: {sorted(self.tools)}")
        spec = self.tools[tool]
        missing = [p for p in (spec.artifact_param, *spec.params) if p not in args]
        if missing:
            raise ToolCallError(f"{tool}: missing argument(s) {missing}")
        extra = sorted(set(args) - {spec.artifact_param, *spec.params})
        if extra:
            raise ToolCallError(f"{tool}: unknown argument(s) {extra}")
        for p, allowed in spec.params.items():
            if str(args[p]) not in allowed:
                raise ToolCallError(f"{tool}: {p}={args[p]!r} is not one of {allowed}")
        return spec

    def apply(self, tool: str, args: Mapping[str, Any]) -> dict[str, str]:
        spec = self.validate(tool, args)
        artifact = str(args[spec.artifact_param])
        values = {p: str(args[p]) for p in spec.params}
        self.state[artifact] = {"tool": tool, **values}
        self.calls.append((tool, {spec.artifact_param: artifact, **values}))
        result = {"status": "ok", "artifact": artifact, **values}
        if spec.records_decision:
            result.update({f"{DECISION_PREFIX}{p}": v for p, v in values.items()})
        return result

    def __call__(self, tool: str, args: Mapping[str, Any]) -> dict[str, str]:
        return self.apply(tool, args)

    def close(self) -> None:
        pass


def bridged_tools(tools: Sequence[ToolSpec]) -> list[BridgedTool]:
    """The workspace's tools as MCP tools: one server per service, enums typed as `Literal`."""
    return [
        BridgedTool(
            t.name,
            t.description,
            {t.artifact_param: str, **{p: Literal[tuple(v)] for p, v in t.params.items()}},
            f"pulse-sim-{t.service}",
        )
        for t in tools
    ]


class MCPWorkspace(Workspace):
    """The same workspace served as MCP servers (eval/mcp_bridge.py): state and scoring are the
    workspace's, calls go through an MCP client."""

    transport = "mcp"

    def __init__(self, tools: Sequence[ToolSpec]):
        super().__init__(tools)
        self._bridge = MCPBridge(bridged_tools(tools), self.apply)

    def list_tools(self) -> dict[str, dict]:
        return self._bridge.list_tools()

    def __call__(self, tool: str, args: Mapping[str, Any]) -> dict[str, str]:
        return self._bridge.call(tool, args)

    def close(self) -> None:
        self._bridge.close()


ENV_TRANSPORTS = {"direct": Workspace, "mcp": MCPWorkspace}


def make_env(tools: Sequence[ToolSpec], transport: str = "direct") -> Workspace:
    if transport not in ENV_TRANSPORTS:
        raise ValueError(f"benchmark.transport: {transport!r} not in {sorted(ENV_TRANSPORTS)}")
    return ENV_TRANSPORTS[transport](tools)
