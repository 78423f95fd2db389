"""Reading people: a person's natural statement in, facts bound to tool arguments out.

    from pulse.reading import Schema, make_reader
    schema = Schema.from_json_tools(tools)            # OpenAI / MCP / compact tool schemas
    reader = make_reader("offline")                   # or "llm" with an EndpointConfig
    facts = reader.read("Never refund to a gift card; my card is fine.", schema)

One layer for Pulse and for every method's stand-in wherever the real system asks an LLM to read
(extraction from sessions, linking text to tools and arguments): what differs between methods is
what each stores, retrieves and delivers, never how well it reads. Back-ends: `offline`
(deterministic, `offline.py`) and `llm` (any OpenAI-compatible endpoint, `llm.py`). Scored by
`pulse eval-reading` on the annotated set in `eval/reading/data/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulse.core.statements import UNREAD
from pulse.reading.facts import ArgSpec, ReadFact, ReadingError, Schema
from pulse.registry import Registry

READERS: Registry[Any] = Registry(
    "reader",
    {"offline": "pulse.reading.offline:OfflineReader", "llm": "pulse.reading.llm:LLMReader"},
)


def make_reader(name: str = "offline", **kwargs: Any) -> Any:
    return READERS.get(name)(**kwargs)


# a value read by meaning counts as stated for the task at this confidence, or where the clause
# gives the argument a value in a construction (`OfflineReader.spoken_of`)
STATED_CONFIDENCE = 0.75


@dataclass(frozen=True)
class BoundReader:
    """A reader bound to one agent's tools: what Pulse's write path and the gateway call."""

    reader: Any
    schema: Schema

    def read(self, text: str, project: str = "", speaker: str = "user") -> list[ReadFact]:
        return self.reader.read(text, self.schema, speaker=speaker, project=project)

    def stated(self, text: str, project: str = "", speaker: str = "user") -> dict[str, str]:
        """What `text` (a request, a user message) states for this task per argument: the value read,
        or `UNREAD` where a clause gives the argument a value the reader could not bind or a value to
        avoid (`OfflineReader.spoken_of`). Habits and withdrawals state nothing for the task."""
        spoken = getattr(self.reader, "spoken_of", None)
        if spoken is None:
            from pulse.reading.offline import OfflineReader

            spoken = OfflineReader().spoken_of
        assigned = spoken(text, self.schema, speaker=speaker, project=project)
        out: dict[str, str] = {}
        facts = [
            f
            for f in self.read(text, project, speaker)
            if f.kind != "habit"
            and not f.withdraws
            # a loose match in a list of steps ("claim the costs back") is not a stated value
            and (f.confidence >= STATED_CONFIDENCE or f.argument in assigned)
        ]
        for f in sorted(facts, key=lambda f: f.polarity == "prefer"):  # a wanted value beats an avoided one
            out[f.argument] = f.value if f.polarity == "prefer" else UNREAD
        for arg in assigned:
            out.setdefault(arg, UNREAD)
        return out

    def link_tool(self, text: str, tools=None) -> str:
        """The tool `text` means (among `tools`, default all), "" when none clearly (the offline
        reader's meaning match; an llm reader links through the offline one)."""
        link = getattr(self.reader, "link_tool", None)
        if link is None:
            from pulse.reading.offline import OfflineReader

            link = OfflineReader().link_tool
        return link(text, self.schema, tools)


def bind_reader(reader: Any, tools: Any) -> BoundReader | None:
    """A run's reader bound to `tools` (SchemaTools or a suite's ToolSpecs); None when the run has no
    reader (`reader.name=rule`: the cue rules of pulse.memory.extraction alone)."""
    return BoundReader(reader, Schema.from_schema_tools(tools)) if reader is not None else None


__all__ = [
    "BoundReader",
    "bind_reader",
    "ArgSpec",
    "READERS",
    "ReadFact",
    "ReadingError",
    "Schema",
    "make_reader",
]
