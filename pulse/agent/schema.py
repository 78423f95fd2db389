"""Schema-aware memory: what a tool's JSON schema tells Pulse about its arguments.

`SchemaTool.from_openai(schema)` reads an OpenAI function-tool schema (or an MCP tool's input
schema): every argument, nested objects and arrays included (`address.zip`, `item_ids[]`), with its
name, description, type, enum and kind (`arg_kind`: domain / email / number / date / set / text /
enum / string, see `pulse.core.values`), and the call's kind (read-only or not, `call_kinds`).

Three uses:
- the listener's slot vocabulary (`slot_vocab`): enumerated arguments by their values, typed
  arguments (a domain, an e-mail, ...) by their form, named by their own words and the words of
  their description's head noun;
- mapping a call's arguments to memory by meaning as well as by name (`ArgMapper`): a memory slot
  maps to the argument of the same name, else to the argument whose name + description is most
  similar to the slot + its Topic, when that similarity reaches `threshold` (a knob); similarity is
  the cosine of the two texts' word vectors (lower-cased, light suffix stripping), or of their
  embeddings when a dense embedder is given;
- type-aware comparison: the values of a mapped argument are compared in that argument's kind
  (`pulse.core.values.same_value`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulse.agent.call_kinds import READ_ONLY, STATE_CHANGING, kind_from_annotations
from pulse.core.statements import SlotTerms

_WORD = re.compile(r"[a-z][a-z0-9]*")
_STOP = frozenset(
    "a an the of to for in on at by with and or your you this that it its is are be as from my me i we "
    "our us any which what who e.g eg i.e ie".split()
)
_URL_WORDS = frozenset({"url", "website", "site", "domain", "link", "homepage", "web"})


def _stem(w: str) -> str:
    for suf in ("ing", "es", "s", "ed"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def words(text: str) -> list[str]:
    """The stemmed words of a text, underscores read as spaces, stop words dropped."""
    return [_stem(w) for w in _WORD.findall((text or "").replace("_", " ").lower()) if w not in _STOP]


def word_cosine(a: str, b: str) -> float:
    """Cosine similarity of the word counts of two texts (0.0 when either has no words)."""
    ca, cb = Counter(words(a)), Counter(words(b))
    if not ca or not cb:
        return 0.0
    dot = sum(ca[w] * cb[w] for w in ca)
    return dot / math.sqrt(sum(v * v for v in ca.values()) * sum(v * v for v in cb.values()))


@dataclass(frozen=True)
class ArgInfo:
    """One argument of a tool schema: its path, name, description, JSON type, enum values and value kind."""

    path: str  # "site", "address.zip", "item_ids[]"
    name: str  # the last path element ("zip", "item_ids")
    description: str = ""
    type: str = "string"
    enum: tuple[str, ...] = ()
    kind: str = "string"  # pulse.core.values kinds


def arg_kind(name: str, spec: Mapping[str, Any]) -> str:
    """The value kind of an argument from its schema: format, type, enum, then its words."""
    t = spec.get("type", "string")
    fmt = str(spec.get("format") or "")
    text = f"{name} {spec.get('description') or ''}".lower()
    if spec.get("enum"):
        return "enum"
    if (
        fmt in ("uri", "url", "hostname", "idn-hostname")
        or (t == "string" and set(words(name)) & _URL_WORDS)
        or (t == "string" and re.search(r"\b(domain|url)\b", text))
    ):
        return "domain"
    if fmt in ("email", "idn-email") or (t == "string" and "email" in name.lower()):
        return "email"
    if t in ("number", "integer"):
        return "number"
    if fmt in ("date", "date-time"):
        return "date"
    if t == "array":
        return "set"
    if t == "string" and re.search(
        r"\b(answer|query|text|message|body|content|reason|summary|note)\b", name.lower()
    ):
        return "text"
    return "string"


def read_args(parameters: Mapping[str, Any], prefix: str = "") -> list[ArgInfo]:
    """Every argument of a JSON schema object, nested paths included."""
    out: list[ArgInfo] = []
    for name, spec in (parameters.get("properties") or {}).items():
        spec = spec or {}
        path = f"{prefix}{name}"
        t = spec.get("type", "string")
        if t == "object" and spec.get("properties"):
            out.extend(read_args(spec, path + "."))
            continue
        if t == "array" and isinstance(spec.get("items"), Mapping) and spec["items"].get("properties"):
            out.extend(read_args(spec["items"], path + "[]."))
            continue
        enum = tuple(str(v) for v in spec.get("enum") or ())
        if t == "array" and isinstance(spec.get("items"), Mapping):
            enum = tuple(str(v) for v in spec["items"].get("enum") or ())
        out.append(
            ArgInfo(path, name, str(spec.get("description") or ""), str(t), enum, arg_kind(name, spec))
        )
    return out


@dataclass(frozen=True)
class SchemaTool:
    """A tool as a memory agent reads it from its JSON schema (what a real benchmark's `tools(user)`
    gives)."""

    name: str
    description: str
    args: tuple[ArgInfo, ...]
    call_kind: str = STATE_CHANGING
    schema: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_openai(cls, schema: Mapping[str, Any], read_only: Iterable[str] = ()) -> SchemaTool:
        """The tool of an OpenAI (or MCP) function schema, its kind from the schema's annotations or else
        `read_only`; raises ValueError when the schema has no name."""
        fn = schema.get("function", schema)
        name = str(fn.get("name") or "")
        if not name:
            raise ValueError(f"tool schema without a name: {str(schema)[:120]}")
        params = fn.get("parameters") or fn.get("inputSchema") or {}
        ann = kind_from_annotations(fn.get("annotations") or schema.get("annotations"))
        kind = ann or (READ_ONLY if name in set(read_only) else STATE_CHANGING)
        return cls(name, str(fn.get("description") or ""), tuple(read_args(params)), kind, dict(fn))

    # what the generated suites' ToolSpec offers (eval.methods.pulse_method.tools_vocab reads it)
    @property
    def params(self) -> dict[str, list[str]]:
        """The arguments that have enum values, name -> values."""
        return {a.name: list(a.enum) for a in self.args if a.enum}

    def arg(self, name: str) -> ArgInfo | None:
        """The argument with this name or path, or None."""
        return next((a for a in self.args if a.name == name or a.path == name), None)


# typed kinds the listener can read from text (pulse.core.statements); other kinds need an enum
_LISTENED = ("domain", "email")


def _head_words(desc: str) -> tuple[str, ...]:
    """Names an argument's description offers ("the website (domain or URL)" -> "website")."""
    d = re.sub(r"\(.*?\)", "", desc.lower())
    w = [x for x in _WORD.findall(d) if x not in _STOP]
    return (w[0],) if w else ()


def slot_vocab(tools: Iterable[Any]) -> dict[str, SlotTerms]:
    """The listener's vocabulary from tool schemas (SchemaTool) and enum-only tools (ToolSpec)."""
    values: dict[str, list[str]] = {}
    names: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    for t in tools:
        if isinstance(t, SchemaTool):
            for a in t.args:
                if a.enum:
                    values.setdefault(a.name, []).extend(a.enum)
                elif a.kind in _LISTENED:
                    kinds[a.name] = a.kind
                else:
                    continue
                names.setdefault(a.name, [a.name.replace("_", " ")]).extend(
                    n for n in _head_words(a.description) if n not in names.get(a.name, [])
                )
        else:  # a generated suite's ToolSpec: enum values by argument name
            for p, vals in t.params.items():
                values.setdefault(p, []).extend(map(str, vals))
                names.setdefault(p, [p.replace("_", " ")])
    out: dict[str, SlotTerms] = {}
    for slot in dict.fromkeys([*values, *kinds]):
        out[slot] = SlotTerms(
            tuple(dict.fromkeys(values.get(slot, ()))),
            tuple(dict.fromkeys(names[slot])),
            kinds.get(slot, "") if slot not in values else "",
        )
    return out


@dataclass
class ArgMapper:
    """Maps memory slots to a call's arguments: by name, else by meaning (see the module docstring)."""

    tools: Mapping[str, SchemaTool]
    threshold: float = 0.5
    embedder: Any = None  # a dense pulse.memory embedder, or None for word vectors
    _cache: dict = field(default_factory=dict)

    def _sim(self, a: str, b: str) -> float:
        if self.embedder is not None and getattr(self.embedder, "dense", False):
            import numpy as np

            va, vb = self.embedder.embed([a, b])
            return float(np.dot(va, vb) / ((np.linalg.norm(va) * np.linalg.norm(vb)) or 1.0))
        return word_cosine(a, b)

    def arg_for(self, tool: str, slot: str, topic: str = "", call_args: Sequence[str] = ()) -> ArgInfo | None:
        """The argument of `tool` memory slot `slot` speaks to, or None."""
        key = (tool, slot, topic, tuple(call_args))
        if key in self._cache:
            return self._cache[key]
        t = self.tools.get(tool)
        args = list(t.args) if t else [ArgInfo(a, a) for a in call_args]
        hit = next((a for a in args if a.name == slot or a.path == slot), None)
        if hit is None and t is not None:
            best, best_s = None, 0.0
            for a in args:
                s = self._sim(f"{slot} {topic}".strip(), f"{a.name} {a.description}")
                if s > best_s:
                    best, best_s = a, s
            hit = best if best_s >= self.threshold else None
        self._cache[key] = hit
        return hit
