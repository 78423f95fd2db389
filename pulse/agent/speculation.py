"""Plan-time speculation: the call a task agent's message announces, predicted from its words.

A task agent usually says what it is about to do before it does it ("Next I will log experiment
'exp-3' with tracker wandb, seed policy fixed."), and then proposes that call at the pre-commit gate.
`predict_call` reads such a message the way Pulse reads any text and returns the candidate call it
announces, or None:
- the tool: the one tool whose name occurs in the text, literally (`log_experiment`) or with its
  underscores read as spaces (`log experiment`), outside quoted strings; none or several: None;
- its artifact argument (`CallSpec.artifact_param`, e.g. a generated suite's `name`): the one quoted
  string in the text; none or several: None;
- its other arguments: the slot values the listener already parsed from the text
  (`pulse.agent.listener.read_statement`), restricted to the tool's parameters, in the tool's order;
  a slot the text only refers to ("my usual ...") is not a value;
- the call must carry every argument the tool requires (`CallSpec.required`), else None.
The prediction is stamped as the next event of the same stream (step + 1, the same time, the event
id's trailing number + 1). Tools are known through `CallSpec`s (what the tools publish: a name,
parameter names, an artifact parameter), never from a benchmark's plan or gold.

The runtime (`pulse.agent.runtime.PulseAgent`, concurrent streaming mode) decides the gate input the
predicted call would meet ahead of time and uses that decision only when the real gate input is
exactly equal (`same_input`), so a speculation never changes what the gate decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulse.core.policy_io import PolicyInput
from pulse.core.records import Event
from pulse.core.statements import is_value


@dataclass(frozen=True)
class CallSpec:
    """What a tool publishes about its calls: its name, its parameters in the order a call lists
    them, the parameter that names the artifact it acts on ("" = none) and the required ones
    (() = every parameter and the artifact parameter)."""

    name: str
    params: tuple[str, ...] = ()
    artifact_param: str = ""
    required: tuple[str, ...] = field(default=())

    @property
    def needed(self) -> tuple[str, ...]:
        """The parameters a call needs before it can be decided ahead: `required`, else the artifact parameter
        and every parameter."""
        if self.required:
            return self.required
        return ((self.artifact_param,) if self.artifact_param else ()) + self.params


def call_specs_from(tools: Iterable[Any]) -> tuple[CallSpec, ...]:
    """Call specs from the tools a memory agent is given: a generated suite's tool spec (`name`,
    `params` {argument: values}, `artifact_param`) or a JSON-schema tool (`pulse.agent.schema.SchemaTool`:
    its top-level arguments, required as its schema says)."""
    out = []
    for t in tools:
        if hasattr(t, "args") and hasattr(t, "schema"):  # a SchemaTool
            top = tuple(dict.fromkeys(a.name for a in t.args if a.path == a.name))
            params = (t.schema or {}).get("parameters") or (t.schema or {}).get("inputSchema") or {}
            req = tuple(str(r) for r in (params.get("required") or ()))
            # no required argument: the call is fully predicted only when every argument is stated
            out.append(CallSpec(t.name, top, "", req))
        else:
            out.append(
                CallSpec(t.name, tuple(getattr(t, "params", {}) or ()), getattr(t, "artifact_param", ""))
            )
    return tuple(out)


# a quoted string: '...' or "..." (or typographic quotes) not glued to a word ("I'll" is no quote)
_QUOTED = re.compile(
    r"(?<!\w)(?:'([^'\n]+)'|\"([^\"\n]+)\"|\u2018([^\u2019\n]+)\u2019|\u201c([^\u201d\n]+)\u201d)(?!\w)"
)
_NAME_PATTERNS: dict[str, re.Pattern] = {}


def _name_pattern(name: str) -> re.Pattern:
    pat = _NAME_PATTERNS.get(name)
    if pat is None:
        forms = sorted({name.lower(), name.replace("_", " ").lower()}, key=len, reverse=True)
        alts = "|".join(re.escape(f) for f in forms)
        pat = _NAME_PATTERNS[name] = re.compile(r"(?<![\w-])(?:" + alts + r")(?![\w-])")
    return pat


def announced_tool(text: str, specs: Sequence[CallSpec]) -> tuple[CallSpec | None, list[str]]:
    """The one tool `text` names outside its quoted strings (None if none or several) and the quoted
    strings."""
    quoted = [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text or "")]
    bare = _QUOTED.sub(" ", text or "").lower()
    hits = [s for s in specs if _name_pattern(s.name).search(bare)]
    return (hits[0] if len({s.name for s in hits}) == 1 else None), quoted


def _next_id(event_id: str) -> str:
    m = re.search(r"(\d+)$", event_id or "")
    return f"{event_id[: m.start()]}{int(m.group(1)) + 1}" if m else ""


def predict_call(message: Event, specs: Sequence[CallSpec]) -> Event | None:
    """The candidate call an agent message announces (see the module docstring), or None.

    `message` is the message as the listener read it: its `args` are the slot values parsed from its
    text (`read_statement`)."""
    if message.kind != "message" or (message.role or "agent") != "agent" or not message.text or not specs:
        return None
    spec, quoted = announced_tool(message.text, specs)
    if spec is None:
        return None
    args: dict[str, str] = {}
    if spec.artifact_param:
        if len(set(quoted)) != 1:
            return None
        args[spec.artifact_param] = quoted[0]
    for p in spec.params:
        v = message.args.get(p)
        if is_value(v) and p != spec.artifact_param:
            args[p] = v
    if any(p not in args for p in spec.needed):
        return None
    return Event(
        "candidate_call",
        message.step + 1,
        time=message.time,
        tool=spec.name,
        args=args,
        event_id=_next_id(message.event_id),
    )


def same_input(a: PolicyInput, b: PolicyInput) -> bool:
    """Exact equality of two policy inputs, down to the order of every event's arguments (a prompt
    lists them in that order)."""
    return (
        a == b
        and len(a.prefix) == len(b.prefix)
        and all(
            tuple(x.args.items()) == tuple(y.args.items()) for x, y in zip(a.prefix, b.prefix, strict=True)
        )
    )
