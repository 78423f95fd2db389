"""Which tool calls only read and which change something or commit a choice: the one classification.

Pulse gates (holds at the pre-commit gate for a decision) only calls that change state or commit a
choice; a read-only call (a search, a look-up) goes through without a hold. Anything else that needs
to know whether a call is read-only (e.g. running read-only calls speculatively) uses this module.

Where the kind comes from, first match wins:
1. MCP tool annotations (`readOnlyHint`, `destructiveHint`; the `mcp` SDK's `ToolAnnotations` or a
   plain dict): `readOnlyHint: true` -> read-only; `destructiveHint: true` or `readOnlyHint: false` ->
   state-changing;
2. a per-benchmark list (`read_only=` tool names, `state_changing=` tool names);
3. otherwise `default` (state-changing unless told: a call of unknown effect is gated).

API (small on purpose):
    kinds = CallKinds.build(tools=[...], read_only={"web_search"})   # tools: names, MCP tools, dicts
    kinds.kind("web_search")      -> "read_only"
    kinds.is_read_only("cancel")  -> False
    kinds.gated("open_website")   -> True   (== not is_read_only)
    kinds.as_dict()               -> {tool: kind} for the tools it was built from
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

CallKind = Literal["read_only", "state_changing"]
READ_ONLY: CallKind = "read_only"
STATE_CHANGING: CallKind = "state_changing"
KINDS: tuple[str, ...] = (READ_ONLY, STATE_CHANGING)


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def kind_from_annotations(annotations: Any) -> CallKind | None:
    """The kind MCP annotations state, or None when they state neither hint."""
    ro, destructive = _get(annotations, "readOnlyHint"), _get(annotations, "destructiveHint")
    if ro is True:
        return READ_ONLY
    if destructive is True or ro is False:
        return STATE_CHANGING
    return None


def _name_and_annotations(tool: Any) -> tuple[str, Any]:
    """A tool as a name, an MCP `Tool`, an OpenAI function schema or a dict with `name`/`annotations`."""
    if isinstance(tool, str):
        return tool, None
    fn = _get(tool, "function")
    if fn is not None:  # {"type": "function", "function": {...}}
        return str(_get(fn, "name") or ""), _get(fn, "annotations") or _get(tool, "annotations")
    return str(_get(tool, "name") or ""), _get(tool, "annotations")


@dataclass(frozen=True)
class CallKinds:
    """Tool name -> kind, with a default for tools it does not know."""

    known: Mapping[str, str] = field(default_factory=dict)
    default: CallKind = STATE_CHANGING

    def __post_init__(self) -> None:
        bad = {t: k for t, k in self.known.items() if k not in KINDS}
        if bad or self.default not in KINDS:
            raise ValueError(f"CallKinds: kinds must be one of {KINDS}; got {bad or self.default!r}")

    @classmethod
    def build(
        cls,
        tools: Iterable[Any] = (),
        read_only: Iterable[str] = (),
        state_changing: Iterable[str] = (),
        default: CallKind = STATE_CHANGING,
    ) -> CallKinds:
        """Annotations of `tools` first, then the lists, then `default` (see the module docstring)."""
        ro, sc = set(read_only), set(state_changing)
        overlap = ro & sc
        if overlap:
            raise ValueError(f"CallKinds: {sorted(overlap)} listed as both read-only and state-changing")
        known: dict[str, str] = {t: READ_ONLY for t in ro}
        known.update({t: STATE_CHANGING for t in sc})
        for tool in tools:
            name, ann = _name_and_annotations(tool)
            if not name:
                continue
            k = kind_from_annotations(ann)
            if k is not None:
                known[name] = k
            else:
                known.setdefault(name, default)
        return cls(known, default)

    def kind(self, tool: str) -> CallKind:
        """The kind of a tool's calls (the default for a tool not known)."""
        return self.known.get(tool, self.default)  # type: ignore[return-value]

    def is_read_only(self, tool: str) -> bool:
        """Whether the tool's calls are read-only."""
        return self.kind(tool) == READ_ONLY

    def gated(self, tool: str) -> bool:
        """Whether a call of `tool` is held at the pre-commit gate for a memory decision."""
        return not self.is_read_only(tool)

    def as_dict(self) -> dict[str, str]:
        """The known tools and their kinds, as a new dict."""
        return dict(self.known)

    def annotations(self, tool: str) -> dict[str, bool]:
        """MCP `ToolAnnotations` fields for serving `tool` (what an MCP server publishes)."""
        ro = self.is_read_only(tool)
        return {"readOnlyHint": ro, "destructiveHint": not ro}


GATE_ALL = CallKinds()  # no classification: every call is gated (the behaviour before this module)
