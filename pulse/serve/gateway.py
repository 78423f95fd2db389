"""The MCP gateway: one MCP server in front of the upstream servers, with Pulse between them.

What a client sees:
- tools: every upstream's tools exactly as the upstream lists them (title, description, schemas,
  annotations, execution, icons, _meta), plus Pulse's own; an upstream with `prefix` set has its
  tool, prompt and resource names prefixed (gating and memory use the prefixed name); two upstreams
  listing one tool name without a prefix is refused at start;
- resources, resource templates and prompts of every upstream beside Pulse's own, read and got
  through the upstream that lists them (a resource by URI or template; a URI two upstreams list is
  served by the first); an upstream that is down is left out of a listing;
- progress notifications of a relayed call go to the client that made it (its progressToken);
  cancelling the client's request cancels the upstream's;
- what an upstream asks during a request (elicitation, roots, sampling): a 2026-07-28 upstream's
  `InputRequiredResult` goes to a 2026-07-28 client that declared every capability it needs (its
  retry, carrying the answers and the upstream's request_state, is relayed without being gated
  again); otherwise the gateway asks a 2025-11-25 client that declared the capability
  (elicitation/create, roots/list on the call's stream), or declines (`_meta["pulse/declined"]`
  says why). A 2025-11-25 upstream's own elicitation/roots requests go to the one client with a call
  to it in flight (declined when there is none, or several: `serial: true` makes it one);
- a tool whose `execution.taskSupport` is "required" is refused with the reason: the SDK (mcp 2.3)
  has the task types but dispatches no tasks/* method, so tasks cannot be relayed;
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
  * a call held before in this MCP session and retried unchanged is held again with a short
    message; it passes once the user confirms: the call again with `"_pulse_confirm": true` (or the
    hold's token, `_meta["pulse/hold"]`, which works without a session too); the argument is
    stripped before relaying, and the confirmation is a one-off for this session;
  * a read-only call whose upstream's connection was lost is retried once after the restart;
- `pulse_forget` (by id or by the words a memory says) and `pulse_memories` (also the resource
  `pulse://memories`): the user's memory, seen and removed from the client;
- prompt `pulse_preferences` and resource `pulse://preferences`: the user's current preferences.
Sessions: one `GatewaySession` (its own memory agent, event stream, holds and confirmations) per
MCP session, over one memory per user: a request naming its session (`_meta["pulse/session"]`, or
the HTTP header `Pulse-Session`) gets that named session on any transport (the 256 most recently
used stay open; an older one is closed, i.e. written back, and starts afresh); otherwise stdio has one
session, and streamable HTTP one per `Mcp-Session-Id` (handshake clients); a sessionless HTTP
request (protocol 2026-07-28, unnamed) gets a fresh agent for that one call. Calls run
concurrently: each session's agent decides one call at a time (its event stream is ordered), in a
worker thread; the upstream call runs outside it, so a slow call never delays another client's (nor
this client's next). An upstream is called concurrently (MCP multiplexes requests over one pipe or
connection); `upstreams.<name>.serial: true` sends it one call at a time.

Where each part lives: `Gateway` (here) starts and stops the upstreams and composes one object per
MCP concern: `tool_routes.py` (which upstream serves each tool name), `tool_calls.py` (tools/list and
the gated tools/call), `memory_tools.py` (`pulse_remember`, `pulse_forget`, `pulse_memories`),
`listings.py` (prompts and resources), `client_requests.py` (what an upstream asks of the client),
`session_pool.py` (which session a request gets); `names.py` holds the names a client sees.
"""

from __future__ import annotations

import logging

import anyio

from pulse.serve import names
from pulse.serve.client_requests import ClientRequests
from pulse.serve.config import ServeConfig
from pulse.serve.listings import Listings
from pulse.serve.memory_tools import MemoryTools
from pulse.serve.names import CONFIRM_ARG, FORGET, MEMORIES, REMEMBER
from pulse.serve.session import GatewaySession, SharedMemory
from pulse.serve.session_pool import SessionPool
from pulse.serve.tool_calls import ToolCalls
from pulse.serve.tool_routes import GatewayError, ToolRoutes
from pulse.serve.upstream import Upstream, describe_error

log = logging.getLogger("pulse.serve")


class Gateway:
    """The MCP server a client talks to (the module docstring says what it sees): the upstream MCP
    servers' tools, prompts and resources behind one name space, each tool call passed through one
    Pulse session's pre-commit gate (`GatewaySession`, pulse/serve/session.py).

    Args: `cfg` (`ServeConfig`: upstreams, memory, the agent's knobs, transport, timeouts) and the
    memory `policy` (None: built from `cfg`). `start(task_group)` starts the upstreams (raises
    GatewayError when one is unreachable or two list one tool name), `server()` is the MCP server
    whose handlers (`list_tools`, `call_tool`, `read_resource`, ...) relay to them, `stop()` stops
    them. A held call comes back as a tool error with the evidence, never relayed.

    Its parts, one MCP concern each: `pool` (`SessionPool`: the shared memory and one session per
    MCP session), `routes` (`ToolRoutes`: which upstream serves each tool name), `calls`
    (`ToolCalls`: tools/list and the gated tools/call), `memory_tools` (`MemoryTools`: pulse_remember,
    pulse_forget, pulse_memories), `listings` (`Listings`: prompts and resources) and `requests`
    (`ClientRequests`: what an upstream asks of the client during a request).
    """

    def __init__(self, cfg: ServeConfig, policy=None):
        self.cfg = cfg
        self.policy = policy
        self.upstreams = [
            Upstream(n, u, cfg.start_timeout_s, cfg.call_timeout_s) for n, u in cfg.upstreams.items()
        ]
        self.pool = SessionPool(cfg, policy)
        self.requests = ClientRequests(cfg.transport, self.upstreams)
        self.routes = ToolRoutes(self.upstreams)
        self.memory_tools = MemoryTools(self.pool, cfg.user_id)
        self.calls = ToolCalls(cfg.transport, self.routes, self.pool, self.memory_tools, self.requests)
        self.listings = Listings(self.upstreams, self.memory_tools, self.requests)
        for up in self.upstreams:
            up.callbacks = self.requests.callbacks(up)

    @property
    def session(self) -> GatewaySession | None:
        """The stdio client's session (the only one over stdio)."""
        return self.pool.session

    @property
    def shared(self) -> SharedMemory | None:
        """The user's memory, shared by every session (None before `start`)."""
        return self.pool.shared

    # -- start and stop ---------------------------------------------------------------------------
    async def start(self, tg) -> None:
        """Start every upstream in `tg`; fail (GatewayError) if one cannot start or tools collide."""
        for up in self.upstreams:
            tg.start_soon(up.own)
        for up in self.upstreams:
            await up.wait_ready()
            if up.client is None:
                raise GatewayError(f"upstream {up.name!r}: {up.error}")
        self.routes.add()
        tools = self.routes.tools()
        await self.pool.start(tools)
        log.info(
            "%d tools from %d upstream(s); user %s; memory %s",
            len(tools),
            len(self.upstreams),
            self.cfg.user_id,
            self.cfg.memory.root,
        )

    async def stop(self) -> None:
        """Stop the upstreams, then write back every open session and close the memory."""
        for up in self.upstreams:
            up.stop()
        await self.pool.close_all()

    async def client_for(self, ctx):
        """This request's session (module docstring: Sessions): a `session_pool.OpenSession`."""
        return await self.pool.client_for(ctx)

    # -- handlers ---------------------------------------------------------------------------------
    exposed = staticmethod(names.exposed)  # the name a client sees for an upstream's `name`

    async def list_tools(self, ctx, params):
        return await self.calls.list_tools(ctx, params)

    async def call_tool(self, ctx, params):
        return await self.calls.call_tool(ctx, params)

    async def list_prompts(self, ctx, params):
        return await self.listings.list_prompts(ctx, params)

    async def get_prompt(self, ctx, params):
        return await self.listings.get_prompt(ctx, params)

    async def list_resources(self, ctx, params):
        return await self.listings.list_resources(ctx, params)

    async def list_resource_templates(self, ctx, params):
        return await self.listings.list_resource_templates(ctx, params)

    async def read_resource(self, ctx, params):
        return await self.listings.read_resource(ctx, params)

    async def roots_changed(self, ctx, params) -> None:
        """A stdio client's roots changed: `ClientRequests.roots_changed`."""
        await self.requests.roots_changed(ctx, params)

    def server(self):
        """The MCP server (the SDK's low-level `Server`) whose handlers are this gateway's."""
        import warnings

        from mcp.server.lowlevel import Server

        with warnings.catch_warnings():  # roots/list_changed: deprecated in 2026-07-28, live in 2025-11-25
            warnings.simplefilter("ignore")
            return self._server(Server)

    def _server(self, Server):
        return Server(
            "pulse-gateway",
            version="1",
            instructions=(
                "Tools relayed from upstream MCP servers through Pulse, the user's memory agent. "
                f"A call Pulse holds returns an error with the evidence; {REMEMBER} records "
                f"what the user states, {MEMORIES} lists and {FORGET} removes what Pulse remembers. "
                f"A held call passes only if the user confirms it: send it again with {CONFIRM_ARG!r}: true."
            ),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_resource_templates,
            on_read_resource=self.read_resource,
            on_roots_list_changed=self.roots_changed,
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
