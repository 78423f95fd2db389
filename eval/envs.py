"""Tool environments for the offline suites: a typed workspace, served directly or as MCP servers.

`Workspace` holds the persistent state (artifact -> last written arguments) and validates every
call: an unknown tool, a missing argument or a value outside the tool's allowed values raises
`ToolCallError`, which the pre-commit gate turns into an error result the task agent sees.
`MCPWorkspace` serves the same tools as real MCP servers (official `mcp` SDK, one server per
service, in-memory transport on a private event loop) and calls them through an MCP client; the
state and the scoring are identical (tests check both give the same result).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from eval.suites.schema import Checkpoint, SimTask, ToolSpec
from pulse.agent.gate import ToolCallError
from pulse.agent.writeback import DECISION_PREFIX


class Workspace:
    transport = "direct"

    def __init__(self, tools: Sequence[ToolSpec]):
        self.tools = {t.name: t for t in tools}
        self.state: dict[str, dict[str, str]] = {}
        self.calls: list[tuple[str, dict[str, str]]] = []

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.tools.values())

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas (the benchmark protocol's ToolEnv, eval/real/base.py)."""
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


def _tool_function(ws: Workspace, spec: ToolSpec):
    """A Python function with a typed signature (enums as Literal) that MCPServer can expose."""

    def fn(**kwargs):
        return ws.apply(spec.name, kwargs)

    ann = {spec.artifact_param: str, **{p: Literal[tuple(v)] for p, v in spec.params.items()}}
    fn.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a) for p, a in ann.items()]
    )
    fn.__annotations__ = dict(ann)
    fn.__name__ = spec.name
    return fn


class MCPWorkspace(Workspace):
    transport = "mcp"

    def __init__(self, tools: Sequence[ToolSpec]):
        super().__init__(tools)
        import logging

        from anyio.from_thread import start_blocking_portal
        from mcp.client.client import Client
        from mcp.server.mcpserver import MCPServer

        logging.getLogger("mcp").setLevel(logging.WARNING)
        servers: dict[str, Any] = {}
        for spec in tools:
            srv = servers.setdefault(spec.service, MCPServer(f"pulse-sim-{spec.service}"))
            srv.add_tool(_tool_function(self, spec), name=spec.name, description=spec.description)
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._clients: dict[str, Any] = {}
        self._client_cms = []
        for svc, srv in servers.items():
            cm = self._portal.wrap_async_context_manager(Client(srv))
            self._clients[svc] = cm.__enter__()
            self._client_cms.append(cm)
        self._service_of = {t.name: t.service for t in tools}

    def list_tools(self) -> dict[str, dict]:
        out = {}
        for client in self._clients.values():
            for t in self._portal.call(client.list_tools).tools:
                out[t.name] = t.input_schema
        return out

    def __call__(self, tool: str, args: Mapping[str, Any]) -> dict[str, str]:
        if tool not in self._service_of:
            raise ToolCallError(f"unknown tool {tool!r}; available: {sorted(self._service_of)}")
        client = self._clients[self._service_of[tool]]
        r = self._portal.call(client.call_tool, tool, dict(args))
        text = "".join(getattr(c, "text", "") for c in r.content)
        if r.is_error:
            raise ToolCallError(text)
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return {"status": "ok", "text": text}

    def close(self) -> None:
        for cm in reversed(self._client_cms):
            try:
                cm.__exit__(None, None, None)
            except Exception:
                pass
        self._client_cms = []
        self._portal_cm.__exit__(None, None, None)


ENV_TRANSPORTS = {"direct": Workspace, "mcp": MCPWorkspace}


def make_env(tools: Sequence[ToolSpec], transport: str = "direct") -> Workspace:
    if transport not in ENV_TRANSPORTS:
        raise ValueError(f"benchmark.transport: {transport!r} not in {sorted(ENV_TRANSPORTS)}")
    return ENV_TRANSPORTS[transport](tools)


@dataclass(frozen=True)
class CheckResult:
    checkpoint: Checkpoint
    passed: bool
    actual: str


def check_task(task: SimTask, state: Mapping[str, Mapping[str, str]]) -> list[CheckResult]:
    """Deterministic checklist on the final workspace state."""
    return [
        CheckResult(
            c, state.get(c.artifact, {}).get(c.slot) == c.expected, state.get(c.artifact, {}).get(c.slot, "")
        )
        for c in task.checkpoints
    ]


def task_score(results: Sequence[CheckResult], metric: str) -> float:
    """One task's score from its checkpoint results.

    comp -- pi-Bench's COMP_t (checklist_evaluator.py), exactly: COMP_t = sum_c w_c * v_c / sum_c w_c
            over the task's criteria c, with v_c = 1 if the criterion passed, else 0, and w_c its
            weight (`Checkpoint.weight`, default 1). (pi-Bench ORs a criterion over the turns of the
            task; here a checkpoint is checked once, on the final workspace state.)
    acc  -- MCP-Persona's per-task accuracy: 1 if every checkpoint passed, 0.5 if some (partial
            completion), 0 if none; weights play no part.
    A task with no checkpoints scores 0 (pi-Bench leaves such tasks out of the overall; the offline
    suites refuse them: suite_from_json requires at least one checkpoint per task).
    """
    if metric not in ("comp", "acc"):
        raise ValueError(f"metric {metric!r} not in ('comp', 'acc')")
    if not results:
        return 0.0
    if metric == "comp":
        total = sum(r.checkpoint.weight for r in results)
        return sum(r.checkpoint.weight for r in results if r.passed) / total
    passed = sum(r.passed for r in results)
    return 1.0 if passed == len(results) else (0.5 if passed else 0.0)
