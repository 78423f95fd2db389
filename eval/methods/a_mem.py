"""`a_mem`: A-MEM, agentic Zettelkasten memory (arXiv 2502.12110; agiresearch/A-mem), re-implemented.

- **Note construction** (`add_note(content, time)`, one LLM call): keywords, a one-sentence context
  and tags for the content; the note also keeps its timestamp, links and evolution history.
- **Link generation + memory evolution** (one LLM call): the `neighbours` (k = 5) nearest existing
  notes are shown with the new note; the model decides `should_evolve` and the actions
  `strengthen` (link the new note to suggested neighbours and replace its tags) and
  `update_neighbor` (overwrite each neighbour's context and tags, in order).
- **Retrieval**: top-`top_k` (10) notes by similarity, then their linked notes (up to `top_k` more).
Each conversation turn is a note, as in the paper's LoCoMo runs (user turns, the agent's messages,
and tool receipts; calls themselves are not turns). Notes are indexed on content + context +
keywords (the paper's reproduction code; the library indexes the content only).
Departures: the run's embedder (default BM25) instead of all-MiniLM-L6-v2 + ChromaDB; the
`evo_threshold` index consolidation is not needed (the index is recomputed); offline, both calls are
the shared stand-ins: keywords = the slot names and values the content states (+ its longer words),
context = the content's facts, tags = the slots; evolution links a new note to neighbours about
the same slot (strengthen) and appends the new value to their context (update_neighbor).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from eval.methods import standins
from eval.methods.text_method import TextChain, TextSession, event_line, text_method
from pulse.config.schema import knob

ANALYZE_SYSTEM = (
    "Analyse the content: give its salient keywords (at least three), a one-sentence context (topic, "
    'key points, purpose) and at least three broad tags. Reply with a JSON object {"keywords": [...], '
    '"context": ..., "tags": [...]}.'
)
EVOLVE_SYSTEM = (
    "A new memory note and its nearest neighbours. Decide whether memory should evolve and how: "
    "strengthen (connect the new note to neighbours; give their ids and the new note's tags) and/or "
    "update_neighbor (new context and tags for each neighbour, in order). Reply with a JSON object "
    '{"should_evolve": bool, "actions": [...], "suggested_connections": [...], "tags_to_update": [...], '
    '"new_context_neighborhood": [...], "new_tags_neighborhood": [[...]]}.'
)
_WORD = re.compile(r"[A-Za-z][A-Za-z_\-]{4,}")


@dataclass(frozen=True)
class Options:
    """A-MEM's knobs (`method.options`)."""

    # nearest notes shown to the evolution call
    neighbours: int = knob(5, ge=1)
    # notes returned by retrieval (linked notes are added, up to as many again)
    top_k: int = knob(10, ge=1)


@dataclass
class Note:
    """One Zettelkasten note: the content and its time, the keywords, context and tags the analysis
    gave it, its links, and the contexts evolution replaced."""

    id: str
    content: str
    timestamp: str
    keywords: list[str] = field(default_factory=list)
    context: str = ""
    tags: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    evolution_history: list[str] = field(default_factory=list)

    @property
    def index_text(self) -> str:
        return f"{self.content} {self.context} keywords: {', '.join(self.keywords)}"

    def render(self) -> str:
        return f"{self.timestamp[:16]} {self.content} (context: {self.context})"


class AMemChain(TextChain):
    """A-MEM's memory across one persona's tasks: a note per seed-history turn, then per task turn
    (`add_note`); retrieval is `search`."""

    name = "a_mem"

    def __init__(self, seed, llm, opts: Options):
        super().__init__(seed, llm, opts)
        self.notes: dict[str, Note] = {}
        for s in seed.history.sessions:
            for t in s.turns:
                if t.text != "Noted.":
                    ev = standins.turn_event(t, s.time, self.vocab)
                    self.add_note(event_line(ev), s.time, ev, s.project_id)

    def _facts(self, ev, project_id: str):
        return standins.extract_facts([ev], self.user_id, project_id, self.reading) if ev is not None else []

    def add_note(self, content: str, time: str, ev=None, project_id: str = "") -> Note:
        """Note construction (one call), then link generation and memory evolution over the note's
        nearest existing notes (one call, when it has any)."""
        facts = self._facts(ev, project_id) or standins.read_facts(content, self.vocab, self.user_id)
        a = self.acct.call(
            "a_mem.analyze", ANALYZE_SYSTEM, content, lambda: _offline_analysis(content, facts, project_id)
        )
        note = Note(
            f"n{len(self.notes) + 1}",
            content,
            time,
            [str(k) for k in a.get("keywords", [])],
            str(a.get("context", "")),
            [str(t) for t in a.get("tags", [])],
        )
        self.acct.wrote(note.index_text)
        ids = list(self.notes)
        hits = self.index.search(
            note.index_text, [self.notes[i].index_text for i in ids], self.opts.neighbours
        )
        nbrs = [self.notes[ids[j]] for j, _ in hits]
        if nbrs:
            self._evolve(note, nbrs, facts)
        self.notes[note.id] = note
        return note

    def _evolve(self, note: Note, nbrs: list[Note], facts) -> None:
        """The evolution call over the new note and its neighbours, then its actions: `strengthen`
        links the new note and replaces its tags, `update_neighbor` rewrites each neighbour's context
        (the old one kept in its history) and tags."""
        prompt = (
            "New note: "
            + json.dumps({"content": note.content, "keywords": note.keywords, "context": note.context})
            + "\n"
            "Neighbours:\n"
            + "\n".join(
                f"[{i}] {n.content} (context: {n.context}; tags: {n.tags})" for i, n in enumerate(nbrs)
            )
        )
        ev_out = self.acct.call(
            "a_mem.evolve", EVOLVE_SYSTEM, prompt, lambda: _offline_evolution(note, nbrs, facts)
        )
        if not ev_out.get("should_evolve"):
            return
        acts = ev_out.get("actions", [])
        if "strengthen" in acts:
            note.links += [str(c) for c in ev_out.get("suggested_connections", []) if str(c) in self.notes]
            note.tags = [str(t) for t in ev_out.get("tags_to_update", note.tags)]
        if "update_neighbor" in acts:
            for n, ctx, tags in zip(
                nbrs,
                ev_out.get("new_context_neighborhood", []),
                ev_out.get("new_tags_neighborhood", []),
            ):
                if str(ctx) != n.context:
                    n.evolution_history.append(n.context)
                    n.context = str(ctx)
                    self.acct.wrote(n.context)
                n.tags = [str(t) for t in tags]

    def search(self, query: str) -> list[Note]:
        ids = list(self.notes)
        hits = [
            self.notes[ids[j]]
            for j, _ in self.index.search(query, [self.notes[i].index_text for i in ids], self.opts.top_k)
        ]
        linked = []
        for n in hits:
            for lid in n.links:
                if lid in self.notes and self.notes[lid] not in hits and self.notes[lid] not in linked:
                    linked.append(self.notes[lid])
        return hits + linked[: self.opts.top_k]

    def close(self) -> None:
        pass


def _offline_analysis(content: str, facts, project_id: str) -> dict:
    """The analysis call's stand-in: keywords = the slots and values the content states (+ its longer
    words), context = its facts, tags = the slots (and the project)."""
    kws = [f.slot.replace("_", " ") for f in facts] + [f.value for f in facts]
    kws += [w.lower() for w in _WORD.findall(content) if w.lower() not in kws][:5]
    ctx = " ".join(f.text for f in facts) or content[:160]
    return {
        "keywords": kws,
        "context": ctx,
        "tags": [f.slot for f in facts] + ([project_id] if project_id else []),
    }


def _offline_evolution(note: Note, nbrs: list[Note], facts) -> dict:
    """The evolution call's stand-in: link the new note to the neighbours about the same slot and
    append its context, dated, to theirs (each neighbour's original context + the newest fact)."""
    same = [i for i, n in enumerate(nbrs) if set(n.tags) & {f.slot for f in facts}]
    if not same:
        return {"should_evolve": False, "actions": []}
    base = [n.evolution_history[0] if n.evolution_history else n.context for n in nbrs]
    ctxs = [
        base[i] + (f" Later ({note.timestamp[:10]}): {note.context}" if i in same else "")
        if i in same
        else nbrs[i].context
        for i in range(len(nbrs))
    ]
    tags = [sorted(set(n.tags) | (set(note.tags) if i in same else set())) for i, n in enumerate(nbrs)]
    return {
        "should_evolve": True,
        "actions": ["strengthen", "update_neighbor"],
        "suggested_connections": [nbrs[i].id for i in same],
        "tags_to_update": note.tags,
        "new_context_neighborhood": ctxs,
        "new_tags_neighborhood": tags,
    }


class AMemSession(TextSession):
    """One task with A-MEM: the notes retrieved for the request are delivered at the start and for
    each user message; every turn (not the calls themselves) becomes a note."""

    def _render(self, query: str) -> str:
        return "\n".join(n.render() for n in self.chain.search(query))

    def on_start(self, request):
        text = self._render(request.text)
        self.chain.add_note(event_line(request), self.task.time, None, self.task.project_id)
        return text

    def on_event(self, event):
        if event.kind == "candidate_call":
            return
        ev = self.read(event)
        if ev.kind == "message" and ev.role == "user":
            self.deliver(self._render(ev.text), ev.step, "supplement")
        self.chain.add_note(event_line(ev), self.task.time, ev, self.task.project_id)


def build(cfg, ctx):
    return text_method(cfg, ctx, Options, AMemChain, AMemSession, "a_mem")
