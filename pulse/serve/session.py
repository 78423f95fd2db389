"""The memory agent's side of the gateway: every relayed call as an event for one `PulseAgent`.

One `SharedMemory` per gateway process (one user; `pulse serve` is started per user): the memory
store, the tools' vocabulary and the reading layer, shared by every client. One `GatewaySession` per
MCP session (a stdio gateway has one; each streamable-HTTP session its own): its own `PulseAgent`,
event stream, holds and confirmations, over the shared memory:
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
Arguments are read by their schema path: a nested argument is `options.format` (schemas and calls
are flattened alike, `flat_args` / `flat_properties`). A preference is scoped to a tool where its
statement is about that tool (the reader's `ReadFact.tool`, or `tool` given to `pulse_remember`):
`ToolScopedMemory` never shows it at another tool's call; a statement general by its reading holds
every tool with that argument.
A `GatewaySession` is not thread-safe (the gateway serialises its calls with a per-session lock);
`SharedMemory` is (the memory store locks its own writes; `_learn` takes a lock).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from pulse.agent.runtime import PulseAgent, PulseAgentConfig, render_items
from pulse.core.gold import BINDING_KINDS
from pulse.core.records import USER_FACT_KINDS, Event, MemoryItem
from pulse.core.statements import IMPLICIT, SlotTerms
from pulse.core.values import avoided, wanted
from pulse.memory.interface import RetrievalQuery
from pulse.serve.config import ServeConfig


class RememberError(ValueError):
    """A `pulse_remember` call the gateway cannot record (message says why)."""


MAX_STATEMENT_CHARS = 4000  # a statement is what a person says, not a document
MAX_LEARNED_VALUES = 64  # values of one argument learned from calls (a long-lived gateway stays small)
TOOL_ENTITY = "tool:"  # a memory item's entity naming the one tool it is about


def _understood(f) -> dict[str, Any]:
    """What the reader understood of one fact, for the client."""
    fields = {k: v for k, v in asdict(f).items() if k not in ("quote", "confidence")}
    # `binds`: the gate holds a call that contradicts it (the user's own wish or refusal, not a habit,
    # not another person's); a one-off binds this session's calls only
    one_off = f.kind == "requirement" or not f.lasting
    return {**fields, "binds": f.binding, "this_session_only": f.binding and one_off, "said": f.describe()}


@dataclass(frozen=True)
class Gate:
    """The gate's answer on one tool call: held or not, the intervention message, the evidence and the
    action."""

    held: bool
    message: str = ""  # held: the intervention message (evidence rendered)
    evidence: tuple[MemoryItem, ...] = ()
    action: str = "silent"


def arg_text(v: Any) -> str:
    """A call argument as the memory agent reads it (strings as they are, anything else as JSON)."""
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def flat_properties(schema: Mapping[str, Any] | None, prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """An input schema's arguments by schema path: a nested object's properties are `parent.child`
    (the object itself is not an argument a preference can name); up to 4 levels."""
    out: dict[str, Any] = {}
    for name, spec in ((schema or {}).get("properties") or {}).items():
        if not isinstance(spec, Mapping):
            continue
        path = f"{prefix}{name}"
        if spec.get("type") == "object" and isinstance(spec.get("properties"), Mapping) and depth < 4:
            out.update(flat_properties(spec, path + ".", depth + 1))
        else:
            out[path] = spec
    return out


def flat_args(args: Mapping[str, Any], prefix: str = "", depth: int = 0) -> dict[str, str]:
    """A call's arguments as the memory agent reads them, by schema path (`options.format`): strings
    as they are, lists and scalars as JSON; a nested object's fields flattened (up to 4 levels)."""
    out: dict[str, str] = {}
    for k, v in args.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping) and v and depth < 4:
            out.update(flat_args(v, path + ".", depth + 1))
        else:
            out[path] = arg_text(v)
    return out


def flat_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """MCP tools as JSON tools whose input schemas list the flattened arguments."""
    return [
        {
            "name": t.name,
            "description": t.description or "",
            "inputSchema": {"type": "object", "properties": flat_properties(t.input_schema)},
        }
        for t in tools
    ]


def schema_vocab(tools: Sequence[Any]) -> dict[str, SlotTerms]:
    """Slot -> terms from MCP tool input schemas: enum values (also of array items) and name words."""
    vocab: dict[str, SlotTerms] = {}
    for t in tools:
        for slot, spec in flat_properties(t.input_schema).items():
            if not isinstance(spec, Mapping):
                continue
            values = [*spec.get("enum", ()), *((spec.get("items") or {}).get("enum", ()))]
            words = slot.replace("_", " ").replace(".", " ").lower().split()
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

    return BoundReader(make_reader(name), Schema.from_json_tools(flat_tools(tools)))


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
    """The policy the gateway's config names: the gold rule for backend "rule", else the backend the policy
    factory builds."""
    if cfg.policy.backend == "rule":
        from pulse.agent.rule_policy import RulePolicy

        return RulePolicy()
    from pulse.policy.factory import build_policy as build

    return build(cfg.policy.backend_config())


class LockedPolicy:
    """One policy shared by every session's agent, one decision batch at a time (a local model is not
    safe to call from two threads; the rule policy takes microseconds)."""

    def __init__(self, policy):
        self.policy = policy
        self._lock = threading.Lock()

    def decide_batch(self, inputs):
        """The wrapped policy's outputs, one call at a time (under the lock)."""
        with self._lock:
            return self.policy.decide_batch(inputs)

    def __getattr__(self, name):
        return getattr(self.policy, name)


class SharedMemory:
    """What every session of one gateway shares: the user's memory, the tools' vocabulary and the
    reading layer (whose value space grows with the values calls use), and the policy."""

    def __init__(self, cfg: ServeConfig, tools: Sequence[Any], policy=None):
        from pulse.memory import open_memory

        self.cfg = cfg
        self.root = Path(cfg.memory.root).expanduser()
        self.root.mkdir(parents=True, exist_ok=True)
        self.memory = open_memory(
            cfg.memory.kind, self.root, cfg.memory.embedder, auto_create_scopes=True, sync=cfg.memory.sync
        )
        self.tool_names = {t.name for t in tools}
        self.vocab = schema_vocab(tools)
        self.reading = reading_for(cfg.memory.reader, tools)
        self._tool_schema = self.reading.schema if self.reading is not None else None
        self._lock = threading.Lock()
        self._scopes_file = self.root / "serve_tool_scopes.json"
        self._tool_of: dict[str, str] = self._load_scopes()
        self.generation = 0  # bumped whenever memory changes through the gateway (remember, forget)
        for m in self._binding():  # values memory already holds are values the user may name
            for v in avoided(m.value) or wanted(m.value):
                self._learn(m.slot, v)
        self.policy = LockedPolicy(policy if policy is not None else build_policy(cfg))

    def changed(self) -> None:
        """Memory changed through the gateway: every session decides its held calls afresh."""
        with self._lock:
            self.generation += 1

    # -- tool scopes ------------------------------------------------------------------------------
    def _load_scopes(self) -> dict[str, str]:
        try:
            data = json.loads(self._scopes_file.read_text())
            return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def set_tool_scopes(self, scopes: Mapping[str, str]) -> None:
        """Record which tool each new item is about (explicit `tool`, or the reader's); persisted
        beside the memory so a later gateway process scopes them the same way."""
        if not scopes:
            return
        from pulse.utils.atomic import atomic_write_text

        with self._lock:
            self._tool_of.update(scopes)
            atomic_write_text(self._scopes_file, json.dumps(self._tool_of, sort_keys=True, indent=0))

    def tool_of(self, m: MemoryItem) -> str:
        """The one tool item `m` is about, "" when it is general (held against every tool with its
        argument). Known items from the scope file; others by reading their quote once (cached)."""
        got = self._tool_of.get(m.item_id)
        if got is not None:
            return got
        tool = next((e[len(TOOL_ENTITY) :] for e in m.entities if e.startswith(TOOL_ENTITY)), "")
        if not tool and self.reading is not None and m.slot and m.provenance.quote:
            try:
                facts = self.reading.read(m.provenance.quote, self.cfg.project_id)
            except Exception:  # a quote the reader cannot read: general, as before
                facts = []
            tool = next((f.tool for f in facts if f.argument == m.slot and f.tool), "")
        with self._lock:
            self._tool_of[m.item_id] = tool
        return tool

    # -- reading ----------------------------------------------------------------------------------
    def read(self, text: str, project: str = ""):
        """The reading layer over the tools' schemas and the values learned so far."""
        reading = self.reading
        return reading.read(text, project) if reading is not None else []

    def stated(self, text: str, project: str = "") -> dict[str, str]:
        """What the user's words state for this task (`pulse.reading.BoundReader.stated`)."""
        reading = self.reading
        return reading.stated(text, project) if reading is not None else {}

    def _learn(self, slot: str, value: str) -> None:
        if not slot or not value:
            return
        with self._lock:
            prev = self.vocab.get(slot)
            if prev is None:
                self.vocab[slot] = SlotTerms((value,), (slot.replace("_", " "),))
            elif value not in prev.values and len(prev.values) < MAX_LEARNED_VALUES:
                self.vocab[slot] = SlotTerms((*prev.values, value), prev.names)
            else:
                return
            if self.reading is not None:  # a free-form argument's known values are its value space
                known = {k: t.values for k, t in self.vocab.items()}
                self.reading = replace(self.reading, schema=self._tool_schema.with_values(known))

    # -- the memory as the client sees it -----------------------------------------------------------
    def _current(self) -> list[MemoryItem]:
        """The user's current long-term memory: a session's one-offs are that session's task's, not the
        user's standing memory (they hold that session's calls only)."""
        try:
            seen = self.memory.snapshot_with_meta(self.cfg.user_id, self.cfg.project_id)
        except Exception:  # a user this root has never seen: no memory yet
            return []
        return [m for m, meta in seen if m.is_current and not meta.task_id]

    def _binding(self) -> list[MemoryItem]:
        return [m for m in self._current() if m.kind in BINDING_KINDS and m.slot]

    def memories(self) -> list[dict[str, str]]:
        """The user's current memory (preferences, habits, facts, project state), newest first."""
        items = sorted(self._current(), key=lambda m: m.valid_from, reverse=True)
        return [{**item_record(m), "tool": self.tool_of(m) if m.slot else ""} for m in items]

    def forget(self, item_id: str = "", matching: str = "") -> list[dict[str, str]]:
        """End the validity of one item (by id) or of the items whose sentence or quote contains
        `matching` (case-insensitive; at most 10). A forgotten item stays in the store's history
        (revisions never overwrite) but is no longer current: it holds nothing and is not retrieved."""
        item_id, matching = item_id.strip(), " ".join(matching.split()).lower()
        if bool(item_id) == bool(matching):
            raise RememberError("give exactly one of id (from pulse_memories) or matching (words it says)")
        current = self._current()
        if item_id:
            hits = [m for m in current if m.item_id == item_id]
            if not hits:
                raise RememberError(f"no current memory with id {item_id!r} (see pulse_memories)")
        else:
            if len(matching) < 3:
                raise RememberError("matching: give at least 3 characters of what the memory says")
            hits = [
                m
                for m in current
                if matching in " ".join(m.text.split()).lower()
                or matching in " ".join(m.provenance.quote.split()).lower()
            ]
            if not hits:
                raise RememberError(f"no current memory says {matching!r} (see pulse_memories)")
            if len(hits) > 10:
                raise RememberError(
                    f"{len(hits)} memories say {matching!r}; be more specific or forget them by id"
                )
        store = getattr(self.memory, "store", None)
        if store is None:
            raise RememberError(f"memory.kind={self.cfg.memory.kind} cannot forget; use structured")
        now = self.memory.now()
        scopes = {m.scope for m in hits}
        with store.transaction() as db:
            for m in hits:
                store.end_validity(db, m.item_id, now)
            store.bump(db, scopes)
        # the store's indexes take in new rows, not a validity ended in place: this process's cached
        # index of each scope is dropped (rebuilt at the next retrieval); another gateway process on
        # the same root sees the change once its index is rebuilt (it restarts)
        lock, indexes = getattr(self.memory, "_ix_lock", None), getattr(self.memory, "_indexes", None)
        if lock is not None and indexes is not None:
            with lock:
                for scope in scopes:
                    indexes.pop(scope, None)
        self.memory.invalidate(scopes)
        self.changed()
        return [item_record(m) for m in hits]

    def preferences(self) -> str:
        """The user's current preferences (binding) and habits and facts (not binding) as text, or a line
        saying none is stored yet."""
        items = [m for m in self._current() if m.kind in USER_FACT_KINDS]
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
        """Close the memory store."""
        self.memory.close()


class ToolScopedMemory:
    """The shared memory as one session's agent sees it: at a candidate call, an item about another
    tool (`SharedMemory.tool_of`) is not retrieved, so a `path` preference about `write_file` never
    holds `create_directory`. Everything else is the shared memory itself (a session's one-offs are
    filed under its agent's conversation id, the task id its retrievals and snapshots see:
    `pulse.agent.inputs`)."""

    def __init__(self, shared: SharedMemory):
        self._shared = shared
        self._memory = shared.memory

    def retrieve(self, query: RetrievalQuery):
        """The retrieved items, at a candidate call only those of no tool or of the called tool (looking
        further, up to 3k, when other tools' items took places)."""
        got = self._memory.retrieve(query)
        call = query.candidate_call
        if call is None or not got:
            return got
        tool_of = self._shared.tool_of
        kept = [s for s in got if tool_of(s.item) in ("", call.tool)]
        if len(kept) < len(got):  # other tools' items took places: look further, keep the best k
            more = self._memory.retrieve(replace(query, k=3 * query.k))
            kept = [s for s in more if tool_of(s.item) in ("", call.tool)][: query.k]
        return kept

    def __getattr__(self, name):
        return getattr(self._memory, name)


def call_key(tool: str, args: Mapping[str, Any]) -> str:
    """One call's identity: the tool and its arguments exactly (what an unchanged retry repeats)."""
    return tool + "\x00" + json.dumps(args, sort_keys=True, default=str)


class GatewaySession:
    """One MCP session's memory agent (see the module docstring)."""

    def __init__(self, shared: SharedMemory, label: str = ""):
        self.shared = shared
        self.cfg = cfg = shared.cfg
        self.label = label
        conversation_id = f"serve-{uuid.uuid4().hex[:12]}"
        self.agent = PulseAgent(
            ToolScopedMemory(shared),
            shared.policy,
            PulseAgentConfig(
                user_id=cfg.user_id,
                project_id=cfg.project_id,
                allow_intervene=cfg.agent.allow_intervene,
                initial_personalization=False,
                retrieve_k=cfg.agent.retrieve_k,
                concurrent=False,
                writeback=cfg.agent.writeback,
                max_prefix_events=cfg.agent.max_prefix_events,
                # every conflicting call is held (a revision too); an unchanged retry is the
                # gateway's to answer (`before_call`), a confirmation the user's
                max_holds_per_call=0,
                condition_skips_tool_words=True,
                slot_vocab=shared.vocab,
                # the task id of this session's one-offs ("just this time, a window seat"): seen here only
                conversation_id=conversation_id,
                reading=shared if shared.reading is not None else None,  # its schema grows (`_learn`)
            ),
        )
        self.session_id = self.agent.config.conversation_id
        self._step = 0
        self.held: dict[str, tuple[Gate, int]] = {}  # call_key -> (its hold, shared.generation then)
        self.confirmed: set[str] = set()  # call_keys the user confirmed: one-offs for this session
        self._seen_generation = shared.generation
        self.agent.start(self._event("request", text=cfg.agent.request, role="user"))
        self._closed = False

    @property
    def memory(self):
        """The shared memory backend."""
        return self.shared.memory

    # -- events ---------------------------------------------------------------------------------
    def _event(self, kind: str, **kw) -> Event:
        self._step += 1
        now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        return Event(kind, self._step, time=now, event_id=f"{self.session_id}#{self._step}", **kw)

    def before_call(
        self,
        tool: str,
        args: Mapping[str, Any],
        read_only: bool,
        confirm: bool = False,
        token_ok: bool = False,
    ) -> Gate:
        """The gate. A call held before in this session and retried unchanged (same tool and
        arguments, memory unchanged) is held again without asking the policy (`action="repeat"`),
        unless `confirm`: then it passes and stays confirmed for this session (a one-off, never
        written to memory). A confirmation of a call never held is no confirmation: it is gated.
        `token_ok`: the client sent the token of this call's hold (memory unchanged since): it passes
        (the route for clients without a session)."""
        if read_only:
            return Gate(False)
        if self._seen_generation != self.shared.generation:  # remembered or forgotten meanwhile
            self._seen_generation = self.shared.generation
            self.agent.memory_changed()
        key = call_key(tool, args)
        if token_ok:
            self.confirmed.add(key)
            self.held.pop(key, None)
        if key in self.confirmed:
            return Gate(False, action="confirmed")
        prior = self.held.get(key)
        if prior is not None and prior[1] == self.shared.generation:
            if confirm:
                self.confirmed.add(key)
                del self.held[key]
                return Gate(False, action="confirmed")
            return replace(prior[0], action="repeat")
        gd = self.agent.decide_call(self._event("candidate_call", tool=tool, args=flat_args(args)))
        if gd.decision.action == "intervene":
            gate = Gate(True, gd.message, tuple(gd.evidence), "intervene")
            self.held[key] = (gate, self.shared.generation)
            return gate
        self.held.pop(key, None)
        return Gate(False, action=gd.decision.action)

    def after_call(self, tool: str, args: Mapping[str, Any], error: str = "") -> list[str]:
        """Observe the call's outcome; the supplements (rendered) the client should see with it."""
        fields = flat_args(args)
        if not error:  # a value a call used is a value the user may name later ("my gift card")
            for k, v in fields.items():
                if 0 < len(v) <= 80 and not v.startswith(("[", "{")):
                    self.shared._learn(k, v)
        if error:
            ev = self._event("tool_result", tool=tool, text=f"error: {error[:300]}", args={"status": "error"})
        else:
            ev = self._event("tool_result", tool=tool, text="ok", args=fields)
        self.agent.observe(ev)
        return [d.message for d in self.agent.take_supplements(wait=True) if d.message]

    # -- pulse_remember ---------------------------------------------------------------------------
    def remember(self, statement: str, slot: str = "", value: str = "", tool: str = "") -> dict[str, Any]:
        statement = (statement or "").strip()
        if len(statement) > MAX_STATEMENT_CHARS:
            raise RememberError(
                f"statement: {len(statement):,} characters; nothing was stored. Say it in at most "
                f"{MAX_STATEMENT_CHARS:,} characters (what the user said, not a document)"
            )
        if not statement:
            raise RememberError("statement: give the user's own words")
        if bool(slot) != bool(value):
            raise RememberError("slot and value go together: give both or neither")
        if tool and tool not in self.shared.tool_names:
            raise RememberError(f"tool {tool!r}: not a tool of this gateway")
        if value and value.lower() not in statement.lower():
            raise RememberError(
                f"value {value!r} does not occur in the statement: only the user's own words "
                f"confirm a preference"
            )
        shared = self.shared
        if slot:
            shared._learn(slot, value)
        ev = self._event("message", role="user", text=statement)
        self.agent.observe(ev)  # the listener reads its slot values with the vocabulary
        reading = shared.reading
        facts = shared.read(statement, self.cfg.project_id) if reading and not slot else []
        if facts or (reading and not slot):
            # what the reader read replaces the listener's value spotting: only the user's own
            # values are stated ("never a gift card" states no gift card; a colleague's states
            # nothing); a reference to memory ("my usual payment method", "?") stays as context
            heard = self.agent.listener.prefix[-1]
            own = {f.argument: f.value for f in facts if f.binding and f.polarity == "prefer"}
            refs = {k: v for k, v in heard.args.items() if v == IMPLICIT and k not in own}
            self.agent.listener.prefix[-1] = replace(heard, args={**refs, **own})
        read = self.agent.listener.prefix[-1]
        conv = self.memory.conversation(
            self.cfg.user_id, self.cfg.project_id, f"remember-{uuid.uuid4().hex[:16]}"
        )
        conv.task_id = self.session_id  # a one-off is this session's task's ("just this time, ...")
        if slot or reading is None:
            conv.observe(read)
        else:  # filed by what the reader read (its facts are reused, not read again)
            self._add_read(conv, read, facts)
        stored = conv.commit()
        merged, rejected = [rid for _, rid in conv.merged], [reason for _, reason in conv.rejected]
        by_arg = {f.argument: f.tool for f in facts if f.tool}
        shared.set_tool_scopes({m.item_id: (tool or by_arg.get(m.slot, "")) for m in stored if m.slot})
        if stored:
            shared.changed()
        self.held.clear()  # the user spoke: a held call is decided afresh
        # a record this same statement already revised ("Zoom or Teams": zoom, then zoom or teams) is
        # not listed: the current one says it all
        records = [{**item_record(m), "tool": shared.tool_of(m)} for m in stored if not m.valid_to]
        return {
            "stored": [r for r in records if r["id"] not in conv.task_scoped_ids],
            "this_session": [r for r in records if r["id"] in conv.task_scoped_ids],
            "merged": merged,
            "rejected": rejected,
            "read_as": {k: v for k, v in read.args.items()},
            "understood": [_understood(f) for f in facts],
        }

    def _add_read(self, conv, ev: Event, facts) -> None:
        """The statement `ev` into `conv`, its candidates filed from the reader's `facts`."""
        from pulse.memory.extraction import extract

        conv.extract_candidates = False
        conv.observe(ev)
        for cand in extract(
            [ev],
            conv.conversation_id,
            self.cfg.user_id,
            self.cfg.project_id,
            ev.time,
            read=lambda t, p: facts,
        ):
            conv.add_candidate(cand)

    def read(self, text: str, project: str = ""):
        """What the reading layer reads in `text` (the shared memory's `read`)."""
        return self.shared.read(text, project)

    def preferences(self) -> str:
        """The user's current preferences as text (`SharedMemory.preferences`)."""
        return self.shared.preferences()

    def close(self) -> None:
        """End the session's agent as completed (its memory is written); later calls do nothing."""
        if self._closed:
            return
        self._closed = True
        self.agent.end(True)
