"""The candidate call and the memory snapshot as the policy sees them on real tools (`gate_view`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from pulse.agent.schema import ArgMapper, SchemaTool
from pulse.core.gold import BINDING_KINDS, user_stated
from pulse.core.records import Event, MemoryItem
from pulse.core.values import allows, canonical, same_value

# argument kinds whose values are compared (and shown) in canonical form
_TYPED = ("domain", "email", "number", "date", "set")


def gate_view(
    event: Event,
    snapshot: Sequence[MemoryItem],
    before: Sequence[Event],
    tools: Mapping[str, SchemaTool],
    mapper: ArgMapper,
    scope_items: Callable[[], list[MemoryItem]],
) -> tuple[Event, list[MemoryItem]]:
    """The call `event` and `snapshot` as the policy sees them at the gate.

    Memory slots are mapped onto the call's arguments (by name or meaning, `mapper`), values are
    compared by the argument's type, typed arguments are in canonical form, and no item contradicting
    a value the user stated in `before` (the prefix before the call) is kept: a value the user stated
    always wins. A free-text argument that commits the task's result (kind `text`, e.g. an answer)
    speaks for the request's scoped preferences (`scope_items()`, read only where needed) that no
    argument of any tool names: each must occur in it. Returns the call with its arguments as shown
    and the items the policy sees.
    """
    tool = tools.get(event.tool)
    kinds = {a.name: a.kind for a in tool.args} if tool else {}
    args = {k: (canonical(kinds[k], v) if kinds.get(k) in _TYPED else v) for k, v in event.args.items()}
    stated = user_stated(list(before))
    named = {a.name for t in tools.values() for a in t.args}
    text_args = [k for k in args if kinds.get(k) == "text"]
    out: list[MemoryItem] = []
    for m in snapshot:
        if not m.slot or m.kind not in BINDING_KINDS:
            out.append(m)
            continue
        a = mapper.arg_for(event.tool, m.slot, m.topic, tuple(event.args))
        if (
            (a is None or a.name not in args)
            and text_args
            and m.slot not in named
            and any(m.item_id == x.item_id for x in scope_items())
        ):
            a = tool.arg(text_args[0]) if tool else None
        if a is None or a.name not in args:
            out.append(m)
            continue
        now, kind = args[a.name], kinds.get(a.name, "string")
        said = stated.get(a.name, "")
        if said and said != "?" and not allows(m.value, said, kind or "string"):
            continue  # the user stated another value in this task: it wins
        value = (
            now
            if allows(m.value, now, kind or "string")
            or (kind == "text" and same_value(kind, _said_value(m), now))
            else (canonical(kind, m.value) if kind in _TYPED else m.value)
        )
        out.append(replace(m, slot=a.name, value=value))
    return replace(event, args=args), out


def _said_value(m: MemoryItem) -> str:
    """A fact's value as its sentence states it ("my preferred option is rating 4.6+ ..." keeps the
    words a short slot value may have cut): the text after "is", else the slot value."""
    quote = m.provenance.quote or m.text
    low = quote.lower()
    i = low.rfind(" is ")
    return (
        quote[i + 4 :].strip().rstrip(".") if i >= 0 and m.value and m.value.lower() in low[i:] else m.value
    )
