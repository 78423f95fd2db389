"""`openclaw`: OpenClaw's workspace memory, re-implemented from its public documentation.

"The model only remembers what gets written to disk." Per user, a workspace folder holds:
- `USER.md` (who the user is), `MEMORY.md` (curated durable memory: decisions, preferences,
  durable facts) and `memory/YYYY-MM-DD.md` (daily append-only notes: running context);
- at every session start (bootstrap) USER.md, MEMORY.md and today's + yesterday's daily notes are
  injected, each truncated at `bootstrap_max_chars` (20,000);
- tools `memory_search` (hybrid score 0.7 * vector + 0.3 * keyword over chunks of MEMORY.md,
  USER.md and memory/*.md; top 6, min score 0.35; keyword alone when the embedder has no vectors,
  as OpenClaw falls back to full-text search without embeddings) and `memory_get` (read a file);
- memory is written by the agent itself with its file tools, when its instructions say so ("if
  someone says remember this, write it down"): here, after a user turn that states something
  durable, one agent turn writes it (a modelled LLM call); decisions and preferences go to
  MEMORY.md, habits and running context to the day's note, profile facts to USER.md;
- a pre-compaction flush: when the session's tokens cross `context_tokens - reserve_tokens -
  soft_threshold_tokens`, one silent turn stores durable notes in the day's file (once per cycle).
At a task's start the agent searches memory (its system prompt tells it to recall before acting on
prior work, decisions or preferences): offline, its queries are the slots the request names and the
task's project; it reads the hits not already in its context with memory_get.

Departures: chunks are whole lines grouped up to `chunk_tokens` (400) without the 80-token
overlap; the keyword side is a token match, not SQLite FTS5 (same AND semantics and the same score
of 1 per hit); MMR, temporal decay, "dreaming" and the optional session hooks are off (their
defaults); the window sizes are scaled to the offline suites; offline, what the agent writes and
searches for are the shared stand-in's facts and the slots the request names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from eval.methods import standins
from eval.methods.pulse_method import tools_vocab
from eval.methods.text_method import Accountant, TextIndex, TextSession, event_line, text_method
from pulse.agent.tokens import count_tokens
from pulse.config.schema import knob
from pulse.memory import make_embedder

WRITE_SYSTEM = (
    "You keep your own memory in Markdown files. Decisions, preferences and durable facts go to "
    "MEMORY.md, running context to today's memory/YYYY-MM-DD.md, facts about who the user is to "
    'USER.md. Reply with a JSON object {"writes": [{"file": ..., "text": ...}]} (empty when '
    "nothing is worth keeping)."
)
FLUSH_SYSTEM = (
    'Session nearing compaction. Store durable memories now (JSON {"writes": [...]}; empty if nothing).'
)
SEARCH_SYSTEM = "Before acting on the user's preferences or earlier work, search memory (memory_search)."
_HABIT = re.compile(r"\b(usually|often|normally|typically)\b", re.I)
_PROFILE = re.compile(r"^\s*my\s+[\w ]+\s+is\s+", re.I)


@dataclass(frozen=True)
class Options:
    """OpenClaw's own knobs (`method.options.*`): bootstrap file size, memory_search results, minimum score
    and vector weight, chunk size, and the context sizes that set the pre-compaction flush."""

    # chars of each bootstrap file injected at session start (OpenClaw bootstrapMaxChars)
    bootstrap_max_chars: int = knob(20000, ge=1)
    # memory_search: results, min hybrid score, vector / text weights (OpenClaw defaults)
    max_results: int = knob(6, ge=1)
    min_score: float = knob(0.35, ge=0.0)
    vector_weight: float = knob(0.7, ge=0.0, le=1.0)
    # chunk size of the search index (tokens)
    chunk_tokens: int = knob(400, ge=16)
    # pre-compaction flush threshold = context_tokens - reserve_tokens - soft_threshold_tokens (scaled)
    context_tokens: int = knob(2048, ge=64)
    reserve_tokens: int = knob(512, ge=0)
    soft_threshold_tokens: int = knob(128, ge=0)


def _day(iso: str) -> str:
    return iso[:10] or "undated"


class Workspace:
    """The user's workspace folder (real files)."""

    def __init__(self, root: Path):
        self.root = root
        (root / "memory").mkdir(parents=True, exist_ok=True)
        for f in ("USER.md", "MEMORY.md"):
            (root / f).touch()

    def read(self, rel: str) -> str:  # memory_get: empty text when the file is missing
        p = self.root / rel
        return p.read_text() if p.exists() else ""

    def append(self, rel: str, line: str) -> None:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "a") as f:
            f.write(line.rstrip("\n") + "\n")

    def files(self) -> list[str]:
        return ["MEMORY.md", "USER.md"] + sorted(
            f"memory/{p.name}" for p in (self.root / "memory").glob("*.md")
        )


class OpenClawChain:
    """OpenClaw's memory of one persona chain (the module docstring): a workspace of Markdown files the agent
    writes (`agent_writes`, from the seed history on), `bootstrap(day)` (what a session starts with) and
    `memory_search(query)` (hybrid scores over chunks)."""

    name = "openclaw"

    def __init__(self, seed, llm, opts: Options):
        self.acct = Accountant(llm)
        self.opts = opts
        self.user_id = seed.user_id
        self.vocab = tools_vocab(seed.tools)
        self.reading = standins.chain_reading(seed)
        self.ws = Workspace(Path(seed.root) / "workspace")
        self.index = TextIndex(seed.embedder)
        self.text_index = TextIndex(make_embedder("bm25")) if seed.embedder.dense else self.index
        for s in seed.history.sessions:
            evs = [standins.turn_event(t, s.time, self.vocab) for t in s.turns]
            self.agent_writes(evs, s.time, s.project_id)

    # -- the agent's own writes -----------------------------------------------------------------
    def agent_writes(self, events, now: str, project_id: str, system: str = WRITE_SYSTEM) -> list[dict]:
        facts = standins.extract_facts(events, self.user_id, project_id, self.reading)

        def standin():
            writes = []
            for ev in events:
                if ev.kind == "message" and ev.role == "user" and _PROFILE.match(ev.text) and not ev.args:
                    writes.append({"file": "USER.md", "text": ev.text})
            for f in facts:
                src = next(
                    (
                        e.text
                        for e in events
                        if e.args.get(f.slot) == f.value or e.args.get(f"decision.{f.slot}") == f.value
                    ),
                    "",
                )
                daily = bool(_HABIT.search(src))
                writes.append({"file": f"memory/{_day(now)}.md" if daily else "MEMORY.md", "text": f.text})
            return {"writes": writes}

        if not facts and not any(
            e.kind == "message" and e.role == "user" and _PROFILE.match(e.text) for e in events
        ):
            return []  # nothing the agent's instructions ask it to keep: no write turn
        out = self.acct.call("openclaw.write", system, "\n".join(event_line(e) for e in events), standin)
        done = []
        for w in out.get("writes", []):
            rel, text = str(w.get("file", "")), str(w.get("text", "")).strip()
            if not text or not (
                rel in ("MEMORY.md", "USER.md")
                or re.fullmatch(r"memory/(\d{4}-\d{2}-\d{2}|undated)\.md", rel)
            ):
                continue
            line = f"- {_day(now)}: {text}" if rel != "USER.md" else f"- {text}"
            self.ws.append(rel, line)
            self.acct.wrote(line)
            done.append({"file": rel, "text": line})
        return done

    # -- reading -----------------------------------------------------------------------------------
    def bootstrap(self, today: str) -> str:
        days = []
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", today):  # a task without a clock has no "today" note
            days = [(date.fromisoformat(today) - timedelta(days=1)).isoformat(), today]
        parts = []
        for rel in ("USER.md", "MEMORY.md", *(f"memory/{d}.md" for d in days)):
            text = self.ws.read(rel)[: self.opts.bootstrap_max_chars]
            if text.strip():
                parts.append(f"## {rel}\n{text.rstrip()}")
        return "\n".join(parts)

    def chunks(self) -> list[tuple[str, str]]:
        """(file, chunk text): consecutive lines up to `chunk_tokens`."""
        out = []
        for rel in self.ws.files():
            cur, n = [], 0
            for line in self.ws.read(rel).splitlines():
                t = count_tokens(line)
                if cur and n + t > self.opts.chunk_tokens:
                    out.append((rel, "\n".join(cur)))
                    cur, n = [], 0
                cur.append(line)
                n += t
            if cur:
                out.append((rel, "\n".join(cur)))
        return out

    def memory_search(self, query: str) -> list[tuple[str, str, float]]:
        """OpenClaw's hybrid search: keyword hits are the chunks holding *every* query token (its FTS5
        query ANDs the tokens) and score 1 (its BM25-rank-to-score maps every FTS5 hit to 1); vector
        hits are the top `max_results * 4` chunks by cosine; score = w * vector + (1 - w) * text over
        the union; min score, then top `max_results`. Without vectors (BM25 embedder): keyword only."""
        chunks = self.chunks()
        if not chunks:
            return []
        tokens = [t.lower() for t in re.findall(r"[A-Za-z0-9]+", query)]
        text = {
            i: 1.0
            for i, (_, c) in enumerate(chunks)
            if tokens and all(t in re.findall(r"[a-z0-9]+", c.lower()) for t in tokens)
        }
        if self.index.embedder.dense:
            cos = self.index.scores(query, [c for _, c in chunks])
            vec = {
                i: float(cos[i])
                for i in sorted(range(len(chunks)), key=lambda i: -cos[i])[: self.opts.max_results * 4]
            }
            w = self.opts.vector_weight
            score = {i: w * vec.get(i, 0.0) + (1 - w) * text.get(i, 0.0) for i in set(vec) | set(text)}
        else:
            score = text  # no vectors: full-text search only
        order = sorted((i for i in score if score[i] >= self.opts.min_score), key=lambda i: (-score[i], i))
        return [(chunks[i][0], chunks[i][1], score[i]) for i in order[: self.opts.max_results]]

    def close(self) -> None:
        pass


class OpenClawSession(TextSession):
    """One task under OpenClaw: the bootstrap plus the memory_search hits at the start; after a durable user
    statement the agent writes it down, and once per cycle the pre-compaction flush stores notes."""

    def __init__(self, chain, task, tools):
        super().__init__(chain, task, tools)
        self.flushed = False
        self.session_tokens = 0

    def search_queries(self, text: str) -> list[str]:
        """What the agent searches for (stand-in for its own query): each slot the text names,
        then the task's project."""
        from pulse.core.statements import parse_statement

        qs = [slot.replace("_", " ") for slot in parse_statement(text, self.vocab)]
        return qs + ([self.task.project_id] if self.task.project_id else [])

    def on_start(self, request):
        boot = self.chain.bootstrap(_day(self.task.time))
        # the agent's memory_search turn (one call per query), then memory_get of the hits
        queries = self.search_queries(request.text)
        out = self.chain.acct.call(
            "openclaw.memory_search",
            SEARCH_SYSTEM,
            request.text,
            lambda: {"tool_calls": [{"memory_search": q} for q in queries]},
            path="retrieve",
        )
        hits, seen = [], set()
        for q in [
            str(next(iter(c.values()))) for c in out.get("tool_calls", []) if isinstance(c, dict) and c
        ]:
            for rel, chunk, _ in self.chain.memory_search(q):
                if chunk not in seen and chunk not in boot:
                    seen.add(chunk)
                    hits.append(f"## memory_get {rel}\n{chunk}")
        text = "\n".join([boot, *hits]).strip()
        self.session_tokens = count_tokens(text) + count_tokens(request.text)
        return text

    def on_event(self, event):
        ev = self.read(event)
        self.session_tokens += count_tokens(event_line(ev))
        if ev.kind == "message" and ev.role == "user":  # the user said something: the agent writes it down
            self.chain.agent_writes([ev], self.task.time, self.task.project_id)
        o = self.chain.opts
        if (
            not self.flushed
            and self.session_tokens >= o.context_tokens - o.reserve_tokens - o.soft_threshold_tokens
        ):
            self.flushed = True  # once per compaction cycle
            self.chain.agent_writes(
                [e for e in self.events if e.kind != "candidate_call"],
                self.task.time,
                self.task.project_id,
                FLUSH_SYSTEM,
            )


def build(cfg, ctx):
    return text_method(cfg, ctx, Options, OpenClawChain, OpenClawSession, "openclaw")
