"""What every memory baseline (and the Proactive Memory Agent) shares: its stats, its session
plumbing, its options check and its similarity search over text.

A baseline is a *chain memory* (built from the seed history by `Method.open_chain`, kept across a
persona's tasks) plus one `TextSession` per task. The session turns the method's text into
`Delivery`s through the shared text->slot routine (`eval.methods.text_slots`), counts tokens and
memory-side LLM calls, and accounts time:

- Store tokens: tokens of the text the method writes into its memory during the task, plus the
  prompt and reply tokens of its write-path LLM calls (extraction, update decisions, summaries).
- Retrieve tokens: tokens of the text it hands the task agent, plus the tokens of its read-path
  LLM calls (e.g. reminder generation).
- Time: a blocking memory-side call adds its seconds to `blocking_s` (measured for an endpoint,
  modelled for the offline stand-ins, eval/methods/memory_llm.py), which the task agent's time per task
  includes; a call the system runs off the critical path (LightMem's sleep-time update) does not.
- The seed build (the past) is counted apart: `seed_store_tokens`, `seed_llm_calls` on the first
  task row of each chain.
No baseline has a pre-commit gate: `decide_call` returns None (the call executes).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from eval.methods import standins
from eval.methods.pulse_method import tools_vocab
from eval.methods.text_slots import text_items
from pulse.agent.runtime import AgentStats, Delivery
from pulse.agent.tokens import count_tokens
from pulse.config.schema import ConfigError, to_typed
from pulse.core.records import Event


def parse_options(cls, options: Mapping[str, Any], method: str):
    """A method's `options` dict checked against its typed `Options` dataclass (unknown key, wrong
    type, out-of-range value -> ConfigError naming `method.options.<key>`)."""
    try:
        return to_typed(dict(options or {}), cls, prefix="method.options")
    except ConfigError as e:
        raise ConfigError(f"{e} (method {method!r})") from None


@dataclass
class MethodStats(AgentStats):
    """A text method's episode stats: Pulse's `AgentStats` plus its memory-side LLM (label, calls, tokens,
    seconds), the seed build's cost (first task of a chain only) and method-specific counters (`extra`)."""

    memory_llm: str = ""
    memory_llm_calls: int = 0
    memory_llm_tokens: int = 0
    memory_llm_s: float = 0.0
    seed_store_tokens: int = 0
    seed_llm_calls: int = 0
    extra: dict = field(default_factory=dict)  # a method's own counters (e.g. the mem0ai cross-check)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(
            memory_llm=self.memory_llm,
            memory_llm_calls=self.memory_llm_calls,
            memory_llm_tokens=self.memory_llm_tokens,
            memory_llm_s=round(self.memory_llm_s, 4),
            seed_store_tokens=self.seed_store_tokens,
            seed_llm_calls=self.seed_llm_calls,
            **self.extra,
        )
        return d


@dataclass
class Ledger:
    """Token / call / time counts of a chain's memory work outside any task (the seed build)."""

    store_tokens: int = 0
    llm_calls: int = 0
    llm_s: float = 0.0


class Accountant:
    """Where a chain's memory-side costs go: the current task's stats, or the seed ledger."""

    def __init__(self, llm):
        self.llm = llm
        self.stats: MethodStats | None = None
        self.seed = Ledger()
        self.in_observe = False

    def call(self, purpose: str, system: str, user: str, standin, path: str = "store", blocking: bool = True):
        out, call = self.llm.json_call(purpose, system, user, standin)
        st = self.stats
        if st is None:
            self.seed.llm_calls += 1
            self.seed.store_tokens += call.tokens
            self.seed.llm_s += call.seconds
            return out
        st.memory_llm_calls += 1
        st.memory_llm_tokens += call.tokens
        st.memory_llm_s += call.seconds
        if path == "store":
            st.store_tokens += call.tokens
        else:
            st.retrieve_tokens += call.tokens
        # an endpoint call made inside observe() is already in the task agent's measured time
        if blocking and (self.llm.offline or not self.in_observe):
            st.blocking_s += call.seconds
        return out

    def wrote(self, text: str) -> None:
        n = count_tokens(text)
        if self.stats is None:
            self.seed.store_tokens += n
        else:
            self.stats.store_tokens += n


_KEPT_LEXICAL = 4  # lexical indexes a TextIndex keeps between searches


class TextIndex:
    """Similarity search over a list of texts with the run's embedder (dense: cosine over cached
    vectors; lexical BM25: scores divided by the query's best, so both live in about [0, 1])."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._vec: dict[str, np.ndarray] = {}
        # lexical indexes kept between searches: (the texts indexed, the index), newest last; a memory's
        # texts mostly grow at the end, so a search adds the new ones instead of re-indexing them all
        self._lexical: list[tuple[list[str], Any]] = []

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self._vec]
        if new:
            for t, v in zip(new, self.embedder.embed(new)):
                self._vec[t] = v
        return (
            np.stack([self._vec[t] for t in texts]) if texts else np.zeros((0, self.embedder.dim), np.float32)
        )

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros(0, np.float32)
        if self.embedder.dense:
            return self._vectors(list(texts)) @ self._vectors([query])[0]
        return np.asarray(self._lexical_index(list(texts)).scores(self.embedder.encode_query(query)))

    def _lexical_index(self, texts: list[str]) -> Any:
        """A BM25 index over exactly `texts`: a kept one whose texts start `texts`, grown by the rest (its
        scores then equal a fresh index's: `BM25Index.add`), else a new one. A few are kept because one
        method searches several lists in turn (its notes, a pair of texts)."""
        for i, (done, index) in enumerate(self._lexical):
            if len(done) <= len(texts) and texts[: len(done)] == done:
                if len(texts) > len(done):
                    index.add(texts[len(done) :], None)
                    done.extend(texts[len(done) :])
                self._lexical.append(self._lexical.pop(i))
                return index
        index = self.embedder.build_index(texts, None)
        self._lexical = [*self._lexical[-(_KEPT_LEXICAL - 1) :], (list(texts), index)]
        return index

    def search(
        self, query: str, texts: Sequence[str], k: int, min_score: float | None = None
    ) -> list[tuple[int, float]]:
        s = self.scores(query, texts)
        order = sorted(range(len(s)), key=lambda i: (-float(s[i]), i))[:k]
        return [(i, float(s[i])) for i in order if min_score is None or s[i] >= min_score]

    def similarity(self, a: str, b: str) -> float:
        """Similarity of two texts (dense: cosine; lexical: b's score for query a among [a, b])."""
        if self.embedder.dense:
            v = self._vectors([a, b])
            return float(v[0] @ v[1])
        return float(self.scores(a, [a, b])[1])


def event_line(ev: Event) -> str:
    """An event as a transcript line (what a text memory would be given)."""
    if ev.kind == "tool_result":
        fields_ = ", ".join(f"{k}={v}" for k, v in ev.args.items())
        return f"tool ({ev.tool}): {ev.text}" + (f" [{fields_}]" if fields_ else "")
    if ev.kind == "candidate_call":
        return f"assistant: call {ev.tool}({', '.join(f'{k}={v}' for k, v in ev.args.items())})"
    role = "user" if ev.kind == "request" or ev.role == "user" else "assistant"
    return f"{role}: {ev.text}"


class TextSession:
    """One task of a text-memory method. Subclasses override the `on_*` hooks."""

    def __init__(self, chain, task, tools):
        self.chain = chain
        self.task = task
        self.tools = tuple(tools)
        self.vocab = tools_vocab(tools)
        self.stats = MethodStats(memory_llm=chain.acct.llm.label)
        if not getattr(chain, "_seed_reported", False):  # the seed build goes on the chain's first row
            chain._seed_reported = True
            self.stats.seed_store_tokens = chain.acct.seed.store_tokens
            self.stats.seed_llm_calls = chain.acct.seed.llm_calls
        chain.acct.stats = self.stats
        self.events: list[Event] = []
        self._pending: list[Delivery] = []
        self._ended = False

    # -- helpers ------------------------------------------------------------------------------
    def read(self, event: Event) -> Event:
        """The event as a text memory reads it: a message's values parsed from its text (Pulse's
        statement parser, the tools' vocabulary), dated by the event, else by the task."""
        if event.kind != "message":
            return event
        return standins.parsed_event(
            event.kind, event.role, event.text, self.vocab, event.time or self.task.time, step=event.step
        )

    # True: every delivery is context of the task agent's next call only (the Proactive Memory Agent's
    # reminders); False: a delivery joins the conversation and stays
    transient_deliveries = False

    def deliver(self, text: str, step: int, source: str) -> Delivery | None:
        if not text.strip():
            return None
        items = text_items(text, self.vocab, self.chain.name, self.task.user_id, self.task.time)
        d = Delivery(items, text, step, source, self.transient_deliveries)  # type: ignore[arg-type]
        self.stats.retrieve_tokens += d.tokens
        self.stats.retrievals += 1
        self.stats.deliveries.append(d)
        if source == "supplement":
            self.stats.supplements += 1
            self._pending.append(d)
        return d

    def _timed(self, fn, *a, blocking: bool = True):
        t0 = time.perf_counter()
        out = fn(*a)
        dt = time.perf_counter() - t0
        self.stats.memory_wall_s += dt
        if blocking:
            self.stats.blocking_s += dt
        return out

    # -- hooks ------------------------------------------------------------------------------------
    def on_start(self, request: Event) -> str:
        return ""

    def on_event(self, event: Event) -> None:
        pass

    def before_decision(self) -> None:
        pass

    def on_end(self, completed: bool) -> None:
        pass

    # -- the session interface (eval/methods/base.py) ----------------------------------------------
    def start(self, request: Event) -> Delivery | None:
        self.events.append(request)
        text = self._timed(self.on_start, request)
        return self.deliver(text, request.step, "initial")

    def observe(self, event: Event) -> None:
        self.events.append(event)
        self.chain.acct.in_observe = True
        try:
            # measured wall time of observe() is the task agent's (eval/agents/simulated.py)
            self._timed(self.on_event, event, blocking=False)
        finally:
            self.chain.acct.in_observe = False

    def decide_call(self, event: Event):
        self.events.append(event)
        self._timed(self.on_event, event)
        return None

    def take_supplements(self, wait: bool = False) -> list[Delivery]:
        self._timed(self.before_decision)
        out, self._pending = self._pending, []
        return out

    def end(self, completed: bool = True) -> MethodStats:
        if not self._ended:
            self._ended = True
            self._timed(self.on_end, completed, blocking=False)
            self.chain.acct.stats = None
        return self.stats


def options_doc(cls) -> str:
    return ", ".join(f.name for f in fields(cls))


class TextChain:
    """What a text baseline's chain (its memory across one persona's tasks) starts with: the
    accountant of its LLM calls and tokens, its options, the user, the tools' vocabulary and a
    text index over the run's embedder."""

    def __init__(self, seed, llm, opts):
        self.acct = Accountant(llm)
        self.opts = opts
        self.user_id = seed.user_id
        self.vocab = tools_vocab(seed.tools)
        self.reading = standins.chain_reading(seed)  # the run's reader, as every method's
        self.index = TextIndex(seed.embedder)


@dataclass
class TextMethod:
    """A memory baseline built per chain from the seed history (`chain_cls(seed, llm, opts)`) whose
    sessions (`session_cls(chain, task, tools)`) reach the task agent as delivered text."""

    name: str
    llm: object
    opts: object
    chain_cls: type
    session_cls: type
    memory_kind: str
    uses_memory: bool = True

    def open_chain(self, seed):
        return self.chain_cls(seed, self.llm, self.opts)

    def open_session(self, task, memory, concurrent, tools=()):
        return self.session_cls(memory, task, tools)


def text_method(
    cfg, ctx, options_cls: type, chain_cls: type, session_cls: type, memory_kind: str
) -> TextMethod:
    """The `build(cfg, ctx)` of a text baseline: its typed options checked, the run's memory-side LLM."""
    return TextMethod(
        cfg.name,
        ctx.llm(),
        parse_options(options_cls, cfg.options, cfg.name),
        chain_cls,
        session_cls,
        memory_kind,
    )
