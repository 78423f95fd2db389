"""`lightmem`: LightMem (arXiv 2510.18866; zjunlp/LightMem), re-implemented.

Sensory -> short-term -> long-term memory:
1. messages carry timestamps; **topic segmentation** cuts the stream where adjacent user turns are
   dissimilar (similarity below `segment_threshold`, the run's embedder);
2. a **short-term buffer** of `buffer_tokens` (512) collects whole topic segments (counting user
   messages only, LightMem's `messages_use=user_only`); when the next segment would overflow it,
   the buffer is flushed to extraction; the session end forces a flush;
3. **extraction** (one LLM call per flushed batch): timestamped standalone facts;
4. **soft insert**: each fact becomes an entry (time stamp, weekday, fact) in the long-term store,
   no LLM at write time;
5. **offline (sleep-time) update**, after each session: every new entry gets an update queue of its
   `queue_top_k` (20) most similar *earlier* entries, keeping `queue_keep` (10); each target entry
   that a newer entry queued with score >= `update_threshold` (0.8) gets one LLM call deciding
   update (merge the newer, richer information), delete (a direct conflict: newer wins) or ignore;
6. **retrieval**: top-`top_k` (10) entries for the query, shown as "time_stamp weekday memory".
Departures: no LLMLingua-2 pre-compression and no attention-based boundary proposal (its weights
are a model download; the similarity cut of step 1 remains); tool receipts that record project
decisions go to extraction (as for every text method); the sleep-time update does not block the
task agent (its tokens count as Store tokens, its time not); offline, the LLM calls are the shared
stand-ins; with a lexical embedder (BM25, the default) scores are relative to the best match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from eval.methods import standins
from eval.methods.text_method import TextChain, TextSession, event_line, text_method
from pulse.agent.tokens import count_tokens
from pulse.config.schema import knob

EXTRACT_SYSTEM = (
    "Process the user messages in order. Turn every message that is not filler into standalone "
    "facts with full details and its time. Reply with a JSON object "
    '{"data": [{"source_id": <n>, "fact": <text>}]}.'
)
UPDATE_SYSTEM = (
    "A target memory and newer related memories. Decide: update (merge the newer, richer information "
    "into the target; give the new text), delete (they directly conflict; the newer wins) or ignore. "
    'Reply with a JSON object {"action": "update|delete|ignore", "new_memory": <text>}.'
)


@dataclass(frozen=True)
class Options:
    """LightMem's own knobs (`method.options.*`): the short-term buffer size, the topic-segmentation
    threshold, the sleep-time update queue (searched, kept, trigger score) and the entries retrieved."""

    # short-term buffer (tokens of user messages) before a flush to extraction
    buffer_tokens: int = knob(512, ge=16)
    # adjacent user turns below this similarity start a new topic segment
    segment_threshold: float = knob(0.2, ge=0.0, le=1.0)
    # sleep-time update queue: earlier neighbours searched / kept, and the score that triggers an update call
    queue_top_k: int = knob(20, ge=1)
    queue_keep: int = knob(10, ge=1)
    update_threshold: float = knob(0.8, ge=0.0, le=1.0)
    # entries returned by retrieve()
    top_k: int = knob(10, ge=1)


@dataclass
class Entry:
    """One long-term entry: id, time stamp, the fact and its sleep-time update queue (earlier entries with
    their scores); `line` is how retrieval shows it."""

    id: str
    time: str
    fact: str
    queue: list[tuple[str, float]] = field(default_factory=list)

    @property
    def line(self) -> str:
        wd = date.fromisoformat(self.time[:10]).strftime("%a") if self.time[:10] else ""
        return f"{self.time[:19]} {wd} {self.fact}".strip()


class LightMemChain(TextChain):
    """LightMem's memory of one persona chain (the module docstring), built from the seed history: `add`
    segments the stream into the short-term buffer (flushed to extraction), `end_session` flushes and runs the
    sleep-time update, `retrieve(query)` renders the top entries."""

    name = "lightmem"

    def __init__(self, seed, llm, opts: Options):
        super().__init__(seed, llm, opts)
        self.entries: dict[str, Entry] = {}
        self.n = 0
        self.buffer: list = []  # (events of) whole segments waiting for extraction
        self.segment: list = []
        self.new_ids: list[str] = []
        for s in seed.history.sessions:
            for t in s.turns:
                self.add(
                    standins.turn_event(t, s.time, self.vocab),
                    s.project_id,
                )
        self.end_session(seed.history.sessions[-1].project_id if seed.history.sessions else "")

    # -- write path -------------------------------------------------------------------------------
    @staticmethod
    def _user_tokens(events) -> int:
        return sum(count_tokens(e.text) for e in events if e.kind == "message" and e.role == "user")

    def add(self, ev, project_id: str) -> None:
        users = [e for e in self.segment if e.kind == "message" and e.role == "user"]
        if (
            ev.kind == "message"
            and ev.role == "user"
            and users
            and self.index.similarity(users[-1].text, ev.text) < self.opts.segment_threshold
        ):
            self._close_segment(project_id)  # a topic boundary
        self.segment.append(ev)

    def _close_segment(self, project_id: str) -> None:
        if not self.segment:
            return
        if (
            self.buffer
            and self._user_tokens(self.buffer) + self._user_tokens(self.segment) > self.opts.buffer_tokens
        ):
            self._flush(project_id)
        self.buffer.extend(self.segment)
        self.segment = []

    def _flush(self, project_id: str) -> None:
        batch, self.buffer = self.buffer, []
        if not batch:
            return
        facts = standins.extract_facts(batch, self.user_id, project_id, self.reading)
        lines = "\n".join(f"[{i}] {e.time} {event_line(e)}" for i, e in enumerate(batch))
        out = self.acct.call(
            "lightmem.extract",
            EXTRACT_SYSTEM,
            lines,
            lambda: {"data": [{"source_id": 0, "fact": f.text, "time": f.time} for f in facts]},
        )
        now = batch[-1].time
        for d in out.get("data", []):
            fact = str(d.get("fact", "")).strip()
            if not fact:
                continue
            self.n += 1
            e = Entry(f"e{self.n}", str(d.get("time") or now), fact)  # soft insert
            self.entries[e.id] = e
            self.new_ids.append(e.id)
            self.acct.wrote(e.line)

    def end_session(self, project_id: str) -> None:
        self._close_segment(project_id)
        self._flush(project_id)  # force_extract
        self.sleep_update()

    def sleep_update(self) -> None:
        """Offline update queue + update / delete / ignore (off the task agent's critical path)."""
        new, self.new_ids = self.new_ids, []
        for eid in new:
            e = self.entries.get(eid)
            if e is None:
                continue
            earlier = [x for x in self.entries.values() if x.id != eid and x.time <= e.time]
            hits = self.index.search(e.fact, [x.fact for x in earlier], self.opts.queue_top_k)
            e.queue = [(earlier[i].id, s) for i, s in hits][: self.opts.queue_keep]
        for target in list(self.entries.values()):
            newer = [
                x
                for x in self.entries.values()
                if x.id in new and any(t == target.id and s >= self.opts.update_threshold for t, s in x.queue)
            ]
            if not newer:
                continue
            prompt = f"Target: {target.line}\nNewer:\n" + "\n".join(x.line for x in newer)

            def standin(target=target, newer=newer):
                old = standins.read_facts(target.fact, self.vocab, self.user_id)
                for x in newer:
                    nf = standins.read_facts(x.fact, self.vocab, self.user_id)
                    if old and nf and old[0].key == nf[0].key and old[0].value != nf[0].value:
                        return {"action": "delete"}
                return {"action": "ignore"}

            out = self.acct.call("lightmem.update", UPDATE_SYSTEM, prompt, standin, blocking=False)
            act = str(out.get("action", "ignore")).lower()
            if act == "delete":
                del self.entries[target.id]
            elif act == "update" and out.get("new_memory"):
                target.fact = str(out["new_memory"])
                self.acct.wrote(target.line)

    # -- read path --------------------------------------------------------------------------------
    def retrieve(self, query: str) -> str:
        es = list(self.entries.values())
        return "\n".join(
            es[i].line for i, _ in self.index.search(query, [e.fact for e in es], self.opts.top_k)
        )

    def close(self) -> None:
        pass


class LightMemSession(TextSession):
    """One task under LightMem: retrieval with the request and with each user message (delivered as a
    supplement); every event but a candidate call goes into the chain's buffer; a completed task ends the
    session there."""

    def on_start(self, request):
        self.chain.add(request, self.task.project_id)
        return self.chain.retrieve(request.text)

    def on_event(self, event):
        if event.kind == "candidate_call":
            return
        ev = self.read(event)
        if ev.kind == "message" and ev.role == "user":
            self.deliver(self.chain.retrieve(ev.text), ev.step, "supplement")
        if not ev.time:
            ev = type(ev)(
                ev.kind,
                ev.step,
                time=self.task.time,
                text=ev.text,
                tool=ev.tool,
                args=dict(ev.args),
                role=ev.role,
                event_id=ev.event_id,
            )
        self.chain.add(ev, self.task.project_id)

    def on_end(self, completed):
        if completed:
            self.chain.end_session(self.task.project_id)


def build(cfg, ctx):
    return text_method(cfg, ctx, Options, LightMemChain, LightMemSession, "lightmem")
