"""Record/event builders shared by the memory tests (imported by name: no package needed)."""

from __future__ import annotations

from pulse.core.records import Event, MemoryItem, Provenance


def pref(
    item_id: str,
    text: str,
    user: str = "u1",
    slot: str = "",
    value: str = "",
    topic: str = "",
    entities: tuple[str, ...] = (),
    valid_from: str = "2025-01-01T00:00:00Z",
    kind: str = "preference",
    **kw,
) -> MemoryItem:
    return MemoryItem(
        item_id,
        kind,
        f"user:{user}",
        text,
        slot=slot,
        value=value,
        topic=topic,
        entities=entities,
        provenance=kw.pop("provenance", Provenance("history")),
        valid_from=valid_from,
        **kw,
    )


def user_msg(eid: str, text: str, step: int = 0, time: str = "2025-03-01T00:00:00Z", **args: str) -> Event:
    return Event("message", step, time=time, text=text, role="user", event_id=eid, args=dict(args))


def tool_result(
    eid: str, tool: str, text: str = "", step: int = 1, time: str = "2025-03-01T00:01:00Z", **args: str
) -> Event:
    return Event("tool_result", step, time=time, text=text, tool=tool, event_id=eid, args=dict(args))


def call(tool: str, step: int = 2, **args: str) -> Event:
    return Event("candidate_call", step, tool=tool, args=dict(args), event_id=f"c{step}")
