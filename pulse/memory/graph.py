"""The graph vocabulary shared by the store, the index and the writers.

User memory is a Topic-managed multilayer graph:
- thematic layer: Topic paths "coding/testing" (Topic "coding", subtopic "testing"); a fact's
  primary Topic is `MemoryItem.topic`, further Topics are cross-topic links (`ItemMeta.links`);
- entity layer: one node per normalised entity name per scope, shared by every Topic that mentions it;
- factual layer: the `MemoryItem`s, attached to Topics and entities.
Project memory uses the same layers; workflow tools ("tool:<name>"), workflow inputs/outputs and
artifact names are indexed as entities so a candidate call's tool and arguments reach them.
These functions are the single definition of those keys: the SQLite edges and the in-memory index
are both built from them.
"""

from __future__ import annotations

import re

from pulse.core.records import USER_FACT_KINDS, MemoryItem
from pulse.memory.interface import ItemMeta

GENERAL_TOPIC = "general"
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def topic_key(path: str) -> str:
    """The normalised Topic path: segments lower-cased, whitespace collapsed, empty segments dropped
    ("general" when nothing is left)."""
    parts = [_SPACE.sub(" ", p.strip().lower()) for p in path.replace("\\", "/").split("/")]
    return "/".join(p for p in parts if p) or GENERAL_TOPIC


def topic_chain(key: str) -> list[str]:
    """ "a/b/c" -> ["a", "a/b", "a/b/c"]: a subtopic brings its ancestors into the thematic layer."""
    parts = key.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def topic_parent(key: str) -> str:
    """The parent Topic path of a key ("" for a top-level Topic)."""
    return key.rsplit("/", 1)[0] if "/" in key else ""


def entity_key(name: str) -> str:
    """The normalised entity name: stripped of surrounding punctuation and quotes, whitespace collapsed,
    lower-cased."""
    return _SPACE.sub(" ", name.strip().strip(".,;:!?\"'()[]").lower())


def slot_key(slot: str) -> str:
    """Slots compare case-insensitively; "artifact:report.pdf" also answers to "report.pdf"."""
    return _SPACE.sub("_", slot.strip().lower())


def words(text: str) -> list[str]:
    """The lower-cased words of a text."""
    return _WORD.findall(text.lower())


def stem(word: str) -> str:
    """A crude suffix stripper so "writing" names the Topic "write"; embedders handle the rest."""
    for suffix in ("ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def item_topics(item: MemoryItem, meta: ItemMeta) -> list[tuple[str, str]]:
    """(topic key, role) pairs; role is "primary" or "link"."""
    primary = topic_key(item.topic)
    out = [(primary, "primary")]
    for link in meta.links:
        k = topic_key(link)
        if k != primary and (k, "link") not in out:
            out.append((k, "link"))
    return out


def item_entities(item: MemoryItem) -> dict[str, str]:
    """entity key -> display name, including entities derived from workflow / state structure."""
    out: dict[str, str] = {}
    for e in item.entities:
        if entity_key(e):
            out.setdefault(entity_key(e), e)
    if item.kind == "workflow":
        from pulse.memory.project import Workflow  # local: project imports records only

        try:
            wf = Workflow.from_item(item)
        except ValueError:
            wf = None
        if wf is not None:
            for t in wf.tools:
                out.setdefault(f"tool:{entity_key(t)}", f"tool:{t}")
            for s in wf.steps:
                for io in (*s.inputs, *s.outputs):
                    if entity_key(io):
                        out.setdefault(entity_key(io), io)
    elif item.kind == "project_state" and ":" in item.slot:
        name = item.slot.split(":", 1)[1]
        if entity_key(name):
            out.setdefault(entity_key(name), name)
    return out


def embed_text(item: MemoryItem) -> str:
    """The text both retrievers embed: the same for graph and flat, so vectors are shared."""
    return item.text + (f" (when: {item.conditions})" if item.conditions else "")


def equivalence_key(item: MemoryItem, task_id: str) -> tuple[str, ...]:
    """Two facts with this key are the same fact (merged, not duplicated)."""
    if item.slot:
        return (
            item.scope,
            item.kind,
            slot_key(item.slot),
            _SPACE.sub(" ", item.value.strip().lower()),
            _SPACE.sub(" ", item.conditions.strip().lower()),
            task_id,
        )
    return (
        item.scope,
        item.kind,
        "",
        " ".join(words(item.text)),
        _SPACE.sub(" ", item.conditions.strip().lower()),
        task_id,
    )


def revision_key(item: MemoryItem, task_id: str) -> tuple[str, ...] | None:
    """Facts sharing this key but differing in value are versions of one fact (the newer supersedes).

    User facts (preference/habit/attribute) form one group so a restated habit can become a
    preference; project kinds never share a key with user kinds (they live in other scopes anyway).
    """
    if not item.slot or item.kind == "workflow" and not item.slot.startswith("workflow:"):
        return None
    group = "user" if item.kind in USER_FACT_KINDS else item.kind
    return (item.scope, group, slot_key(item.slot), _SPACE.sub(" ", item.conditions.strip().lower()), task_id)
