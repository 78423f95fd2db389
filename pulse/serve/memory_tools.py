"""Pulse's own tools: `pulse_remember` (record what the user states), `pulse_forget` (remove a memory)
and `pulse_memories` (list them), their MCP definitions, and the user's memory as text for the prompt
and resources (pulse/serve/listings.py). The replies' text blocks and tool errors are built here too.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types

from pulse.serve.names import FORGET, MEMORIES, REMEMBER
from pulse.serve.session import RememberError
from pulse.serve.session_pool import OpenSession, SessionPool

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

OWN_TOOL_DEFS = (REMEMBER_TOOL, FORGET_TOOL, MEMORIES_TOOL)


def text_block(text: str) -> types.TextContent:
    """One text content block."""
    return types.TextContent(type="text", text=text)


def tool_error(text: str, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    """A tool error (`isError`) whose content is `text`, with `_meta` where given."""
    extra = {"_meta": meta} if meta else {}
    return types.CallToolResult(content=[text_block(text)], is_error=True, **extra)


def _listed(m: dict[str, str]) -> str:
    return f"- [{m['id']}] {m['kind']}: {m['text']}" + (f" (about {m['tool']})" if m["tool"] else "")


def _how_it_binds(u: dict[str, Any]) -> str:
    """What an understood fact holds, said after it: nothing to add for a standing wish or refusal."""
    if u.get("this_session_only"):
        return " (this session only)"
    return "" if u["binds"] else " (not binding: kept as context)"


def remember_text(out: dict[str, Any]) -> str:
    """The reply to `pulse_remember` for `GatewaySession.remember`'s answer `out`: what was stored (or
    merged, or why nothing was), what was understood and how the statement was read."""
    parts = []
    if out["stored"]:
        parts.append("Stored in the user's memory:\n" + "\n".join(_listed(m) for m in out["stored"]))
    if out.get("this_session"):
        parts.append(
            "Kept for this session only (a one-off: it holds this session's calls, never a later task's):\n"
            + "\n".join(_listed(m) for m in out["this_session"])
        )
    if not parts and out["merged"]:
        parts.append(f"Already remembered ({', '.join(out['merged'])}); nothing new stored.")
    elif not parts:
        why = "; ".join(out["rejected"]) or "no standing preference stated"
        parts.append(f"Nothing stored ({why}); kept as context for this session's next calls.")
    text = "\n".join(parts)
    if out.get("understood"):
        text += "\nUnderstood:\n" + "\n".join(f"- {u['said']}{_how_it_binds(u)}" for u in out["understood"])
    read = ", ".join(f"{k}={v}" for k, v in out["read_as"].items())
    if read:
        text += f"\nRead as: {read}"
    return text


class MemoryTools:
    """The user's memory as the client reaches it: the three `pulse_*` tools and the text behind the
    `pulse_preferences` prompt and the `pulse://` resources.

    Args: the gateway's `SessionPool` (its shared memory) and the `user_id` replies name. Each tool
    method takes the calling session and the call's arguments and returns the `CallToolResult` (text
    plus `structured_content`); wrong arguments or a refused statement are a tool error, never raised.
    """

    def __init__(self, pool: SessionPool, user_id: str):
        self.pool = pool
        self.user_id = user_id

    async def memories(self) -> types.CallToolResult:
        """`pulse_memories`: everything remembered about the user, newest first."""
        items = await self.memory_list()
        if not items:
            text = f"Nothing is stored for user {self.user_id!r} yet."
        else:
            text = f"What Pulse remembers about user {self.user_id!r} ({len(items)}), newest first:\n" + (
                "\n".join(_listed(m) for m in items)
            )
        return types.CallToolResult(content=[text_block(text)], structured_content={"memories": items})

    async def forget(self, client: OpenSession, args: dict[str, Any]) -> types.CallToolResult:
        """`pulse_forget`: remove the memory with `id`, or the ones whose words match `matching`."""
        shared = self.pool.shared
        assert shared is not None
        extra = sorted(set(args) - {"id", "matching"})
        if extra or not all(isinstance(v, str) for v in args.values()):
            return tool_error(f"{FORGET}: arguments are strings id or matching (got {sorted(args)})")
        try:
            async with client.lock:
                gone = await anyio.to_thread.run_sync(
                    lambda: shared.forget(args.get("id", ""), args.get("matching", ""))
                )
        except RememberError as e:
            return tool_error(f"{FORGET}: {e}")
        text = "Forgotten (no longer part of the user's memory):\n" + "\n".join(
            f"- [{m['id']}] {m['kind']}: {m['text']}" for m in gone
        )
        return types.CallToolResult(content=[text_block(text)], structured_content={"forgotten": gone})

    async def remember(self, client: OpenSession, args: dict[str, Any]) -> types.CallToolResult:
        """`pulse_remember`: the user's statement, read and committed through `client`'s session."""
        session = client.session
        extra = sorted(set(args) - {"statement", "slot", "value", "tool"})
        if extra or not all(isinstance(v, str) for v in args.values()):
            return tool_error(
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
            return tool_error(f"{REMEMBER}: {e}")
        return types.CallToolResult(content=[text_block(remember_text(out))], structured_content=out)

    async def memory_list(self) -> list[dict[str, str]]:
        """Every memory of the user as records (id, kind, text, tool, ...), newest first."""
        shared = self.pool.shared
        assert shared is not None
        return await anyio.to_thread.run_sync(shared.memories)

    async def preferences(self) -> str:
        """The user's current preferences as text (the prompt's and `pulse://preferences`' content)."""
        shared = self.pool.shared
        assert shared is not None
        return await anyio.to_thread.run_sync(shared.preferences)
