"""`zcode`: ZCode's memory strategy, **reconstructed from public descriptions** (its agent is closed
source; the design follows Z.ai's documentation and third-party integrations, the same design as
Claude Code's auto-memory).

- **Project instruction file** (`AGENTS.md` at the project root) loaded into every conversation.
- **Auto-memory**: a memory folder per project with `MEMORY.md`, an index of one line per memory
  (always injected, capped at `index_max_lines`), and one Markdown file per fact, which the agent
  reads on demand (here: the files whose index line matches the request or a user message, top
  `read_k`, one read turn).
- **Save durable facts** at the end of a task (the Stop hook's prompt, one agent turn): new facts get
  a file and an index line; a fact about something already remembered rewrites that file.
Departures: the execution-history database and context compaction are not modelled; the index line
names the fact without its value (the value is in the file); the memory folder is per user (the
suites' persona chains), project facts name their project; offline, the save step's facts are the
shared stand-in's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from eval.methods import standins
from eval.methods.text_method import TextChain, TextSession, event_line, text_method
from pulse.config.schema import knob

SAVE_SYSTEM = (
    "Before you stop: save durable facts from this conversation that will matter in future tasks "
    "(preferences, decisions, conventions). Update an existing memory file rather than adding a "
    'duplicate. Reply with a JSON object {"memories": [{"file": ..., "title": ..., "text": ...}]}.'
)
READ_SYSTEM = "Read the memory files relevant to this request (Read tool)."
INSTRUCTIONS = "# AGENTS.md\nProject conventions: follow the user's instructions; keep changes minimal."


@dataclass(frozen=True)
class Options:
    """ZCode's own knobs (`method.options.*`): MEMORY.md lines injected at session start and memory files read
    per request or user message."""

    # MEMORY.md lines injected at session start
    index_max_lines: int = knob(200, ge=1)
    # memory files read on demand per request / user message
    read_k: int = knob(5, ge=1)


def slug(scope: str, slot: str) -> str:
    who = "user" if scope.startswith("user:") else "project_" + scope.split(":", 1)[1]
    return re.sub(r"[^a-z0-9_\-]", "_", f"{who}_{slot}".lower()) + ".md"


class ZCodeChain(TextChain):
    """ZCode's memory of one persona chain (the module docstring): AGENTS.md and a memory folder with the
    MEMORY.md index and one file per fact. `save(events, ...)` runs the save step, `index_text()` and
    `read_relevant(query)` are what a session reads."""

    name = "zcode"

    def __init__(self, seed, llm, opts: Options):
        super().__init__(seed, llm, opts)
        self.dir = Path(seed.root) / "memory"
        self.dir.mkdir(parents=True, exist_ok=True)
        (Path(seed.root) / "AGENTS.md").write_text(INSTRUCTIONS + "\n")
        self.entries: dict[str, str] = {}  # file -> index line (MEMORY.md, in order)
        for s in seed.history.sessions:
            evs = [standins.turn_event(t, s.time, self.vocab) for t in s.turns]
            self.save(evs, s.time, s.project_id)

    def _write_index(self) -> None:
        (self.dir / "MEMORY.md").write_text("".join(line + "\n" for line in self.entries.values()))

    def save(self, events, now: str, project_id: str) -> None:
        facts = standins.extract_facts(events, self.user_id, project_id, self.reading)
        if not facts:
            return  # the Stop hook's turn finds nothing durable: it writes nothing (its cost is still paid)

        def standin():
            return {
                "memories": [
                    {
                        "file": slug(f.scope, f.slot),
                        "title": f"{f.slot.replace('_', ' ')} "
                        f"({'user preference' if f.scope.startswith('user:') else f.scope})",
                        "text": f"{now[:10]}: {f.text}",
                    }
                    for f in facts
                ]
            }

        out = self.acct.call("zcode.save", SAVE_SYSTEM, "\n".join(event_line(e) for e in events), standin)
        for m in out.get("memories", []):
            file, title, text = str(m.get("file", "")), str(m.get("title", "")), str(m.get("text", ""))
            if not re.fullmatch(r"[\w\-]+\.md", file) or file == "MEMORY.md" or not text:
                continue
            (self.dir / file).write_text(text + "\n")  # a remembered thing is rewritten, not duplicated
            self.acct.wrote(text)
            if file not in self.entries:
                self.entries[file] = f"- [{title}]({file})"
                self.acct.wrote(self.entries[file])
        self._write_index()

    def index_text(self) -> str:
        return "\n".join(list(self.entries.values())[: self.opts.index_max_lines])

    def read_relevant(self, query: str) -> str:
        files = list(self.entries)
        hits = self.index.search(query, [self.entries[f] for f in files], self.opts.read_k, min_score=0.1)
        return "\n".join(f"## {files[i]}\n{(self.dir / files[i]).read_text().strip()}" for i, _ in hits)

    def close(self) -> None:
        pass


class ZCodeSession(TextSession):
    """One task under ZCode: AGENTS.md, the index and the relevant memory files at the start, a read for each
    user message, and the save step when a completed task ends."""

    def _read(self, query: str) -> str:
        self.chain.acct.call("zcode.read", READ_SYSTEM, query, lambda: {"tool": "Read"}, path="retrieve")
        return self.chain.read_relevant(query)

    def on_start(self, request):
        boot = f"{INSTRUCTIONS}\n## MEMORY.md\n{self.chain.index_text()}"
        return boot + "\n" + self._read(request.text)

    def on_event(self, event):
        if event.kind == "message" and event.role == "user":
            self.deliver(self._read(event.text), event.step, "supplement")

    def on_end(self, completed):
        if completed:
            evs = [
                standins.parsed_event(e.kind, e.role, e.text, self.vocab, self.task.time, step=e.step)
                if e.kind == "message"
                else e
                for e in self.events
                if e.kind != "candidate_call"
            ]
            self.chain.save(evs, self.task.time, self.task.project_id)


def build(cfg, ctx):
    return text_method(cfg, ctx, Options, ZCodeChain, ZCodeSession, "zcode")
