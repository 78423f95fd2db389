"""The memory agent's side of the gateway: every relayed call as an event for one `PulseAgent`.

One `GatewaySession` per gateway process (one user; `pulse serve` is started per user):
- `before_call(tool, args, read_only)`: the pre-commit gate. A read-only tool (MCP `readOnlyHint`,
  or listed in the upstream's `read_only_tools`) is never held: it changes nothing, so the memory
  agent only reads it afterwards. Any other call is a `candidate_call` event the agent decides on
  (`PulseAgent.decide_call`); `intervene` means the call is not forwarded.
- `after_call(...)`: the result (or the upstream's error) is a `tool_result` event; supplements
  queued by then are returned for the reply's extra content block.
- `remember(statement)`: what the user said, in their own words. The reading layer
  (`pulse.reading`, `memory.reader`) reads it against the upstream tools' schemas: which argument
  and value, whose it is (a colleague's preference is never the user's), a habit or a wish, the
  condition it holds under, lasting or one-off, withdrawn or avoided. It joins the event stream as a
  user message stating the user's own values (so they override memory now, as in the gold rule) and
  is committed to memory at once through the same write pipeline (extraction files what was read,
  source validation, merge) as every other conversation. The answer says what was understood. A
  value given as `slot`/`value` must occur in the statement (the explicit route, no reading).
- `preferences()`: the user's current binding memory, rendered for the MCP prompt and resource.

Slot vocabulary: the upstream tools' input schemas (enum values; each argument's name words, and
without a trailing "id"), plus the values current memory already holds for those arguments, so a
statement such as "refund to credit_card_1111111" is read as that argument's value.
Not thread-safe: the gateway calls it from one worker thread at a time.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from pulse.agent.runtime import PulseAgent, PulseAgentConfig, render_items
from pulse.core.gold import BINDING_KINDS
from pulse.core.records import Event, MemoryItem
from pulse.core.statements import IMPLICIT, SlotTerms
from pulse.serve.config import ServeConfig


class RememberError(ValueError):
    """A `pulse_remember` call the gateway cannot record (message says why)."""


MAX_STATEMENT_CHARS = 4000  # a statement is what a person says, not a document


def _understood(f) -> dict[str, Any]:
    """What the reader understood of one fact, for the client."""
    fields = {k: v for k, v in asdict(f).items() if k not in ("quote", "confidence")}
    return {**fields, "binds": f.binding and f.polarity == "prefer" and f.lasting, "said": f.describe()}


@dataclass(frozen=True)
class Gate:
    held: bool
    message: str = ""  # held: the intervention message (evidence rendered)
    evidence: tuple[MemoryItem, ...] = ()
    action: str = "silent"


def arg_text(v: Any) -> str:
    """A call argument as the memory agent reads it (strings as they are, anything else as JSON)."""
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def schema_vocab(tools: Sequence[Any]) -> dict[str, SlotTerms]:
    """Slot -> terms from MCP tool input schemas: enum values (also of array items) and name words."""
    vocab: dict[str, SlotTerms] = {}
    for t in tools:
        for slot, spec in ((t.input_schema or {}).get("properties") or {}).items():
            if not isinstance(spec, Mapping):
                continue
            values = [*spec.get("enum", ()), *((spec.get("items") or {}).get("enum", ()))]
            words = slot.replace("_", " ").lower().split()
            names = [" ".join(words)] + (
                [" ".join(words[:-1])] if len(words) > 1 and words[-1] == "id" else []
            )
            prev = vocab.get(slot)
            vals = tuple(dict.fromkeys([*(prev.values if prev else ()), *map(str, values)]))
            vocab[slot] = SlotTerms(vals, tuple(dict.fromkeys([*(prev.names if prev else ()), *names])))
    return vocab


def reading_for(name: str, tools: Sequence[Any]):
    """The reading layer bound to the upstream tools' input schemas (None for `rule`)."""
    if name == "rule":
        return None
    from pulse.reading import BoundReader, Schema, make_reader

    schema = Schema.from_json_tools(
        {"name": t.name, "description": t.description or "", "inputSchema": t.input_schema or {}}
        for t in tools
    )
    return BoundReader(make_reader(name), schema)


def item_record(m: MemoryItem) -> dict[str, str]:
    """A memory item as the client sees it in a held call's `_meta` (evidence)."""
    return {
        "id": m.item_id,
        "kind": m.kind,
        "slot": m.slot,
        "value": m.value,
        "text": m.text,
        "since": m.valid_from,
        "source": m.provenance.source_kind,
        "quote": m.provenance.quote,
    }


def build_policy(cfg: ServeConfig):
    if cfg.policy.backend == "rule":
        from pulse.agent.rule_policy import RulePolicy

        return RulePolicy()
    from pulse.policy.factory import build_policy as build

    return build(cfg.policy.backend_config())


class GatewaySession:
    def __init__(self, cfg: ServeConfig, tools: Sequence[Any], policy=None):
        from pulse.memory import open_memory

        self.cfg = cfg
        root = Path(cfg.memory.root).expanduser()
        root.mkdir(parents=True, exist_ok=True)
        self.memory = open_memory(
            cfg.memory.kind, root, cfg.memory.embedder, auto_create_scopes=True, sync=cfg.memory.sync
        )
        self.vocab = schema_vocab(tools)
        self.reading = reading_for(cfg.memory.reader, tools)
        self._tool_schema = self.reading.schema if self.reading is not None else None
        for m in self._binding():  # values memory already holds are values the user may name
            self._learn(m.slot, m.value)
        self.agent = PulseAgent(
            self.memory,
            policy if policy is not None else build_policy(cfg),
            PulseAgentConfig(
                user_id=cfg.user_id,
                project_id=cfg.project_id,
                allow_intervene=cfg.agent.allow_intervene,
                initial_personalization=False,
                retrieve_k=cfg.agent.retrieve_k,
                concurrent=False,
                writeback=cfg.agent.writeback,
                max_prefix_events=cfg.agent.max_prefix_events,
                slot_vocab=self.vocab,
                conversation_id=f"serve-{uuid.uuid4().hex[:12]}",
                reading=self if self.reading is not None else None,  # its schema grows (`_learn`)
            ),
        )
        self.session_id = self.agent.config.conversation_id
        self._step = 0
        self.agent.start(self._event("request", text=cfg.agent.request, role="user"))
        self._closed = False

    # -- events ---------------------------------------------------------------------------------
    def _event(self, kind: str, **kw) -> Event:
        self._step += 1
        now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        return Event(kind, self._step, time=now, event_id=f"{self.session_id}#{self._step}", **kw)

    def before_call(self, tool: str, args: Mapping[str, Any], read_only: bool) -> Gate:
        if read_only:
            return Gate(False)
        gd = self.agent.decide_call(
            self._event("candidate_call", tool=tool, args={k: arg_text(v) for k, v in args.items()})
        )
        if gd.decision.action == "intervene":
            return Gate(True, gd.message, tuple(gd.evidence), "intervene")
        return Gate(False, action=gd.decision.action)

    def after_call(self, tool: str, args: Mapping[str, Any], error: str = "") -> list[str]:
        """Observe the call's outcome; the supplements (rendered) the client should see with it."""
        fields = {k: arg_text(v) for k, v in args.items()}
        if not error:  # a value a call used is a value the user may name later ("my gift card")
            for k, v in args.items():
                if isinstance(v, str) and 0 < len(v) <= 80:
                    self._learn(k, v)
        if error:
            ev = self._event("tool_result", tool=tool, text=f"error: {error[:300]}", args={"status": "error"})
        else:
            ev = self._event("tool_result", tool=tool, text="ok", args=fields)
        self.agent.observe(ev)
        return [d.message for d in self.agent.take_supplements(wait=True) if d.message]

    # -- pulse_remember ---------------------------------------------------------------------------
    def remember(self, statement: str, slot: str = "", value: str = "") -> dict[str, Any]:
        statement = (statement or "").strip()
        if not statement:
            raise RememberError("statement: give the user's own words")
        if bool(slot) != bool(value):
            raise RememberError("slot and value go together: give both or neither")
        if value and value.lower() not in statement.lower():
            raise RememberError(
                f"value {value!r} does not occur in the statement: only the user's own words "
                f"confirm a preference"
            )
        if len(statement) > MAX_STATEMENT_CHARS:
            raise RememberError(
                f"statement: {len(statement):,} characters; say it in at most {MAX_STATEMENT_CHARS:,}"
            )
        if slot:
            self._learn(slot, value)
        ev = self._event("message", role="user", text=statement)
        self.agent.observe(ev)  # the listener reads its slot values with the vocabulary
        facts = self.reading.read(statement, self.cfg.project_id) if self.reading and not slot else []
        if facts or (self.reading and not slot):
            # what the reader read replaces the listener's value spotting: only the user's own
            # values are stated ("never a gift card" states no gift card; a colleague's states
            # nothing); a reference to memory ("my usual payment method", "?") stays as context
            heard = self.agent.listener.prefix[-1]
            own = {f.argument: f.value for f in facts if f.binding and f.polarity == "prefer"}
            refs = {k: v for k, v in heard.args.items() if v == IMPLICIT and k not in own}
            self.agent.listener.prefix[-1] = replace(heard, args={**refs, **own})
        read = self.agent.listener.prefix[-1]
        cid = f"remember-{uuid.uuid4().hex[:16]}"
        if slot or self.reading is None:
            conv = self.memory.conversation(self.cfg.user_id, self.cfg.project_id, cid)
            conv.observe(read)
            stored = conv.commit()
            merged, rejected = [rid for _, rid in conv.merged], [reason for _, reason in conv.rejected]
        else:
            stored, merged, rejected = self._commit_read(read, facts, cid)
        return {
            "stored": [item_record(m) for m in stored],
            "merged": merged,
            "rejected": rejected,
            "read_as": {k: v for k, v in read.args.items()},
            "understood": [_understood(f) for f in facts],
        }

    def _commit_read(self, ev: Event, facts, cid: str) -> tuple[list[MemoryItem], list[str], list[str]]:
        """One conversation holding the statement, filed by what the reader read (its facts are
        reused, not read again)."""
        from pulse.memory.extraction import extract

        conv = self.memory.conversation(self.cfg.user_id, self.cfg.project_id, cid)
        conv.extract_candidates = False
        conv.observe(ev)
        for cand in extract(
            [ev], cid, self.cfg.user_id, self.cfg.project_id, ev.time, read=lambda t, p: facts
        ):
            conv.add_candidate(cand)
        stored = conv.commit()
        return stored, [rid for _, rid in conv.merged], [reason for _, reason in conv.rejected]

    def read(self, text: str, project: str = ""):
        """The reading layer over the tools' schemas and the values learned so far."""
        return self.reading.read(text, project) if self.reading is not None else []

    def _learn(self, slot: str, value: str) -> None:
        if not slot or not value:
            return
        prev = self.vocab.get(slot)
        if prev is None:
            self.vocab[slot] = SlotTerms((value,), (slot.replace("_", " "),))
        elif value not in prev.values:
            self.vocab[slot] = SlotTerms((*prev.values, value), prev.names)
        else:
            return
        if self.reading is not None:  # a free-form argument's known values are its value space
            known = {k: t.values for k, t in self.vocab.items()}
            self.reading = replace(self.reading, schema=self._tool_schema.with_values(known))

    # -- prompt / resource ------------------------------------------------------------------------
    def _binding(self) -> list[MemoryItem]:
        try:
            items = self.memory.snapshot(self.cfg.user_id, self.cfg.project_id)
        except Exception:  # a user this root has never seen: no memory yet
            return []
        return [m for m in items if m.is_current and m.kind in BINDING_KINDS and m.slot]

    def preferences(self) -> str:
        try:
            items = [
                m
                for m in self.memory.snapshot(self.cfg.user_id, self.cfg.project_id)
                if m.is_current and m.kind in ("preference", "habit", "attribute")
            ]
        except Exception:
            items = []
        if not items:
            return f"No preferences are stored for user {self.cfg.user_id!r} yet."
        prefs = [m for m in items if m.kind == "preference"]
        habits = [m for m in items if m.kind != "preference"]
        out = [
            f"Current preferences of user {self.cfg.user_id!r} (binding unless the user says otherwise now):",
            render_items(prefs) if prefs else "- (none)",
        ]
        if habits:
            out += ["Habits and facts (describe, do not bind):", render_items(habits)]
        return "\n".join(out)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.agent.end(True)
        finally:
            self.memory.close()
