"""Which of the user's scoped facts apply to this task (`ScopeFilter`, `condition_applies`).

A user fact carries the context it was stated in (`pulse.agent.writeback.commit_events`; the reading
layer's condition, `pulse.reading`). Where one slot has facts from several contexts, only those whose
context best matches the request (word cosine >= `scope_threshold`) are weighed; a slot's only
conditional fact is weighed at a call only where the request, the subgoal, the user's words or the
tools of this task name its condition. A delivered fact carries its condition in its line
(`pulse.agent.rendering.render_items`), so the task agent weighs it too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulse.agent.listener import Listener
from pulse.agent.schema import SchemaTool, word_cosine, words
from pulse.core.conditions import excluded_situation
from pulse.core.gold import BINDING_KINDS
from pulse.core.records import MemoryItem

# words a condition uses that say nothing about the situation
_CONDITION_FILLER = frozenset(
    {"when", "whenever", "if", "unless", "during", "while", "only", "over", "under"}
)
_QUANTIFIERS = frozenset({"every", "each", "all", "any", "my", "our"})


def condition_applies(conditions: str, situation_words: set[str], skip: Sequence[str] = ()) -> bool:
    """Whether a fact's condition holds in a situation: at least half of the condition's words (light
    stemming, no stop words) occur in it ("for a client trip" in "... a client trip to Oslo ...").
    `skip`: words that do not count (the called tool's own name), unless they are all it says. An
    excluding condition ("unless it's a client", "except for reports") applies where the situation
    it names does not."""
    excluded = excluded_situation(conditions)
    if excluded:
        return not words(excluded) or not condition_applies(excluded, situation_words, skip)
    cond = set(words(conditions)) - _CONDITION_FILLER
    if skip:  # "on every flight" at book_flight says nothing beyond the tool: it stays as it is
        rest = {
            w for w in cond if w not in _QUANTIFIERS and not any(w == k or _same_root(w, k) for k in skip)
        }
        cond = rest or cond
    hits = sum(1 for w in cond if w in situation_words or any(_same_root(w, s) for s in situation_words))
    return not cond or hits >= max(1, len(cond) / 2)


def _same_root(a: str, b: str) -> bool:
    """ "meeting" and "meet", "dinners" and "dinner": one word starts the other (4 letters or more)."""
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short)


class ScopeFilter:
    """The scope rules of one task, over the user's current memory and the task's events so far.

    Args: `config` (a `PulseAgentConfig`: scope_threshold, tool_words, condition_skips_tool_words),
    the task's `listener` (its prefix is the situation), the tools by name, and `snapshot()`: the
    user's current memory items (None where the memory has no snapshot). What is read from memory is
    read once per task (memory changes at task end) until `reset`.
    """

    def __init__(
        self,
        config: Any,
        listener: Listener,
        tools: Mapping[str, SchemaTool],
        snapshot: Callable[[], list[MemoryItem] | None],
    ):
        self.config, self.listener, self.tools, self._snapshot = config, listener, tools, snapshot
        self._contexts: dict[str, set[str]] | None = None
        self._scope_cache: list[MemoryItem] | None = None
        # (slot, request text) -> the best word cosine of the slot's contexts with it: `filter` would
        # re-tokenise every context at every call (1,000 conditional facts: ~35 ms a call)
        self._best_context: dict[tuple[str, str], float] = {}

    def reset(self) -> None:
        """Memory changed during the task: read the slots' contexts and the request's scope again."""
        self._contexts, self._scope_cache = None, None
        self._best_context = {}

    def request_text(self) -> str:
        """The request's words and the current subgoal's."""
        req = next((e for e in self.listener.prefix if e.kind == "request"), None)
        return " ".join(x for x in ((req.text if req else ""), self.listener.current_subgoal) if x)

    def situation_texts(self) -> list[str]:
        """The request, the current subgoal, the user's words in this task, the tools it has proposed
        or called (their names and descriptions: "For docs, ..." applies to a docs tool) and the
        proposed call's own values ("For client meetings, ..." applies to a call titled "Client review")."""
        prefix = self.listener.prefix
        said = [e.text for e in prefix if e.kind == "message" and e.role == "user" and e.text]
        last = prefix[-1] if prefix else None
        if last is not None and last.kind == "candidate_call":
            said += [v for v in last.args.values() if isinstance(v, str)]
        tools = dict.fromkeys(e.tool for e in prefix if e.tool)
        described = [
            f"{t.replace('_', ' ')} "
            + (self.config.tool_words.get(t) or (self.tools[t].description if t in self.tools else ""))
            for t in tools
        ]
        return [self.request_text(), *said, *described]

    def slot_contexts(self) -> dict[str, set[str]]:
        """Slot -> the contexts of the user's current binding facts for it."""
        if self._contexts is None:
            current = self._snapshot() or []
            self._contexts = {}
            for m in current:
                if m.slot and m.kind in BINDING_KINDS and m.conditions and m.scope.startswith("user:"):
                    self._contexts.setdefault(m.slot, set()).add(m.conditions)
        return self._contexts

    def scope_items(self) -> list[MemoryItem]:
        """The request's own scope: the user's current binding facts whose context is the one that best
        matches the request (word cosine >= `scope_threshold`); [] when none matches."""
        if self._scope_cache is None:
            self._scope_cache = []
            contexts = {c for cs in self.slot_contexts().values() for c in cs if not excluded_situation(c)}
            req = self.request_text()
            if contexts:
                best = max(sorted(contexts), key=lambda c: word_cosine(c, req))
                if word_cosine(best, req) >= self.config.scope_threshold:
                    self._scope_cache = [
                        m
                        for m in self._snapshot() or []
                        if m.conditions == best and m.kind in BINDING_KINDS and m.slot
                    ]
        return self._scope_cache

    def filter(self, items: Sequence[MemoryItem], at_call: bool = False) -> tuple[list[MemoryItem], int]:
        """`items` without the facts out of this request's scope, and how many were dropped: where the
        user's current binding facts for a slot carry several contexts, only those whose context
        matches the request best (and at least `scope_threshold`) stay; at a call (`at_call`), a slot's
        only conditional fact stays only where its condition applies; an excluding condition ("unless
        it's a client") stays where the situation it names is absent; other items always stay."""
        contexts = self.slot_contexts()
        req = self.request_text()
        drop: set[str] = set()
        best: dict[str, float] = {}
        here: list[str] | None = None  # this call's situation, read once
        for m in items:
            if not (m.slot and m.kind in BINDING_KINDS and m.conditions):
                continue
            several = len(contexts.get(m.slot, ())) >= 2
            excluding = bool(excluded_situation(m.conditions))
            if at_call and (not several or excluding):
                # at a call, a conditional fact binds only where its condition applies: the request,
                # the subgoal, the user's words, the tools of this task or the call's own values name
                # it (a delivery carries the condition in its line and the task agent weighs it)
                if here is None:
                    here = self.situation_texts()
                if not self._applies_here(m, here):
                    drop.add(m.item_id)
                continue
            if not several:
                continue
            if excluding:
                # weighed by whether the request names what it excludes, not by how close it is to it
                if not condition_applies(m.conditions, set(words(req))):
                    drop.add(m.item_id)
                continue
            if m.slot not in best:
                key = (m.slot, req)
                if key not in self._best_context:
                    self._best_context[key] = max(
                        (word_cosine(c, req) for c in contexts[m.slot] if not excluded_situation(c)),
                        default=0.0,
                    )
                best[m.slot] = max(self._best_context[key], word_cosine(m.conditions, req))
            sc = word_cosine(m.conditions, req)
            if sc < best[m.slot] - 1e-9 or sc < self.config.scope_threshold:
                drop.add(m.item_id)
        return [m for m in items if m.item_id not in drop], len(drop)

    def _applies_here(self, m: MemoryItem, situation: Sequence[str]) -> bool:
        """Whether fact `m`'s condition applies in this call's `situation` (`situation_texts`; the
        statement that set the condition does not make it hold)."""
        around = {
            w for t in situation if not (m.provenance.quote and m.provenance.quote in t) for w in words(t)
        }
        return condition_applies(m.conditions, around, self._tool_words_to_skip())

    def _tool_words_to_skip(self) -> tuple[str, ...]:
        """The called tool's own name words, where a condition naming only them says nothing."""
        last = self.listener.prefix[-1] if self.listener.prefix else None
        if self.config.condition_skips_tool_words and last is not None and last.tool:
            return tuple(words(last.tool.replace("_", " ")))
        return ()
