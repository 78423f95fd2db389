"""Which upstream serves each tool name a client sees (an upstream's tools behind its prefix), and the
tools listed to the client: each field as the upstream sent it, the name prefixed if configured."""

from __future__ import annotations

from collections.abc import Sequence

import mcp_types as types

from pulse.core.errors import PulseUserError
from pulse.serve.config import up_prefix
from pulse.serve.names import OWN_TOOLS, exposed
from pulse.serve.upstream import Upstream


class GatewayError(PulseUserError, RuntimeError):
    """The gateway cannot start (an upstream is unreachable, two upstreams share a tool name)."""


class ToolRoutes:
    """The upstream tools behind the gateway's one name space.

    Args: the `upstreams`. `add()` takes in the tools they list once started (raises GatewayError
    when one is named like a Pulse tool or two upstreams list one name without a prefix); then
    `route`, `original` and `tool_defs` map the name the client sees to its upstream, the upstream's
    own name and its tool, `read_only` holds the tools never gated (MCP `readOnlyHint`, or the
    upstream's `read_only_tools`), and `tools()` is the listing.
    """

    def __init__(self, upstreams: Sequence[Upstream]) -> None:
        self.upstreams = upstreams
        self.route: dict[str, Upstream] = {}  # the name the client sees -> its upstream
        self.original: dict[str, str] = {}  # the name the client sees -> the upstream's own name
        self.tool_defs: dict[str, types.Tool] = {}  # the name the client sees -> the upstream's tool
        self.read_only: set[str] = set()

    def add(self) -> None:
        """Route every tool the upstreams list (their last listing)."""
        for up in self.upstreams:
            for t in up.tools:
                name = exposed(up, t.name)
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

    def tools(self) -> list[types.Tool]:
        """Every upstream's tools as the client sees them: each field as the upstream sent it
        (title, annotations, outputSchema, execution, icons, _meta), the name prefixed if configured."""
        out = []
        for up in self.upstreams:
            pre = up_prefix(up.name, up.cfg)
            out.extend(t.model_copy(update={"name": pre + t.name}) if pre else t for t in up.tools)
        return out
