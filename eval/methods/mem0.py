"""`mem0`: Mem0's two-phase memory pipeline (Chhikara et al., arXiv 2504.19413), re-implemented.

Algorithm (the paper's, and the open-source `mem0ai` v1.0.x `Memory.add` / `Memory.search`):
- **add(messages)**, messages in pairs (the paper's evaluation adds them in batches of 2):
  1. *extraction* (one LLM call): the conversation lines -> candidate facts `{"facts": [...]}`;
  2. per fact, the top-s most similar existing memories of the user (embedding search, s = 10 as
     in the paper; the OSS code uses 5), their union listed with small integer ids instead of
     their UUIDs (mem0's guard against invented ids);
  3. *update* (one LLM call): for each fact, ADD / UPDATE / DELETE / NONE against the listed memories
     `{"memory": [{"id", "text", "event", "old_memory"}]}`;
  4. apply: ADD -> new record; UPDATE -> the record's text is replaced (and re-embedded);
     DELETE -> the record is removed; NONE -> nothing. Every operation goes to a history log.
- **search(query)**: embedding similarity over the user's memories, top-k (k = 10).
Use in an agent (as mem0's agent examples do): search with the user's turn (the request, and any
later user message) and inject the hits; add each exchange after it happens.

Where this departs from the paper / OSS:
- the conversation summary and the last-m-messages context of the paper's extraction prompt are
  not used (neither does OSS v1.0.x);
- tool receipts that record a project decision are passed to `add` as "tool" lines (mem0's
  `parse_messages` keeps user/assistant turns only); the suites record project decisions only in
  receipts, and every text method gets the same lines;
- the vector store is in memory and the embedder is the run's (`embedder=`; default BM25, a lexical
  score, where mem0 defaults to text-embedding-3-small), the same for every method;
- offline, both LLM calls are the shared stand-ins (eval/methods/standins.py);
- with `llm=openai llm.mem0ai_crosscheck=true` the same episode is also fed to the `mem0ai==1.0.11`
  package (optional extra `.[mem0]`), and the overlap of its search hits with ours is recorded
  (eval/methods/mem0_crosscheck.py).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from eval.methods import standins
from eval.methods.pulse_method import tools_vocab
from eval.methods.text_method import Accountant, TextIndex, TextSession, event_line, text_method
from pulse.config.schema import knob

EXTRACT_SYSTEM = (
    "You organise personal information. From the conversation below, extract the user's "
    "preferences, personal details, plans and project decisions as short standalone facts. "
    'Reply with a JSON object {"facts": [<fact>, ...]}; an empty list when there is nothing.'
)
UPDATE_SYSTEM = (
    "You manage a memory. Compare each new fact with the existing memories (listed with ids) and "
    "choose for each: ADD (new information), UPDATE (an existing memory about the same thing now "
    "holds a different or richer value: give its id and the new text), DELETE (the new fact "
    "withdraws an existing memory: give its id) or NONE (already known). Reply with a JSON object "
    '{"memory": [{"id": ..., "text": ..., "event": "ADD|UPDATE|DELETE|NONE", "old_memory": ...}]}.'
)


@dataclass(frozen=True)
class Options:
    """Mem0's own knobs (`method.options.*`): messages per `add` call, similar memories listed per new fact in
    the update call, and memories returned by search."""

    # messages per add() call (the paper's evaluation: 2)
    batch_size: int = knob(2, ge=1)
    # similar existing memories listed per new fact in the update call (paper: 10; OSS v1.0.11: 5)
    update_top_s: int = knob(10, ge=1)
    # memories returned by search (paper / "Remember When It Matters" comparison: 10)
    top_k: int = knob(10, ge=1)


@dataclass
class Record:
    """One Mem0 memory: id, text, and when it was created and last updated."""

    id: str
    text: str
    created_at: str
    updated_at: str


@dataclass
class Mem0Store:
    """The re-implemented Mem0 memory: records + history, search over the run's embedder."""

    acct: Accountant
    index: TextIndex
    user_id: str
    vocab: dict
    opts: Options
    records: dict[str, Record] = field(default_factory=dict)
    history: list[dict] = field(default_factory=list)
    mirror: object = None  # the mem0ai cross-check (eval/methods/mem0_crosscheck.py), or None
    reading: object = None  # the run's reader bound to the tools (standins.chain_reading)

    def add(self, lines: list[str], events, now: str, project_id: str = "") -> list[dict]:
        if not lines:
            return []
        if self.mirror is not None:
            self.mirror.add(lines)
        convo = "\n".join(lines)
        facts = standins.extract_facts(events, self.user_id, project_id, self.reading)
        out = self.acct.call(
            "mem0.extract", EXTRACT_SYSTEM, "Input:\n" + convo, lambda: {"facts": [f.text for f in facts]}
        )
        new_facts = [str(f) for f in out.get("facts", []) if str(f).strip()]
        if not new_facts:
            return []
        # per fact, the top-s similar memories; union, with integer ids (mem0's anti-hallucination map)
        ids = list(self.records)
        texts = [self.records[i].text for i in ids]
        listed: list[str] = []
        for f in new_facts:
            for j, _ in self.index.search(f, texts, self.opts.update_top_s):
                if ids[j] not in listed:
                    listed.append(ids[j])
        tmp = {str(n): rid for n, rid in enumerate(listed)}
        old = [{"id": str(n), "text": self.records[rid].text} for n, rid in enumerate(listed)]
        prompt = f"Existing memories:\n{json.dumps(old)}\nNew facts:\n{json.dumps(new_facts)}"

        def standin():
            old_facts = [
                (o["id"], f) for o in old for f in standins.read_facts(o["text"], self.vocab, self.user_id)
            ]
            ops, touched = [], set()
            for text in new_facts:
                parsed = standins.read_facts(text, self.vocab, self.user_id, include_withdrawn=True)
                if not parsed:
                    ops.append({"id": "", "text": text, "event": "ADD"})
                    continue
                event, oid = standins.decide_update(parsed[0], old_facts, standins.withdrawn(text))
                if oid:
                    touched.add(oid)
                old_text = next((o["text"] for o in old if o["id"] == oid), "")
                ops.append(
                    {"id": oid, "text": text, "event": event, **({"old_memory": old_text} if oid else {})}
                )
            ops += [
                {"id": o["id"], "text": o["text"], "event": "NONE"} for o in old if o["id"] not in touched
            ]
            return {"memory": ops}

        out = self.acct.call("mem0.update", UPDATE_SYSTEM, prompt, standin)
        applied = []
        for op in out.get("memory", []):
            ev, text = str(op.get("event", "")).upper(), str(op.get("text", ""))
            rid = tmp.get(str(op.get("id", "")))
            if ev == "ADD" and text:
                rid = uuid.uuid5(uuid.NAMESPACE_OID, f"{self.user_id}|{len(self.history)}|{text}").hex
                self.records[rid] = Record(rid, text, now, now)
                self.acct.wrote(text)
            elif ev == "UPDATE" and rid in self.records and text:
                self.records[rid].text, self.records[rid].updated_at = text, now
                self.acct.wrote(text)
            elif ev == "DELETE" and rid in self.records:
                del self.records[rid]
            else:
                continue
            entry = {"id": rid, "event": ev, "text": text, "time": now}
            self.history.append(entry)
            applied.append(entry)
        return applied

    def search(self, query: str, k: int | None = None) -> list[Record]:
        ids = list(self.records)
        hits = self.index.search(query, [self.records[i].text for i in ids], k or self.opts.top_k)
        out = [self.records[ids[j]] for j, _ in hits]
        if self.mirror is not None and self.acct.stats is not None:
            from eval.methods.mem0_crosscheck import agreement

            agree, ours = agreement(
                [r.text for r in out],
                self.mirror.search(query, k or self.opts.top_k),
                self.vocab,
                self.user_id,
            )
            x = self.acct.stats.extra
            x["mem0ai_searches"] = x.get("mem0ai_searches", 0) + 1
            x["mem0ai_agree"] = x.get("mem0ai_agree", 0) + agree
            x["mem0ai_ours"] = x.get("mem0ai_ours", 0) + ours
        return out


def render(records) -> str:
    return "\n".join(f"- {r.text}" for r in records)


class Mem0Chain:
    """Mem0's memory of one persona chain: a `Mem0Store` built by adding the seed history session by session
    in batches (with the mem0ai cross-check mirror when configured)."""

    name = "mem0"

    def __init__(self, seed, llm, opts: Options):
        self.acct = Accountant(llm)
        self.vocab = tools_vocab(seed.tools)
        self.store = Mem0Store(
            self.acct,
            TextIndex(seed.embedder),
            seed.user_id,
            self.vocab,
            opts,
            reading=standins.chain_reading(seed),
        )
        cfg = getattr(llm, "config", None)
        if cfg is not None and cfg.mem0ai_crosscheck:
            from eval.methods.mem0_crosscheck import Mem0aiMirror

            self.store.mirror = Mem0aiMirror(cfg, seed.embedder, Path(seed.root), seed.user_id)
        self.opts = opts
        for s in seed.history.sessions:  # the past, added session by session in batches
            evs = [standins.turn_event(t, s.time, self.vocab) for t in s.turns]
            lines = [event_line(e) for e in evs]
            for i in range(0, len(evs), opts.batch_size):
                self.store.add(
                    lines[i : i + opts.batch_size], evs[i : i + opts.batch_size], s.time, s.project_id
                )

    def close(self) -> None:
        pass


class Mem0Session(TextSession):
    """One task under Mem0: search with the request and with each user message and inject the hits; every
    event but a candidate call is added in batches of `batch_size` (the rest when a completed task ends)."""

    def __init__(self, chain: Mem0Chain, task, tools):
        super().__init__(chain, task, tools)
        self.buffer: list = []

    def _flush(self) -> None:
        if self.buffer:
            evs, self.buffer = self.buffer, []
            self.chain.store.add([event_line(e) for e in evs], evs, self.task.time, self.task.project_id)

    def on_start(self, request):
        self.buffer.append(request)
        return render(self.chain.store.search(request.text))

    def on_event(self, event):
        if event.kind == "candidate_call":
            return  # a call is not a message; its receipt is
        ev = self.read(event)
        if ev.kind == "message" and ev.role == "user":  # a user turn: search with it, inject the hits
            self.deliver(render(self.chain.store.search(ev.text)), ev.step, "supplement")
        self.buffer.append(ev)
        if len(self.buffer) >= self.chain.opts.batch_size:
            self._flush()

    def on_end(self, completed):
        if completed:
            self._flush()


def build(cfg, ctx):
    return text_method(cfg, ctx, Options, Mem0Chain, Mem0Session, "mem0")
