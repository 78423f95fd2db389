"""What a retrieval query says, in the forms the retrievers match against.

The listener's query names a subgoal, entities and possibly a candidate tool call. The call's tool
and argument values are probes into the entity layer ("tool:<name>", "report.pdf"); its argument
names are probes into slots ("size" reaches every fact with slot "size").
"""

from __future__ import annotations

from dataclasses import dataclass

from pulse.memory import graph
from pulse.memory.interface import RetrievalQuery
from pulse.memory.timeutil import parse_time

# Words too common to locate a Topic by name.
_STOP = frozenset(
    "a an and are as at be by for from has have i in is it its me my of on or our that the this "
    "to was we were will with you your use using".split()
)


@dataclass(frozen=True)
class QueryFeatures:
    """What the retrievers read from one query: its text, words, content words, entity keys, argument slots,
    tool and cutoff."""

    text: str  # what is embedded
    words: list[str]
    content_words: frozenset[str]  # stemmed, stop words removed: matched against Topic names
    entity_keys: set[str]  # explicit + tool + argument values
    arg_slots: dict[str, str]  # slot key -> argument value of the candidate call
    tool: str
    as_of: float | None  # epoch seconds; None = now (current items only)


def query_text(q: RetrievalQuery) -> str:
    """The text embedded for a query: the subgoal, the candidate call's tool, arguments and text, and the
    entities, joined by spaces."""
    parts = [q.subgoal]
    if q.candidate_call is not None:
        c = q.candidate_call
        parts.append(f"{c.tool} " + " ".join(f"{k} {v}" for k, v in c.args.items()))
        if c.text:
            parts.append(c.text)
    parts.extend(q.entities)
    return " ".join(p for p in parts if p).strip()


def features(q: RetrievalQuery) -> QueryFeatures:
    """The `QueryFeatures` of a query; raises ValueError when its `as_of` is not an ISO-8601 time."""
    text = query_text(q)
    ws = graph.words(text)
    keys = {graph.entity_key(e) for e in q.entities if graph.entity_key(e)}
    arg_slots: dict[str, str] = {}
    tool = ""
    if q.candidate_call is not None:
        tool = q.candidate_call.tool
        keys.add(f"tool:{graph.entity_key(tool)}")
        for k, v in q.candidate_call.args.items():
            arg_slots[graph.slot_key(k)] = v
            if graph.entity_key(v):
                keys.add(graph.entity_key(v))
    as_of = parse_time(q.as_of, "RetrievalQuery.as_of") if q.as_of else None
    return QueryFeatures(
        text=text,
        words=ws,
        content_words=frozenset(graph.stem(w) for w in ws if w not in _STOP),
        entity_keys=keys,
        arg_slots=arg_slots,
        tool=tool,
        as_of=as_of,
    )
