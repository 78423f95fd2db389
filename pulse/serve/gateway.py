"""The MCP gateway: one MCP server in front of the upstream servers, with Pulse between them.

What a client sees:
- tools: every upstream's tools exactly as the upstream lists them (name, description, schemas,
  annotations), plus `pulse_remember`; two upstreams listing one tool name is refused at start;
- a call is relayed to its upstream and the upstream's result comes back unchanged, except that
  * a call the pre-commit gate holds is not relayed: the reply is a tool error (`isError`) whose
    text is the intervention message with the evidence, and `_meta["pulse/evidence"]` lists the
    memory items (id, slot, value, text, since, source quote);
  * a supplement (memory the next decision should see) is appended as one extra text block;
  * an upstream that is down: a tool error naming the upstream and why; the next call to one of
    its tools restarts it; the other upstreams and `pulse_remember` keep working;
  * a JSON-RPC error of a live upstream is raised to the client with its own code and message;
  * the memory agent failing on a call (e.g. its policy endpoint is down): a tool error saying so,
    and the call is not relayed (the gate fails closed, visibly);
- prompt `pulse_preferences` and resource `pulse://preferences`: the user's current preferences.
Calls are relayed one at a time (the memory agent reads one ordered event stream); the memory
agent runs in a worker thread so a slow policy never blocks the event loop's transport.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types

from pulse.core.errors import PulseUserError
from pulse.serve.config import ServeConfig
from pulse.serve.session import GatewaySession, RememberError, item_record
from pulse.serve.upstream import Upstream, UpstreamDown, describe_error

log = logging.getLogger("pulse.serve")

REMEMBER = "pulse_remember"
PROMPT = "pulse_preferences"
RESOURCE = "pulse://preferences"
EVIDENCE_META = "pulse/evidence"

REMEMBER_TOOL = types.Tool(
    name=REMEMBER,
    description=(
        "Record what the user just said about how they want things done, in the user's own words "
        "(e.g. 'Always refund to my credit card, never to a gift card', 'On flights over six hours I "
        "want business class', 'My colleague Priya prefers window seats'). Pulse reads it against the "
        "tools' arguments, answers with what it understood (argument, value, whose, condition, lasting "
        "or one-off), keeps the user's standing preferences in long-term memory and holds a later call "
        "that contradicts them. Optionally give slot and value to tie it to one argument yourself; the "
        "value must then occur in the statement."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "statement": {"type": "string", "description": "the user's own words"},
            "slot": {
                "type": "string",
                "description": "optional: the tool argument it is about, e.g. payment_method_id",
            },
            "value": {"type": "string", "description": "optional (with slot): the value the user wants"},
        },
        "required": ["statement"],
    },
    annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
)


class GatewayError(PulseUserError, RuntimeError):
    """The gateway cannot start (an upstream is unreachable, two upstreams share a tool name)."""


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _error(text: str, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(content=[_text(text)], is_error=True, **({"_meta": meta} if meta else {}))


def held_message(tool: str, message: str) -> str:
    return (
        f"NOT EXECUTED: Pulse, the user's memory agent, held this call to {tool!r} before it ran: it "
        f"conflicts with what the user asked for earlier. Evidence from the user's memory:\n"
        f"{message or '(none)'}\nRevise the call to follow the user's preference, or ask the user; "
        f"if the user now wants otherwise, record it with {REMEMBER} and call again."
    )


class Gateway:
    def __init__(self, cfg: ServeConfig, policy=None):
        self.cfg = cfg
        self.policy = policy
        self.upstreams = [
            Upstream(n, u, cfg.start_timeout_s, cfg.call_timeout_s) for n, u in cfg.upstreams.items()
        ]
        self.route: dict[str, Upstream] = {}
        self.read_only: set[str] = set()
        self.session: GatewaySession | None = None
        self._lock = anyio.Lock()

    # -- start and stop ---------------------------------------------------------------------------
    async def start(self, tg) -> None:
        """Start every upstream in `tg`; fail (GatewayError) if one cannot start or tools collide."""
        for up in self.upstreams:
            tg.start_soon(up.own)
        for up in self.upstreams:
            await up.wait_ready()
            if up.client is None:
                raise GatewayError(f"upstream {up.name!r}: {up.error}")
        for up in self.upstreams:
            for t in up.tools:
                if t.name == REMEMBER:
                    raise GatewayError(
                        f"upstream {up.name!r} lists a tool named {REMEMBER!r}, which the gateway owns"
                    )
                if t.name in self.route:
                    raise GatewayError(
                        f"tool {t.name!r} is listed by upstreams {self.route[t.name].name!r} and "
                        f"{up.name!r}; serve them through two gateways"
                    )
                self.route[t.name] = up
                hint = t.annotations.read_only_hint if t.annotations else None
                if hint or t.name in up.cfg.read_only_tools:
                    self.read_only.add(t.name)
        tools = [t for up in self.upstreams for t in up.tools]
        self.session = await anyio.to_thread.run_sync(lambda: GatewaySession(self.cfg, tools, self.policy))
        log.info(
            "%d tools from %d upstream(s); user %s; memory %s",
            len(tools),
            len(self.upstreams),
            self.cfg.user_id,
            self.cfg.memory.root,
        )

    async def stop(self) -> None:
        for up in self.upstreams:
            up.stop()
        if self.session is not None:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.session.close)

    # -- handlers ---------------------------------------------------------------------------------
    async def list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[*(t for up in self.upstreams for t in up.tools), REMEMBER_TOOL])

    async def call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        args = dict(params.arguments or {})
        async with self._lock:
            if name == REMEMBER:
                return await self._remember(args)
            up = self.route.get(name)
            if up is None:
                served = ", ".join(sorted([*self.route, REMEMBER]))
                return _error(f"unknown tool {name!r}; this gateway serves: {served}")
            session = self.session
            assert session is not None
            try:
                gate = await anyio.to_thread.run_sync(session.before_call, name, args, name in self.read_only)
            except Exception as e:  # fail closed and say so: an unchecked call could break a preference
                log.error("memory agent failed on %s: %s", name, describe_error(e))
                return _error(
                    f"Pulse's memory agent failed on this call ({describe_error(e)}); the call was not "
                    f"run. Check the gateway's policy backend (see its stderr)."
                )
            if gate.held:
                log.info("held %s: evidence %s", name, [m.item_id for m in gate.evidence])
                return _error(
                    held_message(name, gate.message), {EVIDENCE_META: [item_record(m) for m in gate.evidence]}
                )
            from mcp.shared.exceptions import MCPError

            try:
                result = await up.call_tool(name, params.arguments)
            except UpstreamDown as e:
                text = (
                    f"upstream {up.name!r} is unavailable: {e}. The call did not complete; "
                    f"the gateway tries to restart {up.name!r} at the next call to one of its tools."
                )
                await anyio.to_thread.run_sync(session.after_call, name, args, text)
                return _error(text)
            except MCPError as e:  # a live upstream's protocol error: the client gets it unchanged
                await anyio.to_thread.run_sync(session.after_call, name, args, e.message)
                raise
            error = "".join(getattr(c, "text", "") for c in result.content) if result.is_error else ""
            notes = await anyio.to_thread.run_sync(session.after_call, name, args, error or "")
            if notes:
                note = "Pulse memory note (from the user's long-term memory):\n" + "\n".join(notes)
                result = result.model_copy(update={"content": [*result.content, _text(note)]})
            return result

    async def _remember(self, args: dict[str, Any]) -> types.CallToolResult:
        session = self.session
        assert session is not None
        extra = sorted(set(args) - {"statement", "slot", "value"})
        if extra or not all(isinstance(v, str) for v in args.values()):
            return _error(f"{REMEMBER}: arguments are strings statement, slot, value (got {sorted(args)})")
        try:
            out = await anyio.to_thread.run_sync(
                lambda: session.remember(
                    args.get("statement", ""), args.get("slot", ""), args.get("value", "")
                )
            )
        except RememberError as e:
            return _error(f"{REMEMBER}: {e}")
        if out["stored"]:
            text = "Stored in the user's memory:\n" + "\n".join(
                f"- [{m['id']}] {m['kind']}: {m['text']}" for m in out["stored"]
            )
        elif out["merged"]:
            text = f"Already in the user's memory ({', '.join(out['merged'])}); nothing new stored."
        else:
            why = "; ".join(out["rejected"]) or "no standing preference stated"
            text = f"Nothing stored ({why}); kept as context for this session's next calls."
        if out.get("understood"):
            text += "\nUnderstood:\n" + "\n".join(
                f"- {u['said']}" + ("" if u["binds"] else " (not binding: kept as context)")
                for u in out["understood"]
            )
        read = ", ".join(f"{k}={v}" for k, v in out["read_as"].items())
        if read:
            text += f"\nRead as: {read}"
        return types.CallToolResult(content=[_text(text)], structured_content=out)

    async def list_prompts(self, ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=PROMPT, description="The user's current preferences from Pulse's long-term memory"
                )
            ]
        )

    async def get_prompt(self, ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        from mcp.shared.exceptions import MCPError

        if params.name != PROMPT:
            raise MCPError(
                types.INVALID_PARAMS, f"unknown prompt {params.name!r}; this gateway has {PROMPT!r}"
            )
        text = await self._preferences()
        return types.GetPromptResult(
            description="The user's current preferences",
            messages=[types.PromptMessage(role="user", content=_text(text))],
        )

    async def list_resources(self, ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name="preferences",
                    uri=RESOURCE,
                    mime_type="text/plain",
                    description="The user's current preferences from Pulse's long-term memory",
                )
            ]
        )

    async def read_resource(self, ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        from mcp.shared.exceptions import MCPError

        if str(params.uri) != RESOURCE:
            raise MCPError(
                types.INVALID_PARAMS, f"unknown resource {params.uri!r}; this gateway has {RESOURCE!r}"
            )
        text = await self._preferences()
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=RESOURCE, mime_type="text/plain", text=text)]
        )

    async def _preferences(self) -> str:
        assert self.session is not None
        async with self._lock:
            return await anyio.to_thread.run_sync(self.session.preferences)

    def server(self):
        from mcp.server.lowlevel import Server

        return Server(
            "pulse-gateway",
            version="1",
            instructions=(
                "Tools relayed from upstream MCP servers through Pulse, the user's memory agent. "
                f"A call Pulse holds returns an error with the evidence; {REMEMBER} records "
                "what the user states."
            ),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
        )


async def serve(cfg: ServeConfig, policy=None) -> None:
    """Run the gateway on the configured transport until the client (stdio) or the process (http) stops."""
    gw = Gateway(cfg, policy)
    async with anyio.create_task_group() as tg:
        try:
            await gw.start(tg)
            server = gw.server()
            if cfg.transport == "stdio":
                from mcp.server.stdio import stdio_server

                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            else:
                import uvicorn

                app = server.streamable_http_app(streamable_http_path=cfg.path, host=cfg.host)
                log.info("listening on http://%s:%d%s", cfg.host, cfg.port, cfg.path)
                await uvicorn.Server(
                    uvicorn.Config(app, host=cfg.host, port=cfg.port, log_level="warning")
                ).serve()
        finally:
            await gw.stop()


__all__ = ["Gateway", "GatewayError", "serve", "describe_error"]
