"""What an upstream asks of the client while serving a request (elicitation, roots, sampling).

A 2026-07-28 upstream's `InputRequiredResult` goes to a 2026-07-28 client that declared every
capability it needs (the client sends the request again with its answers); otherwise the gateway
answers each request itself: forwarded to a 2025-11-25 client that declared the capability
(elicitation/create, roots/list on the request's stream), or declined with the reason in
`_meta["pulse/declined"]`. A 2025-11-25 upstream's own elicitation/roots requests go to the one
client with a request to it in flight (declined when there is none, or several).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pulse.serve.names import DECLINED_META
from pulse.serve.upstream import Upstream, describe_error

log = logging.getLogger("pulse.serve")

MAX_INPUT_ROUNDS = 8  # rounds of an upstream's input requests the gateway answers for one request


def client_can(ctx, req) -> bool:
    """Whether the client behind request `ctx` declared the capability that `req` needs."""
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


class ClientRequests:
    """Relays the upstreams' requests of the client, and knows which requests are in flight to each
    upstream (where a handshake-era upstream's own request goes).

    Args: `transport` ("stdio" or "http") and the `upstreams`. `interactive(...)` sends one request
    to an upstream until it answers; `callbacks(up)` are the handlers of `up`'s own requests;
    `in_flight(up, ctx)` marks a request to `up` while it runs. Raises the SDK's `MCPError` when an
    upstream asks more than `MAX_INPUT_ROUNDS` times, or for sampling the client cannot answer.
    """

    def __init__(self, transport: str, upstreams: Sequence[Upstream]):
        self.transport = transport
        self.upstreams = upstreams
        self.inflight: dict[str, dict[int, Any]] = {}  # upstream -> calls in flight (request contexts)
        self.stdio_ctx: Any = None  # the stdio client's latest request (its connection asks for roots)

    @contextmanager
    def in_flight(self, up: Upstream, ctx) -> Iterator[None]:
        """The request `ctx` to `up` is in flight inside the block."""
        inflight = self.inflight.setdefault(up.name, {})
        inflight[id(ctx)] = ctx
        try:
            yield
        finally:
            inflight.pop(id(ctx), None)

    def callbacks(self, up: Upstream) -> dict[str, Any]:
        """The client callbacks of `up`'s connection: its own elicitation and roots requests."""
        return {
            "elicitation_callback": self._upstream_asks(up, "elicit"),
            "list_roots_callback": self._upstream_asks(up, "roots"),
        }

    async def interactive(self, ctx, up: Upstream, what: str, send, params):
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
            if modern and all(client_can(ctx, r) for r in asks.values()):
                return result
            responses = {k: await self.answer(ctx, up, r) for k, r in asks.items()}
            state = result.request_state
        raise MCPError(
            types.INTERNAL_ERROR, f"{what!r}: upstream {up.name!r} asked for input {MAX_INPUT_ROUNDS} times"
        )

    async def answer(self, ctx, up: Upstream, req, related: bool = True):
        """One input request of `up`'s, answered through the client `ctx` came from (on the stream of
        the request `ctx` is, where `related`), or declined."""
        from mcp.shared.exceptions import MCPError
        from mcp.shared.message import ServerMessageMetadata

        session = getattr(ctx, "session", None)
        kind = {types.ElicitRequest: "elicitation", types.ListRootsRequest: "roots"}.get(
            type(req), "sampling"
        )
        if session is not None and client_can(ctx, req) and session.can_send_request:
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
            if session is None or not client_can(ctx, req)
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
            calls = list(self.inflight.get(up.name, {}).values())
            conns = {id(getattr(getattr(c, "session", None), "_connection", c)) for c in calls}
            req = types.ElicitRequest(params=params) if kind == "elicit" else types.ListRootsRequest()
            # roots outside a call (e.g. after roots/list_changed): the stdio client's, on its connection
            standalone = not conns and kind == "roots" and self.stdio_ctx is not None
            if len(conns) == 1 or standalone:
                try:
                    if standalone:
                        return await self.answer(self.stdio_ctx, up, req, related=False)
                    return await self.answer(calls[-1], up, req)
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
        if self.transport != "stdio":
            return
        self.stdio_ctx = ctx
        for up in self.upstreams:
            client = up.client
            if client is None or client.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
                continue
            try:
                await client.session.send_roots_list_changed()
            except Exception as e:  # one upstream's broken pipe must not stop the others'
                log.warning("upstream %s: roots/list_changed not sent: %s", up.name, describe_error(e))
