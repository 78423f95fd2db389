"""`dsh` (DeepSeek Harness) memory strategy, re-implemented from its public repository's design.

dsh has no long-term memory store. What persists is:
- **instruction files** (`~/.dsh/AGENTS.md`, then each project directory's AGENTS.md), injected at a
  session's first step as a durable `<system-reminder>` message;
- the **append-only session event log** (user / assistant messages, tool calls, tool results); the
  model-visible history is a projection of it;
- **compaction**: before a step (`agent/pre-step`), when the context reaches `threshold_ratio` (0.8)
  of the context window, one summarisation LLM call replaces everything but the newest
  `retain_ratio` (0.16) of the window, kept verbatim, with a `<compacted-summary>` that merges the
  previous checkpoint summary.
Across tasks (a persona's chain is one long stream) the checkpoint summary, the retained tail and
the instruction files carry forward, which is all dsh offers by default.

Here: the seed history is replayed into the log (compacting as it goes); each task's session
starts with the instruction files + the projection (summary + log since it) delivered to the task
agent; its events are appended; the pre-step check compacts when needed and delivers the new
projection. Departures: the instruction files hold no user facts (nothing in the seed history
writes them); `context_tokens` is scaled to the offline suites (2,048 by default; real windows are
~100x larger, as are real traces); the optional tool-result pruner and todo tools are not modelled;
offline, the summary is the shared stand-in (newest value per fact, eval/methods/standins.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eval.methods import standins
from eval.methods.pulse_method import tools_vocab
from eval.methods.text_method import Accountant, TextSession, event_line, parse_options
from pulse.agent.tokens import count_tokens
from pulse.config.schema import knob

SUMMARY_SYSTEM = (
    "Summarise the conversation so far for your own later use: keep every requirement, user "
    "preference, project decision and unfinished item, newest value where they changed; merge the "
    'previous summary. Reply with a JSON object {"summary": [<line>, ...]}.'
)
INSTRUCTIONS = "# AGENTS.md\nFollow the user's instructions and the project's conventions."


@dataclass(frozen=True)
class Options:
    """dsh's own knobs (`method.options.*`): the context window, the share of it that triggers compaction, and
    the newest share kept verbatim."""

    # the context window the pressure check compares with (tokens; scaled to the offline suites)
    context_tokens: int = knob(2048, ge=64)
    # compact when the context reaches this fraction of the window (dsh compaction-basic: 0.8)
    threshold_ratio: float = knob(0.8, gt=0.0, le=1.0)
    # newest fraction of the window kept verbatim (dsh: 0.16)
    retain_ratio: float = knob(0.16, ge=0.0, lt=1.0)


@dataclass
class Entry:
    """One entry of dsh's session log: its time, its transcript text and the parsed event; `line` is what the
    projection shows."""

    time: str
    text: str
    event: object = None  # the parsed event (for the summary stand-in)

    @property
    def line(self) -> str:
        return f"{self.time[:10]} {self.text}"


@dataclass
class DshChain:
    """dsh's memory of one persona chain (the module docstring): the instruction files, the checkpoint summary
    and the log since it. `append` adds an event, `maybe_compact` compacts at the threshold (one summarisation
    call), `projection()` is what the task agent is given."""

    acct: Accountant
    opts: Options
    user_id: str
    vocab: dict
    instructions: str = INSTRUCTIONS
    summary: list = field(default_factory=list)  # the checkpoint summary (standins.Fact)
    log: list[Entry] = field(default_factory=list)  # entries after the last compaction
    compactions: int = 0
    name: str = "dsh"
    reading: object = None  # the run's reader bound to the tools (standins.chain_reading)

    def projection(self) -> str:
        parts = [f"<system-reminder>\n{self.instructions}\n</system-reminder>"]
        if self.summary:
            parts.append(
                "<compacted-summary>\n" + "\n".join(f.text for f in self.summary) + "\n</compacted-summary>"
            )
        parts += [e.line for e in self.log]
        return "\n".join(parts)

    def tokens(self) -> int:
        return count_tokens(self.projection())

    def append(self, time: str, ev) -> None:
        e = Entry(time, event_line(ev), ev)
        self.log.append(e)
        self.acct.wrote(e.line)

    def maybe_compact(self, project_id: str = "") -> bool:
        """The pre-step pressure check; True when it compacted."""
        if self.tokens() < self.opts.threshold_ratio * self.opts.context_tokens:
            return False
        keep, budget = [], self.opts.retain_ratio * self.opts.context_tokens
        for e in reversed(self.log):  # the newest entries that fit the retained share, verbatim
            n = count_tokens(e.line)
            if budget - n < 0:
                break
            budget -= n
            keep.insert(0, e)
        old = self.log[: len(self.log) - len(keep)]
        prior = self.summary
        facts = standins.extract_facts(
            [e.event for e in old if e.event is not None], self.user_id, project_id, self.reading
        )
        prompt = (
            "Previous summary:\n"
            + "\n".join(f.text for f in prior)
            + "\nConversation:\n"
            + "\n".join(e.line for e in old)
        )
        out = self.acct.call(
            "dsh.compact",
            SUMMARY_SYSTEM,
            prompt,
            lambda: {"summary": [f.text for f in standins.merge_summary(prior, facts)]},
        )
        lines = [str(x) for x in out.get("summary", [])]
        self.summary = [f for line in lines for f in standins.read_facts(line, self.vocab, self.user_id)] or [
            standins.Fact(line, "", "", "", "") for line in lines
        ]
        self.log = keep
        self.compactions += 1
        self.acct.wrote("\n".join(lines))
        return True

    def close(self) -> None:
        pass


class DshSession(TextSession):
    """One task under dsh: its request and events go into the chain's log; the start delivers the projection,
    and a compaction before a decision delivers the new one."""

    def on_start(self, request):
        self.chain.append(self.task.time, request)
        self.chain.maybe_compact(self.task.project_id)
        return self.chain.projection()

    def on_event(self, event):
        ev = self.read(event)
        self.chain.append(self.task.time, ev)

    def before_decision(self):
        if self.chain.maybe_compact(self.task.project_id):  # the agent's context is now the new projection
            self.deliver(self.chain.projection(), self.events[-1].step if self.events else 0, "supplement")


@dataclass
class DshMethod:
    """`method=dsh`: replays the seed history into a `DshChain` per persona chain and opens a `DshSession` per
    task."""

    name: str
    llm: object
    opts: Options
    uses_memory: bool = True
    memory_kind: str = "dsh"

    def open_chain(self, seed) -> DshChain:
        vocab = tools_vocab(seed.tools)
        chain = DshChain(
            Accountant(self.llm), self.opts, seed.user_id, vocab, reading=standins.chain_reading(seed)
        )
        for s in seed.history.sessions:
            for t in s.turns:
                ev = standins.turn_event(t, s.time, vocab)
                chain.append(s.time, ev)
            chain.maybe_compact(s.project_id)
        return chain

    def open_session(self, task, memory, concurrent, tools=()):
        return DshSession(memory, task, tools)


def build(cfg, ctx) -> DshMethod:
    return DshMethod(cfg.name, ctx.llm(), parse_options(Options, cfg.options, cfg.name))
