"""A tool call's way through the gateway: Pulse's own tools are answered here; any other call passes
the calling session's pre-commit gate (`GatewaySession.before_call`), and only a call the gate lets
through is relayed to its upstream. The gateway's module docstring lists every reply a client can get
(a hold with its evidence, a supplement, an upstream that is down, a confirmation).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import anyio
import mcp_types as types

from pulse.serve.client_requests import ClientRequests
from pulse.serve.memory_tools import OWN_TOOL_DEFS, MemoryTools, text_block, tool_error
from pulse.serve.names import CONFIRM_ARG, EVIDENCE_META, FORGET, HOLD_META, MEMORIES, OWN_TOOLS, REMEMBER
from pulse.serve.session import call_key, item_record
from pulse.serve.session_pool import OpenSession, SessionPool
from pulse.serve.tool_routes import ToolRoutes
from pulse.serve.upstream import Upstream, UpstreamDown, describe_error

log = logging.getLogger("pulse.serve")

MAX_KEPT = 10_000  # hold tokens and pending request states kept; beyond it the oldest half goes


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("mcp")


def held_message(tool: str, message: str, token: str = "") -> str:
    """The tool error text of a held call to `tool`: the evidence `message` and how to go on (revise,
    remember a new preference, or confirm once with `token`)."""
    return (
        f"NOT EXECUTED: Pulse, the user's memory agent, held this call to {tool!r} before it ran: it "
        f"conflicts with what the user asked for earlier. Evidence from the user's memory:\n"
        f"{message or '(none)'}\nRevise the call to follow the user's preference, or ask the user; "
        f"if the user now wants otherwise, record it with {REMEMBER} and call again; if the user "
        f"confirms this call just this once, call it again unchanged with {CONFIRM_ARG!r}: true "
        f"(or {token!r})."
    )


def still_held_message(tool: str, ids: list[str], token: str) -> str:
    """The tool error text of the same held call sent again unchanged (evidence ids `ids`)."""
    return (
        f"STILL HELD: this exact call to {tool!r} was held before and nothing has changed since "
        f"(evidence: {', '.join(ids) or 'none'}). Change the arguments to follow the user's preference; "
        f"only if the user confirms this call, send it again with {CONFIRM_ARG!r}: true (or {token!r})."
    )


def _confirm_value(args: dict[str, Any]) -> tuple[bool, str]:
    """Pop `_pulse_confirm` from `args`: (confirmed by session, token given)."""
    v = args.pop(CONFIRM_ARG, None)
    if isinstance(v, str) and v.startswith("hold-"):
        return False, v
    return v is True or (isinstance(v, str) and v.strip().lower() in ("true", "yes", "1")), ""


def _bounded(d: dict) -> None:
    """Drop the oldest half of `d` once it holds more than MAX_KEPT entries."""
    if len(d) > MAX_KEPT:
        for k in list(d)[: MAX_KEPT // 2]:
            del d[k]


class ToolCalls:
    """The `tools/list` and `tools/call` handlers.

    Args: the gateway's `transport`, its `ToolRoutes`, `SessionPool`, `MemoryTools` and
    `ClientRequests`. `call_tool(ctx, params)` returns the upstream's result unchanged (a supplement
    appended as one text block), or a tool error for a held call (evidence and hold token in `_meta`),
    an unknown tool, a task-only tool, an upstream that is down or a memory agent that failed; a live
    upstream's protocol error (`MCPError`) is raised to the client unchanged.
    """

    def __init__(
        self,
        transport: str,
        routes: ToolRoutes,
        pool: SessionPool,
        memory: MemoryTools,
        requests: ClientRequests,
    ):
        self.transport = transport
        self.routes = routes
        self.pool = pool
        self.memory = memory
        self.requests = requests
        self._tokens: dict[str, tuple[str, int]] = {}  # hold token -> (call_key, memory generation)
        # request_state passed to a client -> (its session, the call's key): its retry is not re-gated
        self._resuming: dict[str, tuple[int, str]] = {}

    async def list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[*self.routes.tools(), *OWN_TOOL_DEFS])

    async def call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if self.transport == "stdio":
            self.requests.stdio_ctx = ctx
        name = params.name
        args = dict(params.arguments or {})
        if name == MEMORIES:
            return await self.memory.memories()
        client = await self.pool.client_for(ctx)
        if name == FORGET:
            return await self.memory.forget(client, args)
        if name == REMEMBER:
            return await self.memory.remember(client, args)
        up = self.routes.route.get(name)
        if up is None:
            served = ", ".join(sorted([*self.routes.route, *OWN_TOOLS]))
            return tool_error(f"unknown tool {name!r}; this gateway serves: {served}")
        tool = self.routes.tool_defs.get(name)
        if tool is not None and tool.execution is not None and tool.execution.task_support == "required":
            return tool_error(
                f"{name!r} must run as an MCP task (its execution.taskSupport is 'required'), and this "
                f"gateway cannot relay tasks: the MCP Python SDK it is built on (mcp "
                f"{_sdk_version()}) defines the task types but dispatches no tasks/* method. Call "
                f"{name!r} on its server directly (upstream {up.name!r}: {up.where})."
            )
        return await self._gated(ctx, client, up, name, args, params)

    async def _gated(self, ctx, client: OpenSession, up: Upstream, name: str, args, params):
        """The pre-commit gate on one upstream call: relayed unless the session's agent holds it (or
        fails: the gate fails closed, visibly)."""
        confirm, token = _confirm_value(args)
        relayed = args if CONFIRM_ARG in (params.arguments or {}) else params.arguments
        state = params.request_state
        if state is not None and self._resuming.pop(state, None) == (id(client), call_key(name, args)):
            # the client answers what the upstream asked during this call, which the gate passed
            return await self._relay_call(ctx, client, up, name, args, relayed, params)
        token_ok = False
        if token:  # a hold's token: this very call, memory unchanged since the hold
            assert self.pool.shared is not None
            token_ok = self._tokens.get(token) == (call_key(name, args), self.pool.shared.generation)
        session = client.session
        read_only = name in self.routes.read_only
        try:
            async with client.lock:
                gate = await anyio.to_thread.run_sync(
                    lambda: session.before_call(name, args, read_only, confirm, token_ok)
                )
        except Exception as e:  # fail closed and say so: an unchecked call could break a preference
            log.error("memory agent failed on %s: %s", name, describe_error(e))
            return tool_error(
                f"Pulse's memory agent failed on this call ({describe_error(e)}); the call was not "
                f"run. Check the gateway's policy backend (see its stderr)."
            )
        if gate.held:
            return self._held(name, args, gate)
        if gate.action == "confirmed":
            log.info("%s: confirmed by the user, relayed", name)
        return await self._relay_call(ctx, client, up, name, args, relayed, params)

    async def _relay_call(self, ctx, client: OpenSession, up: Upstream, name: str, args, relayed, params):
        """Relay one gated call: progress back to the caller (its progressToken), the upstream's
        input requests answered by or passed to the client; cancelling the client's request
        cancels the upstream's (the SDK sends notifications/cancelled on the upstream connection)."""
        from mcp.shared.exceptions import MCPError

        read_only = name in self.routes.read_only
        original = self.routes.original.get(name, name)
        session = getattr(ctx, "session", None)

        async def progress(p: float, total: float | None, message: str | None) -> None:
            if session is not None:
                await session.report_progress(p, total, message)

        async def send(responses, state):
            return await up.call_tool(original, relayed, progress, responses, state)

        try:
            with self.requests.in_flight(up, ctx):
                try:
                    result = await self.requests.interactive(ctx, up, name, send, params)
                except UpstreamDown as e:
                    if not (read_only and e.lost):
                        raise
                    log.info("upstream %s: retrying read-only %s after a restart", up.name, name)
                    result = await self.requests.interactive(ctx, up, name, send, params)
        except UpstreamDown as e:
            text = (
                f"upstream {up.name!r} is unavailable: {e}. The call did not complete; "
                f"the gateway tries to restart {up.name!r} at the next call to one of its tools."
            )
            await self._after(client, name, args, text)
            return tool_error(text)
        except MCPError as e:  # a live upstream's protocol error: the client gets it unchanged
            await self._after(client, name, args, e.message)
            raise
        return await self._reply(client, name, args, result)

    async def _reply(self, client: OpenSession, name: str, args, result):
        """The upstream's `result` as the client gets it: the session's agent reads it first, and a
        supplement it has for the next decision is appended as one text block."""
        if isinstance(result, types.InputRequiredResult):  # the client answers, then sends the call again
            if result.request_state:
                _bounded(self._resuming)
                self._resuming[result.request_state] = (id(client), call_key(name, args))
            return result
        if not isinstance(result, types.CallToolResult):  # a result shape an extension claims
            return result
        error = "".join(getattr(c, "text", "") for c in result.content) if result.is_error else ""
        notes = await self._after(client, name, args, error)
        if notes:
            note = "Pulse memory note (from the user's long-term memory):\n" + "\n".join(notes)
            result = result.model_copy(update={"content": [*result.content, text_block(note)]})
        return result

    async def _after(self, client: OpenSession, name: str, args: dict[str, Any], error: str) -> list[str]:
        async with client.lock:
            return await anyio.to_thread.run_sync(client.session.after_call, name, args, error or "")

    def _held(self, name: str, args: dict[str, Any], gate) -> types.CallToolResult:
        assert self.pool.shared is not None
        token = f"hold-{uuid.uuid4().hex[:12]}"
        _bounded(self._tokens)  # the oldest tokens go first
        self._tokens[token] = (call_key(name, args), self.pool.shared.generation)
        meta = {EVIDENCE_META: [item_record(m) for m in gate.evidence], HOLD_META: token}
        if gate.action == "repeat":
            log.info("held %s again (unchanged retry)", name)
            return tool_error(still_held_message(name, [m.item_id for m in gate.evidence], token), meta)
        log.info("held %s: evidence %s", name, [m.item_id for m in gate.evidence])
        return tool_error(held_message(name, gate.message, token), meta)
