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
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pulse.core.errors import PulseUserError
from pulse.serve.config import ServeConfig, up_prefix
from pulse.serve.session import GatewaySession, RememberError, SharedMemory, call_key, item_record
from pulse.serve.upstream import Upstream, UpstreamDown, describe_error

log = logging.getLogger("pulse.serve")

REMEMBER = "pulse_remember"
FORGET = "pulse_forget"
MEMORIES = "pulse_memories"
OWN_TOOLS = (REMEMBER, FORGET, MEMORIES)
CONFIRM_ARG = "_pulse_confirm"
HOLD_META = "pulse/hold"
SESSION_META = "pulse/session"
SESSION_HEADER = "pulse-session"
MEMORIES_RESOURCE = "pulse://memories"
MAX_NAMED_SESSIONS = 256  # named sessions kept open; the least recently used beyond that is closed
PROMPT = "pulse_preferences"
RESOURCE = "pulse://preferences"
EVIDENCE_META = "pulse/evidence"
DECLINED_META = "pulse/declined"
MAX_INPUT_ROUNDS = 8  # rounds of an upstream's input requests the gateway answers for one request

REMEMBER_TOOL = types.Tool(
    name=REMEMBER,
    description=(
        "Record what the user just said about how they want things done, in the user's own words "
        "(e.g. 'Always refund to my credit card, never to a gift card', 'On flights over six hours I "
        "want business class', 'My colleague Priya prefers window seats'). Pulse reads it against the "
        "tools' arguments, answers with what it understood (argument, value, whose, condition, lasting "
        "or one-off), keeps the user's standing preferences in long-term memory and holds a later call "
        "that contradicts them. Optionally give slot and value to tie it to one argument yourself (the "
        "value must then occur in the statement), and tool to make it about that tool only."
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
            "tool": {"type": "string", "description": "optional: the one tool it is about"},
        },
        "required": ["statement"],
    },
    annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
)


FORGET_TOOL = types.Tool(
    name=FORGET,
    description=(
        "Remove something from the user's long-term memory when the user asks you to forget it: by "
        f"its id (from {MEMORIES} or a held call's evidence) or by words it says. Answers with what "
        "was removed; a removed preference holds nothing any more."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "the memory's id, e.g. pref-bdaf9eff014f89b4"},
            "matching": {"type": "string", "description": "or: words the memory says (3+ characters)"},
        },
    },
    annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True),
)

MEMORIES_TOOL = types.Tool(
    name=MEMORIES,
    description=(
        "List what Pulse remembers about the user (preferences, habits, facts, project state), newest "
        "first, with ids (for pulse_forget), the argument and value each binds, and the tool it is about."
    ),
    input_schema={"type": "object", "properties": {}},
    annotations=types.ToolAnnotations(read_only_hint=True),
)


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("mcp")


class GatewayError(PulseUserError, RuntimeError):
    """The gateway cannot start (an upstream is unreachable, two upstreams share a tool name)."""


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _error(text: str, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(content=[_text(text)], is_error=True, **({"_meta": meta} if meta else {}))


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


def _session_key(ctx) -> str:
    """The client's own session name: the `Pulse-Session` header or `_meta["pulse/session"]`."""
    meta = getattr(ctx, "meta", None) or {}
    key = meta.get(SESSION_META) if isinstance(meta, dict) else None
    if not key:
        req = getattr(ctx, "request", None)
        headers = getattr(req, "headers", None)
        key = headers.get(SESSION_HEADER) if headers is not None else None
    return str(key)[:200] if key else ""


@dataclass
class _Client:
    """One MCP session: its memory agent and the lock that orders its agent's events."""

    session: GatewaySession
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class Gateway:
    """The MCP server a client talks to (the module docstring says what it sees): the upstream MCP
    servers' tools, prompts and resources behind one name space, each tool call passed through one
    Pulse session's pre-commit gate (`GatewaySession`, pulse/serve/session.py).

    Args: `cfg` (`ServeConfig`: upstreams, memory, the agent's knobs, transport, timeouts) and the
    memory `policy` (None: built from `cfg`). `start(task_group)` starts the upstreams (raises
    GatewayError when one is unreachable or two list one tool name), `server()` is the MCP server
    whose handlers (`list_tools`, `call_tool`, `read_resource`, ...) relay to them, `stop()` stops
    them. A held call comes back as a tool error with the evidence, never relayed.
    """

    def __init__(self, cfg: ServeConfig, policy=None):
        self.cfg = cfg
        self.policy = policy
        self.upstreams = [
            Upstream(n, u, cfg.start_timeout_s, cfg.call_timeout_s) for n, u in cfg.upstreams.items()
        ]
        self.route: dict[str, Upstream] = {}  # the name the client sees -> its upstream
        self.original: dict[str, str] = {}  # the name the client sees -> the upstream's own name
        self.tool_defs: dict[str, types.Tool] = {}  # the name the client sees -> the upstream's tool
        self.prompt_route: dict[str, tuple[Upstream, str]] = {}
        self.uri_route: dict[str, Upstream] = {}
        self.templates: list[tuple[Upstream, Any]] = []  # (upstream, compiled uri template)
        self._inflight: dict[str, dict[int, Any]] = {}  # upstream -> calls in flight (request contexts)
        self._stdio_ctx: Any = None  # the stdio client's latest request (its connection asks for roots)
        # request_state passed to a client -> (its session, the call's key): its retry is not re-gated
        self._resuming: dict[str, tuple[int, str]] = {}
        self.read_only: set[str] = set()
        self.shared: SharedMemory | None = None
        self.clients: list[_Client] = []  # open sessions (closed as their MCP session ends)
        self._named: dict[str, _Client] = {}  # Pulse-Session name -> its session
        self._stdio: _Client | None = None
        self._new_lock = anyio.Lock()  # one session created at a time per key
        self._tokens: dict[str, tuple[str, int]] = {}  # hold token -> (call_key, memory generation)
        for up in self.upstreams:
            up.callbacks = {
                "elicitation_callback": self._upstream_asks(up, "elicit"),
                "list_roots_callback": self._upstream_asks(up, "roots"),
            }

    @property
    def session(self) -> GatewaySession | None:
        """The stdio client's session (the only one over stdio)."""
        return self._stdio.session if self._stdio is not None else None

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
                name = self.exposed(up, t.name)
                if name in OWN_TOOLS:
                    raise GatewayError(
                        f"upstream {up.name!r} lists a tool named {name!r}, which the gateway owns"
                    )
                if name in self.route:
                    raise GatewayError(
                        f"tool {name!r} is listed by upstreams {self.route[name].name!r} and "
                        f"{up.name!r}; give one of them a prefix: upstreams.{up.name}.prefix=true"
                    )
                self.route[name], self.original[name], self.tool_defs[name] = up, t.name, t
                hint = t.annotations.read_only_hint if t.annotations else None
                if hint or t.name in up.cfg.read_only_tools or name in up.cfg.read_only_tools:
                    self.read_only.add(name)
        tools = self._tools()
        self.shared = await anyio.to_thread.run_sync(lambda: SharedMemory(self.cfg, tools, self.policy))
        if self.cfg.transport == "stdio":
            self._stdio = await self._open("stdio")
        log.info(
            "%d tools from %d upstream(s); user %s; memory %s",
            len(tools),
            len(self.upstreams),
            self.cfg.user_id,
            self.cfg.memory.root,
        )

    async def _open(self, label: str) -> _Client:
        shared = self.shared
        assert shared is not None
        client = _Client(await anyio.to_thread.run_sync(lambda: GatewaySession(shared, label)))
        self.clients.append(client)
        return client

    async def _close(self, client: _Client) -> None:
        with anyio.CancelScope(shield=True):
            async with client.lock:
                if client in self.clients:
                    self.clients.remove(client)
                await anyio.to_thread.run_sync(client.session.close)

    async def stop(self) -> None:
        for up in self.upstreams:
            up.stop()
        with anyio.CancelScope(shield=True):
            for client in list(self.clients):
                try:
                    await self._close(client)
                except Exception as e:  # one session's writeback failing must not lose the others'
                    log.error("closing session %s: %s", client.session.label, describe_error(e))
            if self.shared is not None:
                await anyio.to_thread.run_sync(self.shared.close)

    async def client_for(self, ctx) -> _Client:
        """This request's session (module docstring: Sessions)."""
        key = _session_key(ctx)
        if key:  # the client names its sessions (any transport: e.g. one per task over one stdio pipe)
            stale = None
            async with self._new_lock:
                client = self._named.pop(key, None)  # re-inserted: the dict is oldest-used first
                if client is None:
                    client = await self._open(f"named:{key}")
                    if len(self._named) >= MAX_NAMED_SESSIONS:  # the least recently used one ends
                        stale = self._named.pop(next(iter(self._named)))
                self._named[key] = client
            if stale is not None:
                await self._close(stale)
            return client
        if self._stdio is not None:
            return self._stdio
        conn = getattr(getattr(ctx, "session", None), "_connection", None)  # the SDK's per-client state
        if conn is None:
            return await self._open("request")
        async with self._new_lock:
            client = conn.state.get("pulse/client")
            if client is None:
                client = await self._open(f"http:{conn.session_id or 'request'}")
                conn.state["pulse/client"] = client
                conn.exit_stack.push_async_callback(self._close, client)
            return client

    # -- handlers ---------------------------------------------------------------------------------
    @staticmethod
    def exposed(up: Upstream, name: str) -> str:
        """The name a client sees for the upstream's tool, prompt or resource `name` (its prefix)."""
        return up_prefix(up.name, up.cfg) + name

    def _tools(self) -> list[types.Tool]:
        """Every upstream's tools as the client sees them: each field as the upstream sent it
        (title, annotations, outputSchema, execution, icons, _meta), the name prefixed if configured."""
        out = []
        for up in self.upstreams:
            pre = up_prefix(up.name, up.cfg)
            out.extend(t.model_copy(update={"name": pre + t.name}) if pre else t for t in up.tools)
        return out

    async def list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[*self._tools(), REMEMBER_TOOL, FORGET_TOOL, MEMORIES_TOOL])

    async def call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if self.cfg.transport == "stdio":
            self._stdio_ctx = ctx
        name = params.name
        args = dict(params.arguments or {})
        if name == MEMORIES:
            return await self._memories()
        client = await self.client_for(ctx)
        if name == FORGET:
            return await self._forget(client, args)
        if name == REMEMBER:
            return await self._remember(client, args)
        up = self.route.get(name)
        if up is None:
            served = ", ".join(sorted([*self.route, *OWN_TOOLS]))
            return _error(f"unknown tool {name!r}; this gateway serves: {served}")
        tool = self.tool_defs.get(name)
        if tool is not None and tool.execution is not None and tool.execution.task_support == "required":
            return _error(
                f"{name!r} must run as an MCP task (its execution.taskSupport is 'required'), and this "
                f"gateway cannot relay tasks: the MCP Python SDK it is built on (mcp "
                f"{_sdk_version()}) defines the task types but dispatches no tasks/* method. Call "
                f"{name!r} on its server directly (upstream {up.name!r}: {up.where})."
            )
        confirm, token = _confirm_value(args)
        relayed = args if CONFIRM_ARG in (params.arguments or {}) else params.arguments
        state = params.request_state
        if state is not None and self._resuming.pop(state, None) == (id(client), call_key(name, args)):
            # the client answers what the upstream asked during this call, which the gate passed
            return await self._relay_call(ctx, client, up, name, args, relayed, params)
        token_ok = False
        if token:  # a hold's token: this very call, memory unchanged since the hold
            assert self.shared is not None
            token_ok = self._tokens.get(token) == (call_key(name, args), self.shared.generation)
        session = client.session
        read_only = name in self.read_only
        try:
            async with client.lock:
                gate = await anyio.to_thread.run_sync(
                    lambda: session.before_call(name, args, read_only, confirm, token_ok)
                )
        except Exception as e:  # fail closed and say so: an unchecked call could break a preference
            log.error("memory agent failed on %s: %s", name, describe_error(e))
            return _error(
                f"Pulse's memory agent failed on this call ({describe_error(e)}); the call was not "
                f"run. Check the gateway's policy backend (see its stderr)."
            )
        if gate.held:
            return self._held(name, args, gate)
        if gate.action == "confirmed":
            log.info("%s: confirmed by the user, relayed", name)
        return await self._relay_call(ctx, client, up, name, args, relayed, params)

    async def _relay_call(self, ctx, client: _Client, up: Upstream, name: str, args, relayed, params):
        """Relay one gated call: progress back to the caller (its progressToken), the upstream's
        input requests answered by or passed to the client; cancelling the client's request
        cancels the upstream's (the SDK sends notifications/cancelled on the upstream connection)."""
        from mcp.shared.exceptions import MCPError

        read_only = name in self.read_only
        original = self.original.get(name, name)
        session = getattr(ctx, "session", None)

        async def progress(p: float, total: float | None, message: str | None) -> None:
            if session is not None:
                await session.report_progress(p, total, message)

        async def send(responses, state):
            return await up.call_tool(original, relayed, progress, responses, state)

        inflight = self._inflight.setdefault(up.name, {})
        inflight[id(ctx)] = ctx
        try:
            try:
                try:
                    result = await self._interactive(ctx, up, name, send, params)
                except UpstreamDown as e:
                    if not (read_only and e.lost):
                        raise
                    log.info("upstream %s: retrying read-only %s after a restart", up.name, name)
                    result = await self._interactive(ctx, up, name, send, params)
            finally:
                inflight.pop(id(ctx), None)
        except UpstreamDown as e:
            text = (
                f"upstream {up.name!r} is unavailable: {e}. The call did not complete; "
                f"the gateway tries to restart {up.name!r} at the next call to one of its tools."
            )
            await self._after(client, name, args, text)
            return _error(text)
        except MCPError as e:  # a live upstream's protocol error: the client gets it unchanged
            await self._after(client, name, args, e.message)
            raise
        if isinstance(result, types.InputRequiredResult):  # the client answers, then sends the call again
            if result.request_state:
                if len(self._resuming) > 10_000:
                    for k in list(self._resuming)[:5_000]:
                        del self._resuming[k]
                self._resuming[result.request_state] = (id(client), call_key(name, args))
            return result
        if not isinstance(result, types.CallToolResult):  # a result shape an extension claims
            return result
        error = "".join(getattr(c, "text", "") for c in result.content) if result.is_error else ""
        notes = await self._after(client, name, args, error)
        if notes:
            note = "Pulse memory note (from the user's long-term memory):\n" + "\n".join(notes)
            result = result.model_copy(update={"content": [*result.content, _text(note)]})
        return result

    async def _after(self, client: _Client, name: str, args: dict[str, Any], error: str) -> list[str]:
        async with client.lock:
            return await anyio.to_thread.run_sync(client.session.after_call, name, args, error or "")

    # -- what an upstream asks of the client (elicitation, roots, sampling) ---------------------------
    async def _interactive(self, ctx, up: Upstream, what: str, send, params):
        """`send(input_responses, request_state)` until the upstream answers. An upstream's
        `InputRequiredResult` (2026-07-28) goes to a 2026-07-28 client that can answer every request
        in it (the client sends the request again with its answers, relayed as they come); otherwise
        the gateway answers each request itself: forwarded to a handshake-era client that declared
        the capability, or declined with the reason in `_meta["pulse/declined"]`."""
        from mcp.shared.exceptions import MCPError

        responses = getattr(params, "input_responses", None)
        state = getattr(params, "request_state", None)
        for _ in range(MAX_INPUT_ROUNDS):
            result = await send(responses, state)
            if not isinstance(result, types.InputRequiredResult):
                return result
            asks = result.input_requests or {}
            modern = getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS
            if modern and all(self._client_can(ctx, r) for r in asks.values()):
                return result
            responses = {k: await self._answer(ctx, up, r) for k, r in asks.items()}
            state = result.request_state
        raise MCPError(
            types.INTERNAL_ERROR, f"{what!r}: upstream {up.name!r} asked for input {MAX_INPUT_ROUNDS} times"
        )

    @staticmethod
    def _client_can(ctx, req) -> bool:
        session = getattr(ctx, "session", None)
        if session is None:
            return False
        if isinstance(req, types.ElicitRequest):
            cap = types.ClientCapabilities(elicitation=types.ElicitationCapability())
        elif isinstance(req, types.ListRootsRequest):
            cap = types.ClientCapabilities(roots=types.RootsCapability())
        else:
            cap = types.ClientCapabilities(sampling=types.SamplingCapability())
        return session.check_client_capability(cap)

    async def _answer(self, ctx, up: Upstream, req, related: bool = True):
        """One input request of `up`'s, answered through the client `ctx` came from (on the stream of
        the request `ctx` is, where `related`), or declined."""
        from mcp.shared.exceptions import MCPError
        from mcp.shared.message import ServerMessageMetadata

        session = getattr(ctx, "session", None)
        kind = {types.ElicitRequest: "elicitation", types.ListRootsRequest: "roots"}.get(
            type(req), "sampling"
        )
        if session is not None and self._client_can(ctx, req) and session.can_send_request:
            result_type = {
                "elicitation": types.ElicitResult,
                "roots": types.ListRootsResult,
                "sampling": types.CreateMessageResult,
            }[kind]
            meta = (
                ServerMessageMetadata(related_request_id=getattr(ctx, "request_id", None))
                if related
                else None
            )
            log.info("upstream %s asks the client for %s", up.name, kind)
            return await session.send_request(req, result_type, metadata=meta)
        why = (
            f"the client behind the Pulse gateway does not support {kind}"
            if session is None or not self._client_can(ctx, req)
            else f"the client behind the Pulse gateway cannot be asked for {kind} on this connection"
        )
        log.info("upstream %s asked for %s: declined (%s)", up.name, kind, why)
        if kind == "elicitation":
            return types.ElicitResult(action="decline", _meta={DECLINED_META: why})
        if kind == "roots":
            return types.ListRootsResult(roots=[], _meta={DECLINED_META: why})
        raise MCPError(types.INVALID_REQUEST, f"upstream {up.name!r} asked for {kind}: {why}")

    def _upstream_asks(self, up: Upstream, kind: str):
        """The callback for a handshake-era upstream's own request (elicitation/create, roots/list):
        forwarded to the client whose call to `up` is in flight; declined when there is none or when
        calls of several clients are (over stdio nothing says which call the request belongs to)."""

        async def ask(context, params=None):
            calls = list(self._inflight.get(up.name, {}).values())
            conns = {id(getattr(getattr(c, "session", None), "_connection", c)) for c in calls}
            req = types.ElicitRequest(params=params) if kind == "elicit" else types.ListRootsRequest()
            # roots outside a call (e.g. after roots/list_changed): the stdio client's, on its connection
            standalone = not conns and kind == "roots" and self._stdio_ctx is not None
            if len(conns) == 1 or standalone:
                try:
                    if standalone:
                        return await self._answer(self._stdio_ctx, up, req, related=False)
                    return await self._answer(calls[-1], up, req)
                except Exception as e:  # the client's error goes back to the upstream as one
                    return types.ErrorData(code=types.INTERNAL_ERROR, message=describe_error(e))
            why = (
                "no call to this upstream is in flight through the Pulse gateway"
                if not conns
                else "calls of several clients are in flight through the Pulse gateway (set serial: true)"
            )
            log.info("upstream %s asked for %s: declined (%s)", up.name, kind, why)
            if kind == "elicit":
                return types.ElicitResult(action="decline", _meta={DECLINED_META: why})
            return types.ErrorData(code=types.INVALID_REQUEST, message=f"roots unavailable: {why}")

        return ask

    async def roots_changed(self, ctx, params) -> None:
        """A 2025-11-25 stdio client's roots changed: tell the 2025-11-25 upstreams, which ask again
        (answered from this client). Over HTTP each client has its own roots, so none is forwarded."""
        if self.cfg.transport != "stdio":
            return
        self._stdio_ctx = ctx
        for up in self.upstreams:
            client = up.client
            if client is None or client.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
                continue
            try:
                await client.session.send_roots_list_changed()
            except Exception as e:  # one upstream's broken pipe must not stop the others'
                log.warning("upstream %s: roots/list_changed not sent: %s", up.name, describe_error(e))

    def _held(self, name: str, args: dict[str, Any], gate) -> types.CallToolResult:
        assert self.shared is not None
        token = f"hold-{uuid.uuid4().hex[:12]}"
        if len(self._tokens) > 10_000:  # bounded: the oldest tokens go first
            for k in list(self._tokens)[:5_000]:
                del self._tokens[k]
        self._tokens[token] = (call_key(name, args), self.shared.generation)
        meta = {EVIDENCE_META: [item_record(m) for m in gate.evidence], HOLD_META: token}
        if gate.action == "repeat":
            log.info("held %s again (unchanged retry)", name)
            return _error(still_held_message(name, [m.item_id for m in gate.evidence], token), meta)
        log.info("held %s: evidence %s", name, [m.item_id for m in gate.evidence])
        return _error(held_message(name, gate.message, token), meta)

    async def _memories(self) -> types.CallToolResult:
        assert self.shared is not None
        items = await anyio.to_thread.run_sync(self.shared.memories)
        if not items:
            text = f"Nothing is stored for user {self.cfg.user_id!r} yet."
        else:
            text = f"What Pulse remembers about user {self.cfg.user_id!r} ({len(items)}), newest first:\n" + (
                "\n".join(
                    f"- [{m['id']}] {m['kind']}: {m['text']}" + (f" (about {m['tool']})" if m["tool"] else "")
                    for m in items
                )
            )
        return types.CallToolResult(content=[_text(text)], structured_content={"memories": items})

    async def _forget(self, client: _Client, args: dict[str, Any]) -> types.CallToolResult:
        assert self.shared is not None
        extra = sorted(set(args) - {"id", "matching"})
        if extra or not all(isinstance(v, str) for v in args.values()):
            return _error(f"{FORGET}: arguments are strings id or matching (got {sorted(args)})")
        shared = self.shared
        try:
            async with client.lock:
                gone = await anyio.to_thread.run_sync(
                    lambda: shared.forget(args.get("id", ""), args.get("matching", ""))
                )
        except RememberError as e:
            return _error(f"{FORGET}: {e}")
        text = "Forgotten (no longer part of the user's memory):\n" + "\n".join(
            f"- [{m['id']}] {m['kind']}: {m['text']}" for m in gone
        )
        return types.CallToolResult(content=[_text(text)], structured_content={"forgotten": gone})

    async def _remember(self, client: _Client, args: dict[str, Any]) -> types.CallToolResult:
        session = client.session
        extra = sorted(set(args) - {"statement", "slot", "value", "tool"})
        if extra or not all(isinstance(v, str) for v in args.values()):
            return _error(
                f"{REMEMBER}: arguments are strings statement, slot, value, tool (got {sorted(args)})"
            )
        try:
            async with client.lock:
                out = await anyio.to_thread.run_sync(
                    lambda: session.remember(
                        args.get("statement", ""),
                        args.get("slot", ""),
                        args.get("value", ""),
                        args.get("tool", ""),
                    )
                )
        except RememberError as e:
            return _error(f"{REMEMBER}: {e}")
        if out["stored"]:
            text = "Stored in the user's memory:\n" + "\n".join(
                f"- [{m['id']}] {m['kind']}: {m['text']}" + (f" (about {m['tool']})" if m["tool"] else "")
                for m in out["stored"]
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

    # -- prompts and resources: Pulse's own, then every upstream's ------------------------------------
    async def _each_upstream(self, what: str, fetch) -> list[tuple[Upstream, Any]]:
        """`fetch(up)` for every upstream; one that is down (or fails) is left out of the listing."""
        out = []
        for up in self.upstreams:
            try:
                out.append((up, await fetch(up)))
            except Exception as e:  # the others' listings still come through
                log.warning("upstream %s: listing %s failed: %s", up.name, what, describe_error(e))
        return out

    async def _refresh_prompts(self) -> list[types.Prompt]:
        route: dict[str, tuple[Upstream, str]] = {}
        prompts = []
        for up, listed in await self._each_upstream("prompts", lambda u: u.list_prompts()):
            for p in listed:
                name = self.exposed(up, p.name)
                if name == PROMPT or name in route:
                    log.warning("upstream %s: prompt %r is listed twice; set a prefix", up.name, name)
                    continue
                route[name] = (up, p.name)
                prompts.append(p.model_copy(update={"name": name}) if name != p.name else p)
        self.prompt_route = route
        return prompts

    async def list_prompts(self, ctx, params) -> types.ListPromptsResult:
        own = types.Prompt(
            name=PROMPT, description="The user's current preferences from Pulse's long-term memory"
        )
        return types.ListPromptsResult(prompts=[own, *await self._refresh_prompts()])

    async def get_prompt(self, ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        from mcp.shared.exceptions import MCPError

        if params.name == PROMPT:
            text = await self._preferences()
            return types.GetPromptResult(
                description="The user's current preferences",
                messages=[types.PromptMessage(role="user", content=_text(text))],
            )
        if params.name not in self.prompt_route:
            await self._refresh_prompts()
        if params.name not in self.prompt_route:
            have = ", ".join(sorted([PROMPT, *self.prompt_route]))
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name!r}; this gateway has {have}")
        up, original = self.prompt_route[params.name]

        async def send(responses, state):
            return await up.request(
                original,
                lambda s: s.get_prompt(
                    original,
                    params.arguments,
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                ),
            )

        return await self._upstream_read(ctx, up, original, send, params)

    async def _upstream_read(self, ctx, up: Upstream, what: str, send, params):
        """A prompt or resource from `up` (what it asks of the client on the way, as for a call)."""
        from mcp.shared.exceptions import MCPError

        inflight = self._inflight.setdefault(up.name, {})
        inflight[id(ctx)] = ctx
        try:
            return await self._interactive(ctx, up, what, send, params)
        except UpstreamDown as e:
            raise MCPError(types.INTERNAL_ERROR, f"upstream {up.name!r} is unavailable: {e}") from None
        finally:
            inflight.pop(id(ctx), None)

    async def _refresh_resources(self) -> tuple[list[types.Resource], list[types.ResourceTemplate]]:
        from mcp.shared.uri_template import UriTemplate

        routes: dict[str, Upstream] = {}
        resources, templates, compiled = [], [], []
        for up, (listed, tpls) in await self._each_upstream("resources", lambda u: u.list_resources()):
            pre = up_prefix(up.name, up.cfg)
            for r in listed:
                uri = str(r.uri)
                if uri in (RESOURCE, MEMORIES_RESOURCE) or uri in routes:
                    log.warning("upstream %s: resource %s is listed twice; the first is served", up.name, uri)
                    continue
                routes[uri] = up
                resources.append(r.model_copy(update={"name": pre + r.name}) if pre else r)
            for t in tpls:
                templates.append(t.model_copy(update={"name": pre + t.name}) if pre else t)
                try:
                    compiled.append((up, UriTemplate.parse(t.uri_template)))
                except Exception as e:  # a template the SDK cannot parse is listed but never matched
                    log.warning("upstream %s: template %r: %s", up.name, t.uri_template, describe_error(e))
        self.uri_route, self.templates = routes, compiled
        return resources, templates

    async def list_resources(self, ctx, params) -> types.ListResourcesResult:
        own = [
            types.Resource(
                name="preferences",
                uri=RESOURCE,
                mime_type="text/plain",
                description="The user's current preferences from Pulse's long-term memory",
            ),
            types.Resource(
                name="memories",
                uri=MEMORIES_RESOURCE,
                mime_type="application/json",
                description="Everything Pulse remembers about the user, with ids (for pulse_forget)",
            ),
        ]
        resources, _ = await self._refresh_resources()
        return types.ListResourcesResult(resources=[*own, *resources])

    async def list_resource_templates(self, ctx, params) -> types.ListResourceTemplatesResult:
        _, templates = await self._refresh_resources()
        return types.ListResourceTemplatesResult(resource_templates=templates)

    def _resource_upstream(self, uri: str) -> Upstream | None:
        up = self.uri_route.get(uri)
        if up is not None:
            return up
        for up, tpl in self.templates:
            if tpl.match(uri) is not None:
                return up
        return None

    async def read_resource(self, ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        from mcp.shared.exceptions import MCPError

        uri = str(params.uri)
        if uri == MEMORIES_RESOURCE:
            assert self.shared is not None
            items = await anyio.to_thread.run_sync(self.shared.memories)
            return types.ReadResourceResult(
                contents=[
                    types.TextResourceContents(
                        uri=MEMORIES_RESOURCE, mime_type="application/json", text=json.dumps(items, indent=1)
                    )
                ]
            )
        if uri == RESOURCE:
            text = await self._preferences()
            return types.ReadResourceResult(
                contents=[types.TextResourceContents(uri=RESOURCE, mime_type="text/plain", text=text)]
            )
        up = self._resource_upstream(uri)
        if up is None:
            await self._refresh_resources()
            up = self._resource_upstream(uri)
        if up is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"unknown resource {uri!r}: no upstream lists it or a template matching it "
                f"(Pulse's own: {RESOURCE!r}, {MEMORIES_RESOURCE!r})",
            )

        async def send(responses, state):
            return await up.request(
                uri,
                lambda s: s.read_resource(
                    uri, input_responses=responses, request_state=state, allow_input_required=True
                ),
            )

        return await self._upstream_read(ctx, up, uri, send, params)

    async def _preferences(self) -> str:
        assert self.shared is not None
        return await anyio.to_thread.run_sync(self.shared.preferences)

    def server(self):
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
