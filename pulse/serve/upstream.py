"""One upstream MCP server, kept connected by its own task (so it can be restarted after a crash).

The official client (`mcp.Client`) holds a task group, which anyio requires to be entered and left
in one task. So each upstream has an owner task that enters the client, publishes it, and waits;
a request handler that sees the connection die (`MCPError` CONNECTION_CLOSED, a broken stream)
marks the upstream down and wakes the owner, which leaves the dead client and, on the next call
that needs it, connects again. A call to a down upstream that cannot be restarted returns a clear
error naming the upstream and why; the gateway and the other upstreams keep serving.
"""

from __future__ import annotations

import logging
import math
import os
from typing import Any

import anyio
import mcp_types as types

from pulse.serve.config import UpstreamConfig

log = logging.getLogger("pulse.serve")


class UpstreamDown(RuntimeError):
    """The upstream's connection is gone and could not be re-established. `lost`: the connection
    died during this call (the call may be retried once the upstream restarts); else it timed out
    or could not (re)start."""

    def __init__(self, why: str, lost: bool = False):
        super().__init__(why)
        self.lost = lost


def _target(cfg: UpstreamConfig):
    if cfg.url:
        return cfg.url
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(
        command=cfg.command, args=list(cfg.args), env={**os.environ, **cfg.env} or None, cwd=cfg.cwd or None
    )


def _connection_lost(e: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError

    if isinstance(e, MCPError):
        return e.code == types.CONNECTION_CLOSED
    return isinstance(e, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError))


def describe_error(e: BaseException) -> str:
    """One line for an exception (an ExceptionGroup names its first leaf)."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return f"{type(e).__name__}: {e}"


class Upstream:
    """One upstream MCP server of the gateway (the module docstring): `own()` runs as its owner task in the
    gateway's task group and keeps it connected, `wait_ready()` waits for the first attempt, `call_tool`,
    `list_prompts`, `list_resources` and `request` talk to it under the call timeout (reconnecting once after
    a lost connection), `stop()` ends it. `tools` is its last listing, `error` why it is down."""

    def __init__(self, name: str, cfg: UpstreamConfig, start_timeout_s: float, call_timeout_s: float):
        self.cfg = cfg
        self.name = name
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.tools: list[types.Tool] = []  # the last listing (kept while the upstream is down)
        self.client: Any = None
        self.error = ""  # why the upstream is down ("" while connected)
        self.restarts = 0
        self._want_up = anyio.Event()
        self._down = anyio.Event()
        self._ready = anyio.Event()
        self._stopping = False
        self._restarting = False
        # one call at a time where the upstream needs it (`serial`); MCP multiplexes otherwise
        self._serial = anyio.Lock() if cfg.serial else None
        # the upstream's own requests to its client (handshake-era upstreams ask for elicitation,
        # roots and sampling this way): set by the gateway, which forwards them to its client
        self.callbacks: dict[str, Any] = {}

    @property
    def where(self) -> str:
        return self.cfg.url or " ".join([self.cfg.command, *self.cfg.args])

    # -- the owner task ---------------------------------------------------------------------------
    async def own(self) -> None:
        """Run in the gateway's task group until `stop()`: connect when asked, hold, reconnect."""
        from mcp import Client

        self._want_up.set()
        while not self._stopping:
            await self._want_up.wait()
            if self._stopping:
                break
            self._want_up = anyio.Event()
            connected = False
            try:
                # one scope for the connection's whole life: its deadline bounds the start only
                with anyio.CancelScope(deadline=anyio.current_time() + self.start_timeout_s) as scope:
                    async with Client(
                        _target(self.cfg), cache=None, mode=self.cfg.mode, **self.callbacks
                    ) as client:
                        self.tools = list((await client.list_tools()).tools)
                        scope.deadline = math.inf
                        self.client, self.error, connected = client, "", True
                        self._restarting = False
                        self._ready.set()
                        try:
                            await self._down.wait()
                        finally:
                            self.client = None
                if scope.cancelled_caught and not connected:
                    self.error = (
                        f"could not start ({self.where}): no answer within {self.start_timeout_s:g} s"
                    )
            except Exception as e:  # a failed start, or a dead process that does not close cleanly
                if not self.error:
                    self.error = f"could not start ({self.where}): {describe_error(e)}"
                log.warning("upstream %s: %s", self.name, self.error)
            self._down = anyio.Event()
            if not connected:  # wake waiters: the attempt failed with self.error
                self._restarting = False
                self._ready.set()

    async def wait_ready(self) -> None:
        """Until the first connection attempt has finished (connected or failed)."""
        await self._ready.wait()

    def stop(self) -> None:
        self._stopping = True
        self._down.set()
        self._want_up.set()

    def mark_down(self, why: str) -> None:
        if self.client is not None:
            self.error = why
            self.client = None
            self._down.set()

    async def _connected(self) -> Any:
        if self.client is not None:
            return self.client
        # down: ask the owner for a fresh connection (once, however many calls are waiting) and wait
        # for the attempt's outcome
        if not self._restarting:
            self._restarting = True
            self._ready = anyio.Event()
            self._want_up.set()
            self.restarts += 1
        await self._ready.wait()
        if self.client is None:
            raise UpstreamDown(self.error or "not connected")
        return self.client

    # -- requests ---------------------------------------------------------------------------------
    async def request(self, what: str, send) -> Any:
        """`await send(client.session)` under the call timeout (and `serial`): the upstream's answer
        as it sent it; MCPError from a live upstream propagates unchanged; a lost connection is
        `UpstreamDown` (the next request restarts the upstream)."""
        client = await self._connected()
        try:
            with anyio.fail_after(self.call_timeout_s):
                if self._serial is None:
                    return await send(client.session)
                async with self._serial:
                    return await send(client.session)
        except TimeoutError:
            raise UpstreamDown(f"no answer to {what!r} within {self.call_timeout_s:g} s") from None
        except Exception as e:
            if _connection_lost(e):
                why = f"the connection was lost during {what!r} ({describe_error(e)})"
                self.mark_down(why)
                raise UpstreamDown(why, lost=True) from None
            raise

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        progress=None,
        input_responses=None,
        request_state: str | None = None,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """The upstream's result as it sent it: a `CallToolResult`, or (2026-07-28 upstreams) an
        `InputRequiredResult` asking for elicitation, roots or sampling before it can finish."""
        return await self.request(
            name,
            lambda s: s.call_tool(
                name,
                arguments,
                progress_callback=progress,
                input_responses=input_responses,
                request_state=request_state,
                allow_input_required=True,
                allow_claimed=True,
            ),
        )

    def _capable(self, what: str) -> bool:
        caps = self.client.session.server_capabilities if self.client is not None else None
        return caps is not None and getattr(caps, what, None) is not None

    async def list_resources(self) -> tuple[list[types.Resource], list[types.ResourceTemplate]]:
        """Every resource and template the upstream lists (all pages); none if it has no resources."""
        await self._connected()
        if not self._capable("resources"):
            return [], []
        res = await self._pages("resources/list", lambda s, p: s.list_resources(params=p), "resources")
        tpl = await self._pages(
            "resources/templates/list", lambda s, p: s.list_resource_templates(params=p), "resource_templates"
        )
        return res, tpl

    async def list_prompts(self) -> list[types.Prompt]:
        await self._connected()
        if not self._capable("prompts"):
            return []
        return await self._pages("prompts/list", lambda s, p: s.list_prompts(params=p), "prompts")

    async def _pages(self, what: str, send, field_name: str) -> list[Any]:
        out: list[Any] = []
        cursor = None
        for _ in range(100):  # a paginator that never ends cannot hang a listing
            page = await self.request(
                what, lambda s, c=cursor: send(s, types.PaginatedRequestParams(cursor=c))
            )
            out.extend(getattr(page, field_name))
            cursor = page.next_cursor
            if not cursor:
                break
        return out
