"""Prompts and resources: Pulse's own (the prompt `pulse_preferences`, the resources
`pulse://preferences` and `pulse://memories`), then every upstream's, listed under the names the
client sees and got or read through the upstream that lists them (a resource by URI or template; a
URI two upstreams list is served by the first). An upstream that is down is left out of a listing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import mcp_types as types

from pulse.serve.client_requests import ClientRequests
from pulse.serve.config import up_prefix
from pulse.serve.memory_tools import MemoryTools, text_block
from pulse.serve.names import MEMORIES_RESOURCE, PROMPT, RESOURCE, exposed
from pulse.serve.upstream import Upstream, UpstreamDown, describe_error

log = logging.getLogger("pulse.serve")

OWN_RESOURCES = (
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
)


async def _each_upstream(upstreams: Sequence[Upstream], what: str, fetch) -> list[tuple[Upstream, Any]]:
    """`fetch(up)` for every upstream; one that is down (or fails) is left out of the listing."""
    out = []
    for up in upstreams:
        try:
            out.append((up, await fetch(up)))
        except Exception as e:  # the others' listings still come through
            log.warning("upstream %s: listing %s failed: %s", up.name, what, describe_error(e))
    return out


class Listings:
    """The prompts/* and resources/* handlers.

    Args: the `upstreams`, the gateway's `MemoryTools` (the content of Pulse's own prompt and
    resources) and `ClientRequests` (what an upstream asks of the client while it answers). Each
    listing asks the upstreams afresh and remembers which one serves each name; an unknown prompt or
    resource raises the SDK's `MCPError` (INVALID_PARAMS), an upstream that is down INTERNAL_ERROR.
    """

    def __init__(self, upstreams: Sequence[Upstream], memory: MemoryTools, requests: ClientRequests):
        self.upstreams = upstreams
        self.memory = memory
        self.requests = requests
        self.prompt_route: dict[str, tuple[Upstream, str]] = {}
        self.uri_route: dict[str, Upstream] = {}
        self.templates: list[tuple[Upstream, Any]] = []  # (upstream, compiled uri template)

    # -- prompts ----------------------------------------------------------------------------------
    async def _refresh_prompts(self) -> list[types.Prompt]:
        route: dict[str, tuple[Upstream, str]] = {}
        prompts = []
        for up, listed in await _each_upstream(self.upstreams, "prompts", lambda u: u.list_prompts()):
            for p in listed:
                name = exposed(up, p.name)
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
            text = await self.memory.preferences()
            return types.GetPromptResult(
                description="The user's current preferences",
                messages=[types.PromptMessage(role="user", content=text_block(text))],
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

        try:
            with self.requests.in_flight(up, ctx):
                return await self.requests.interactive(ctx, up, what, send, params)
        except UpstreamDown as e:
            raise MCPError(types.INTERNAL_ERROR, f"upstream {up.name!r} is unavailable: {e}") from None

    # -- resources --------------------------------------------------------------------------------
    async def _refresh_resources(self) -> tuple[list[types.Resource], list[types.ResourceTemplate]]:
        from mcp.shared.uri_template import UriTemplate

        routes: dict[str, Upstream] = {}
        resources, templates, compiled = [], [], []
        for up, (listed, tpls) in await _each_upstream(
            self.upstreams, "resources", lambda u: u.list_resources()
        ):
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
        resources, _ = await self._refresh_resources()
        return types.ListResourcesResult(resources=[*OWN_RESOURCES, *resources])

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
        if uri in (RESOURCE, MEMORIES_RESOURCE):
            return await self._own_resource(uri)
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

    async def _own_resource(self, uri: str) -> types.ReadResourceResult:
        if uri == MEMORIES_RESOURCE:
            items = await self.memory.memory_list()
            content = types.TextResourceContents(
                uri=MEMORIES_RESOURCE, mime_type="application/json", text=json.dumps(items, indent=1)
            )
        else:
            text = await self.memory.preferences()
            content = types.TextResourceContents(uri=RESOURCE, mime_type="text/plain", text=text)
        return types.ReadResourceResult(contents=[content])
