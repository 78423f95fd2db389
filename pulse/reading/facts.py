"""What reading a statement produces: typed facts bound to tool arguments, and the schema they bind to.

A `ReadFact` is one thing a person's words establish about one tool argument:

- `holder`: whose it is — `user`, `person:<Name>` (a colleague, a partner), `team:<name>`,
  `project:<name>` (a decision taken for a project; the name may be empty when the text gives none);
- `kind`: `preference` (a wish: "I like", "always", "please use"), `habit` (what the person tends
  to do, not a wish: a stated value beats it), `attribute` (a fact about the person that binds a
  value: "I'm vegetarian"), `decision` (a project's or team's decision), `requirement` (a value
  asked for this task only);
- `argument` (and `tool` where one tool owns it) and `value`: canonical where the schema has an enum,
  else the text; `polarity` `prefer` or `avoid` ("never to a gift card");
- `condition`: the span that says where it applies ("on flights over six hours"), "" when always;
- `lasting`: False for a one-off ("just this time", a requirement of the current task);
- `withdraws`: the statement cancels this value; `revises`: the value it replaces;
- `quote`: the clause it was read from.

`ArgSpec` is the reader's view of one argument: everything a deployed memory agent sees in a tool's
JSON schema (tool, name, description, type, enum), nothing a benchmark knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any

from pulse.core.errors import PulseUserError

KINDS = ("preference", "habit", "attribute", "decision", "requirement")
POLARITIES = ("prefer", "avoid")
HOLDER_CLASSES = ("user", "person", "team", "project")


class ReadingError(PulseUserError, ValueError):
    """A schema or a reply the reader cannot use (the message names what is wrong)."""


@dataclass(frozen=True)
class ArgSpec:
    """One argument of one tool, as its schema describes it."""

    tool: str
    name: str
    description: str = ""
    type: str = "string"
    enum: tuple[str, ...] = ()
    kind: str = "string"  # pulse.core.values kinds: enum / number / date / email / domain / text / string
    tool_description: str = ""


@dataclass(frozen=True)
class ReadFact:
    """One fact a reader found in a statement: the tool argument it binds and its value (canonical where
    the schema has one), polarity, holder, kind, condition, lasting or one-off, what it withdraws or
    revises, and the quote it was read from. What Pulse files and every method's stand-in stores."""

    argument: str
    value: str
    tool: str = ""
    polarity: str = "prefer"
    holder: str = "user"
    kind: str = "preference"
    condition: str = ""
    lasting: bool = True
    withdraws: bool = False
    revises: str = ""
    quote: str = ""
    confidence: float = 1.0

    @property
    def holder_class(self) -> str:
        return self.holder.split(":", 1)[0]

    @property
    def binding(self) -> bool:
        """Whether the fact should hold a contradicting call of the user: the user's own lasting
        preference, attribute or this task's requirement (habits and other people's words never)."""
        return (
            self.holder == "user"
            and self.kind in ("preference", "attribute", "requirement")
            and not self.withdraws
        )

    def describe(self) -> str:
        """A sentence for a person (the gateway's answer, a delivery line)."""
        who = {
            "user": "You",
            "person": self.holder.split(":", 1)[-1],
            "team": f"The {self.holder[5:]} team",
        }.get(self.holder_class, f"Project {self.holder[8:]}".strip())
        you = who == "You"
        verb = {
            "habit": "usually use" if you else "usually uses",
            "decision": "decided on",
            "requirement": "need, for this task," if you else "needs, for this task,",
            "attribute": "are" if you else "is",
        }.get(self.kind, "prefer" if you else "prefers")
        if self.polarity == "avoid":
            verb = ("avoid" if you else "avoids") if self.kind != "decision" else "decided against"
        what = f"{self.argument} = {self.value}"
        if self.withdraws:
            return f"{who} no longer want{'' if you else 's'} {what}."
        cond = f"{self.condition[0].upper()}{self.condition[1:]}, " if self.condition else ""
        lead = who if not cond else who.lower() if who == "You" else who
        return f"{cond}{lead} {verb} {what}" + (f" (instead of {self.revises})" if self.revises else "") + "."


@dataclass(frozen=True)
class Schema:
    """The arguments a reader may bind to, from tool schemas."""

    args: tuple[ArgSpec, ...]
    by_name: Mapping[str, tuple[ArgSpec, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        groups: dict[str, list[ArgSpec]] = {}
        for a in self.args:
            groups.setdefault(a.name, []).append(a)
        object.__setattr__(self, "by_name", {k: tuple(v) for k, v in groups.items()})

    @cached_property
    def fingerprint(self) -> str:
        """The schema's identity (its readers cache per schema); computed once per instance."""
        import hashlib
        import json

        blob = json.dumps([asdict(a) for a in self.args], sort_keys=True)
        return hashlib.blake2b(blob.encode(), digest_size=8).hexdigest()

    def values(self, argument: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v for a in self.by_name.get(argument, ()) for v in a.enum))

    def kind(self, argument: str) -> str:
        specs = self.by_name.get(argument, ())
        return specs[0].kind if specs else ""

    def owner(self, argument: str) -> str:
        """The one tool that has this argument, else "" (several tools share it)."""
        tools = {a.tool for a in self.by_name.get(argument, ())}
        return next(iter(tools)) if len(tools) == 1 else ""

    def with_values(self, known: Mapping[str, Iterable[str]]) -> Schema:
        """The schema with values seen for free-form arguments (ids memory holds, values a call
        used) as their value space, so "refund to my gift card" can bind `gift_card_2222222`."""
        out = []
        for a in self.args:
            extra = tuple(v for v in dict.fromkeys(known.get(a.name, ())) if v not in a.enum)
            if extra and a.kind in ("string", "enum"):
                out.append(replace(a, enum=(*a.enum, *extra), kind="enum"))
            else:
                out.append(a)
        return Schema(tuple(out))

    @classmethod
    def from_json_tools(cls, tools: Iterable[Mapping[str, Any]]) -> Schema:
        """From JSON tool schemas: OpenAI function tools, MCP tools (`inputSchema`) or the compact
        form `{"name", "description", "arguments": {name: {type, enum, description}}}`."""
        # imported here: pulse.agent's package imports the write path, which imports this module
        from pulse.agent.schema import arg_kind

        out: list[ArgSpec] = []
        for t in tools:
            fn = t.get("function", t)
            name = str(fn.get("name") or "")
            if not name:
                raise ReadingError(f"tool without a name: {str(t)[:120]}")
            props = fn.get("arguments")
            if props is None:
                params = fn.get("parameters") or fn.get("inputSchema") or {}
                props = params.get("properties") or {}
            if not isinstance(props, Mapping):
                raise ReadingError(f"tool {name!r}: arguments must be an object")
            for arg, spec in props.items():
                spec = spec or {}
                enum = tuple(str(v) for v in spec.get("enum") or ())
                if spec.get("type") == "array" and isinstance(spec.get("items"), Mapping):
                    enum = tuple(str(v) for v in spec["items"].get("enum") or ())
                out.append(
                    ArgSpec(
                        name,
                        str(arg),
                        str(spec.get("description") or ""),
                        str(spec.get("type") or "string"),
                        enum,
                        arg_kind(str(arg), spec),
                        str(fn.get("description") or ""),
                    )
                )
        return cls(tuple(out))

    @classmethod
    def from_schema_tools(cls, tools: Iterable[Any]) -> Schema:
        """From `pulse.agent.schema.SchemaTool`s or a generated suite's `ToolSpec`s (enum params)."""
        out: list[ArgSpec] = []
        for t in tools:
            args = getattr(t, "args", None)
            if args is not None and args and hasattr(next(iter(args)), "enum"):
                for a in args:
                    out.append(
                        ArgSpec(t.name, a.name, a.description, a.type, tuple(a.enum), a.kind, t.description)
                    )
            else:
                for p, vals in (getattr(t, "params", None) or {}).items():
                    out.append(
                        ArgSpec(
                            t.name,
                            p,
                            "",
                            "string",
                            tuple(map(str, vals)),
                            "enum",
                            getattr(t, "description", ""),
                        )
                    )
        return cls(tuple(out))
