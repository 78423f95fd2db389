"""The LLM reader: any OpenAI-compatible endpoint reads a statement into typed facts.

The prompt shows the schema (each argument's tool, name, type, description and allowed values) and
the statement, and asks for one JSON object `{"facts": [...]}` with the fields of `ReadFact`
(`PROMPT_VERSION` names this contract). The reply is checked against the schema: an argument no
tool has, or a value outside the argument's enum, is dropped (an enum value is matched
case-insensitively, spaces as underscores); a reply that is not JSON reads as no facts and is
counted (`parse_failures`). Replies are cached on disk by (model, prompt version, schema, speaker,
text) under `$PULSE_CACHE_DIR/reading/llm/` (atomic writes), so a rerun costs no call.

Served locally on CPU by `eval/serving/gguf_server.py` (Qwen2.5-Coder-1.5B-Instruct GGUF) or on GPU
by vLLM; `endpoint` is a `pulse.llm.endpoint.ChatConfig`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulse.core.values import canonical, fold
from pulse.llm.endpoint import ChatConfig, EndpointClient
from pulse.reading.facts import KINDS, ReadFact, Schema
from pulse.reading.lexicon import cache_dir
from pulse.utils.atomic import atomic_write_json

PROMPT_VERSION = "read-v1"

_SYSTEM = """You read what a person told their AI assistant and write down the facts it states about \
tool arguments. Output ONLY one JSON object: {"facts": [...]}. One fact per (argument, value) the \
text states. Fields of a fact:
- "argument": an argument name from the schema; "tool": its tool ("" if several tools share it);
- "value": for an argument with allowed values, exactly one of them (map the person's words to it: \
"a seat by the corridor" -> "aisle"); otherwise the value as text (numbers as digits);
- "polarity": "prefer", or "avoid" when the person wants to avoid that value ("never a gift card");
- "holder": "user" when it is the speaker's own; "person:<Name>" for someone else's \
(a colleague, partner, child); "team:<name>" for a team's; "project:<name>" for a project decision;
- "kind": "preference" (a wish), "habit" (what they tend to do, not a wish), "attribute" (a fact \
about the person that implies the value: "I'm vegetarian"), "decision" (a team's or project's \
decision), "requirement" (asked for the current task only);
- "condition": the exact words of the text that limit when it applies ("on flights over six \
hours"), or "";
- "lasting": false for a one-off ("just this time", "for this order"), else true;
- "withdraws": true when the text cancels this value ("I no longer want window seats");
- "revises": the old value this replaces, or "".
No fact for questions, hypotheticals, small talk, or references without a value ("use my usual \
seat"). Facts only for arguments in the schema."""


def _schema_lines(schema: Schema) -> str:
    lines = []
    for arg, specs in schema.by_name.items():
        tools = sorted({s.tool for s in specs})
        spec = specs[0]
        allowed = schema.values(arg)
        what = f"one of {list(allowed)}" if allowed else spec.type
        desc = f" — {spec.description}" if spec.description else ""
        lines.append(f"- {arg} (tool {', '.join(tools)}; {what}){desc}")
    return "\n".join(lines)


@dataclass
class LLMReader:
    """See the module docstring."""

    endpoint: ChatConfig | dict[str, Any] = field(default_factory=ChatConfig)
    cache: str = ""  # "" = $PULSE_CACHE_DIR/reading/llm
    max_tokens: int = 400
    name: str = "llm"
    calls: int = 0
    cache_hits: int = 0
    parse_failures: int = 0
    _client: EndpointClient | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.endpoint, dict):
            self.endpoint = ChatConfig(**self.endpoint)

    @property
    def reader_id(self) -> str:
        return f"llm:{PROMPT_VERSION}:{self.endpoint.model}"

    def _cache_path(self, key: str) -> Path:
        root = Path(self.cache) if self.cache else cache_dir() / "reading" / "llm"
        return root / key[:2] / f"{key}.json"

    def read(self, text: str, schema: Schema, speaker: str = "user", project: str = "") -> list[ReadFact]:
        blob = json.dumps([self.endpoint.model, PROMPT_VERSION, schema.fingerprint, speaker, project, text])
        key = hashlib.sha256(blob.encode()).hexdigest()
        path = self._cache_path(key)
        if path.exists():
            self.cache_hits += 1
            reply = json.loads(path.read_text())
        else:
            reply = self._ask(text, schema, speaker, project)
            atomic_write_json(path, reply)
        facts = reply.get("facts") if isinstance(reply, dict) else None
        if not isinstance(facts, list):
            self.parse_failures += 1
            return []
        out = []
        for raw in facts:
            fact = _checked(raw, schema, text)
            if fact is not None:
                out.append(fact)
        return out

    def _ask(self, text: str, schema: Schema, speaker: str, project: str) -> dict[str, Any]:
        if self._client is None:
            self._client = EndpointClient(self.endpoint, "reader")
        who = "the user" if speaker == "user" else speaker
        ctx = f"Speaker: {who}." + (f" Project: {project}." if project else "")
        messages = [
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": f"Schema:\n{_schema_lines(schema)}\n\n{ctx}\nText: {text}\n\nJSON:"},
        ]
        self.calls += 1
        reply = self._client.chat_json(messages, max_tokens=self.max_tokens, temperature=0.0)
        return reply if reply is not None else {"unparsed": True}


def _checked(raw: Any, schema: Schema, text: str) -> ReadFact | None:
    """A reply's fact brought onto the schema, or None when it names what the schema lacks."""
    if not isinstance(raw, dict):
        return None
    arg = str(raw.get("argument") or "")
    if arg not in schema.by_name:
        return None
    value = str(raw.get("value") if raw.get("value") is not None else "")
    allowed = schema.values(arg)
    if allowed:
        norm = {fold(v).replace(" ", "_"): v for v in allowed}
        value = norm.get(fold(value).replace(" ", "_").replace("-", "_"), "")
        if not value:
            return None
    else:
        kind = schema.kind(arg)
        value = canonical(kind, value) if kind in ("number", "date", "email", "domain") else value.strip()
        if not value:
            return None
    holder = str(raw.get("holder") or "user")
    if holder.split(":", 1)[0] not in ("user", "person", "team", "project"):
        holder = "user"
    kind = raw.get("kind") if raw.get("kind") in KINDS else "preference"
    cond = str(raw.get("condition") or "")
    tool = str(raw.get("tool") or "")
    if tool and tool not in {a.tool for a in schema.by_name[arg]}:
        tool = ""
    revises = str(raw.get("revises") or "")
    return ReadFact(
        argument=arg,
        value=value,
        tool=tool or schema.owner(arg),
        polarity="avoid" if raw.get("polarity") == "avoid" else "prefer",
        holder=holder,
        kind=kind,
        condition=cond,
        lasting=raw.get("lasting") is not False and kind != "requirement",
        withdraws=bool(raw.get("withdraws")),
        revises=revises if revises != value else "",
        quote=text,
    )
