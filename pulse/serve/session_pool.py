"""The gateway's sessions: one memory per user (`SharedMemory`), and one `GatewaySession` (its own
memory agent, event stream, holds and confirmations) per MCP session over it.

Which session a request gets (the gateway's module docstring, "Sessions"): a request naming its
session (`_meta["pulse/session"]` or the HTTP header `Pulse-Session`) gets that named session on any
transport (the `MAX_NAMED_SESSIONS` most recently used stay open; an older one is closed, i.e. written
back, and starts afresh); otherwise stdio has one session, streamable HTTP one per `Mcp-Session-Id`,
and a sessionless HTTP request a fresh one for that one call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from pulse.serve.config import ServeConfig
from pulse.serve.names import SESSION_HEADER, SESSION_META
from pulse.serve.session import GatewaySession, SharedMemory
from pulse.serve.upstream import describe_error

log = logging.getLogger("pulse.serve")

MAX_NAMED_SESSIONS = 256  # named sessions kept open; the least recently used beyond that is closed


def session_key(ctx) -> str:
    """The client's own session name: the `Pulse-Session` header or `_meta["pulse/session"]`."""
    meta = getattr(ctx, "meta", None) or {}
    key = meta.get(SESSION_META) if isinstance(meta, dict) else None
    if not key:
        req = getattr(ctx, "request", None)
        headers = getattr(req, "headers", None)
        key = headers.get(SESSION_HEADER) if headers is not None else None
    return str(key)[:200] if key else ""


@dataclass
class OpenSession:
    """One MCP session: its memory agent and the lock that orders its agent's events."""

    session: GatewaySession
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class SessionPool:
    """The user's shared memory and the open sessions over it.

    Args: `cfg` (`ServeConfig`) and the memory `policy` (None: built from `cfg`). `start(tools)` opens
    the shared memory for the upstreams' `tools` (and, over stdio, the one session); `client_for(ctx)`
    is a request's `OpenSession`; `close_all()` writes every session back and closes the memory.
    `shared` is None before `start`.
    """

    def __init__(self, cfg: ServeConfig, policy=None):
        self.cfg = cfg
        self.policy = policy
        self.shared: SharedMemory | None = None
        self.clients: list[OpenSession] = []  # open sessions (closed as their MCP session ends)
        self._named: dict[str, OpenSession] = {}  # Pulse-Session name -> its session
        self._stdio: OpenSession | None = None
        self._new_lock = anyio.Lock()  # one session created at a time per key

    @property
    def session(self) -> GatewaySession | None:
        """The stdio client's session (the only one over stdio)."""
        return self._stdio.session if self._stdio is not None else None

    async def start(self, tools: Sequence[Any]) -> None:
        """Open the shared memory (reading `tools`' schemas) and, over stdio, the one session."""
        cfg, policy = self.cfg, self.policy
        self.shared = await anyio.to_thread.run_sync(lambda: SharedMemory(cfg, tools, policy))
        if cfg.transport == "stdio":
            self._stdio = await self._open("stdio")

    async def _open(self, label: str) -> OpenSession:
        shared = self.shared
        assert shared is not None
        client = OpenSession(await anyio.to_thread.run_sync(lambda: GatewaySession(shared, label)))
        self.clients.append(client)
        return client

    async def _close(self, client: OpenSession) -> None:
        with anyio.CancelScope(shield=True):
            async with client.lock:
                if client in self.clients:
                    self.clients.remove(client)
                await anyio.to_thread.run_sync(client.session.close)

    async def close_all(self) -> None:
        """Write back and close every open session, then the shared memory (never cancelled midway)."""
        with anyio.CancelScope(shield=True):
            for client in list(self.clients):
                try:
                    await self._close(client)
                except Exception as e:  # one session's writeback failing must not lose the others'
                    log.error("closing session %s: %s", client.session.label, describe_error(e))
            if self.shared is not None:
                await anyio.to_thread.run_sync(self.shared.close)

    async def client_for(self, ctx) -> OpenSession:
        """This request's session (module docstring)."""
        key = session_key(ctx)
        if key:  # the client names its sessions (any transport: e.g. one per task over one stdio pipe)
            return await self._named_session(key)
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

    async def _named_session(self, key: str) -> OpenSession:
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
