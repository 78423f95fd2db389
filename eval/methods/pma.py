"""`pma`: the Proactive Memory Agent ("Remember When It Matters", 2026), re-implemented.

A memory agent runs beside an unmodified action agent. It is invoked at the first decision and then
before every `every`-th later decision (the paper: every step), reading the task, a sliding window
of the `window` (k = 8) most recent messages of the event stream (the request, user messages, the
agent's messages and plans, its tool calls and their results) and its memory bank B = (s, K, P):
a private **status** s (its own notes; never shown to the action agent), a **knowledge** store K
(stable facts: the task's requirements, preferences, decisions, environment facts) and a
**procedural** store P (attempts, failures, fixes). Each invocation has two phases, two prompted
calls through the run's memory-side LLM client:
1. **memory management**: tool calls `memory_update_status(text)`, `memory_save_knowledge(text)`,
   `memory_save_procedural(text)`, `memory_delete(id)` edit the bank;
2. **intervention selection**: one concise reminder for the next action-agent call, injected as
   transient context into that call only (`take_supplements` before the next decision), or the
   explicit **null** action when no entry is likely to change the next decision.
There is no gate: `decide_call` records the pending call and returns None.

What the paper says and this implementation does:
- **requirement tracking**: the request's requirements, and requirements the user states later, are
  knowledge entries ("Requirement: ..."); the status tracks which are done and what call is next;
- **procedural entries from any failed or corrected step**: a tool error, a call the agent redid or
  replaced, a user correction of a call (not only tool errors);
- **tool calls and their results** are messages of the window like any other;
- **the next call** comes from the event stream (`candidate_call` events, the agent's plan
  messages, tool results), so the agent works the same on the generated suites and on the real
  benchmarks (eval/real/: tau2_retail, pibench, persona2web).
The offline stand-in (eval/methods/pma_rules.py) is a rule-based version of both decisions; with an
endpoint (`llm=openai ...`) both phases are the prompts below.

Open choices the public summary leaves, and what this implementation does:
- **bank scope**: the paper's bank is one task's. Here each task starts a fresh bank: status empty,
  no procedural entries, no requirements. What carries across the tasks of a persona chain is the
  knowledge store's durable facts only (user preferences, project decisions, environment facts:
  every knowledge entry that is not a "Requirement"), the chain's long-term memory: it starts as the
  facts the management phase saved while replaying the seed history (eval/methods/seed.py: the same
  past every method gets through `open_chain`, in windows of k messages) and, at each task end,
  becomes that task bank's non-requirement knowledge (so a fact the user stated, a decision a
  receipt recorded or a deletion made during a task holds in the next). Requirements, procedural
  entries and the status never leave their task.
- **invocation**: lazily before the next decision when events arrived since the last invocation
  (the reminder can only reach the next call anyway); once more at task end for management only
  (so facts stated after the last decision are kept); its time blocks the next decision.
- **the next call** (stand-in): the redo of a failed or corrected call, else the agent's announced
  plan when its call has not come yet, else the first open requirement that names a known tool, else
  the last executed call's tool; the prompted path leaves it to the model (the status asks for it).
- **selection** (stand-in): per argument of the next call the binding entry (this task's
  requirement > this project's decision > a user preference; other projects' decisions never bind),
  silent when that statement is still in the window or the pending call already holds the value;
  procedural entries about the call's tool; see eval/methods/pma_rules.py.
Ablations (`options.variant`, the paper's table of ablations):
  selective (the full agent) | full_bank (the whole bank, not the status, goes into every call; no
  selection phase) | always_inject (no null action: where the full agent would stay silent, the
  entries that bear on the next call even if unlikely to change it, else the newest
  `fallback_entries` entries go in) | injection_only (no bank: no management phase, no status, no
  requirement tracking; reminders from the window alone) | mem0_top10 (Mem0 top-10 retrieval,
  eval/methods/mem0.py, in place of the bank: Mem0's own write path and store, which persists across
  the chain as Mem0's does; the selection phase chooses among the retrieved memories; no status).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from eval.methods import standins
from eval.methods.pma_rules import (
    REQ,
    CallRecord,
    Meta,
    NextCall,
    call_text,
    manage_calls,
    mark_done,
    next_call,
    select_entries,
)
from eval.methods.pulse_method import tools_vocab
from eval.methods.text_method import Accountant, TextSession, event_line, parse_options
from pulse.config.schema import knob

MANAGE_SYSTEM = (
    "You are the memory agent of an action agent that works on a task with tools. You keep a memory bank: a "
    "private status (your notes, never shown to the action agent), knowledge entries (stable facts) and "
    "procedural entries (attempts, failures, fixes). Given the task, the most recent messages (user turns, "
    "the agent's messages, its tool calls and their results) and the bank, edit the bank with tool calls:\n"
    "- memory_save_knowledge(text): each requirement of the request, and each requirement the user states "
    "later, as one entry starting 'Requirement:'; durable facts about the user, the project or the "
    "environment (preferences, decisions, paths) as plain sentences;\n"
    "- memory_save_procedural(text): what a failed or corrected step teaches: a tool error, a call the agent "
    "redid or replaced, a correction by the user;\n"
    "- memory_delete(id): an entry that is wrong or superseded (e.g. an older value of the same "
    "preference);\n"
    "- memory_update_status(text): which requirements are done and which are open, the last step, and the "
    "call the agent is expected to make next.\n"
    'Reply with a JSON object {"calls": [{"tool": ..., "args": {...}}]} (an empty list when nothing changes).'
)
SELECT_SYSTEM = (
    "You are the memory agent of an action agent. Given the task, the most recent messages and your memory "
    "bank (your private status included), decide whether one concise reminder is likely to change the action "
    "agent's next decision: the next call it is about to make, what the bank says about that call's "
    "arguments, a requirement it is about to violate, a failed attempt it is about to repeat. It is injected "
    "into the next call only. If nothing in the bank bears on the next decision, or the agent's recent "
    "messages show it already knows, reply null: silence is expected. "
    'Reply with a JSON object {"reminder": <text or null>}.'
)
SELECT_ALWAYS_SYSTEM = (
    "You are the memory agent of an action agent. Given the task, the most recent messages and your memory "
    "bank (your private status included), write one concise reminder for the action agent's next decision: "
    "the entries that bear most on its next call. It is injected into the next call only. "
    "You must always write a reminder. "
    'Reply with a JSON object {"reminder": <text>}.'
)
SELECT_WINDOW_SYSTEM = (
    "You watch an action agent at work. Given the task and the most recent messages only (you keep no "
    "memory), decide whether one concise reminder of something in these messages is likely to change the "
    "agent's next decision; otherwise reply null. "
    'Reply with a JSON object {"reminder": <text or null>}.'
)
Variant = Literal["selective", "full_bank", "always_inject", "injection_only", "mem0_top10"]
BANKED = ("selective", "full_bank", "always_inject")


@dataclass(frozen=True)
class Options:
    """The Proactive Memory Agent's own knobs (`method.options.*`): the ablation `variant`, the sliding
    window, how often it is invoked, the always_inject fallback size and mem0_top10's retrieval size."""

    # selective (the full memory agent) | full_bank | always_inject | injection_only | mem0_top10
    variant: Variant = "selective"
    # messages in the memory agent's sliding window (the paper: 8)
    window: int = knob(8, ge=1)
    # invoke the memory agent before every n-th decision after the first (the paper: every step)
    every: int = knob(1, ge=1)
    # always_inject: entries reminded when nothing bears on the next call
    fallback_entries: int = knob(3, ge=1)
    # mem0_top10: memories retrieved per invocation
    mem0_top_k: int = knob(10, ge=1)


@dataclass
class Bank:
    """A memory bank (s, K, P): the private status, knowledge and procedural entries by id. `apply(calls)`
    runs management tool calls, `render()` shows it, `entries()` merges K and P."""

    status: str = ""
    knowledge: dict[str, str] = field(default_factory=dict)  # entry id -> text
    procedural: dict[str, str] = field(default_factory=dict)
    next_id: int = 1

    def render(self, with_status: bool = True) -> str:
        lines = [f"status: {self.status}"] if with_status and self.status else []
        lines += [f"[{k}] knowledge: {v}" for k, v in self.knowledge.items()]
        lines += [f"[{k}] procedural: {v}" for k, v in self.procedural.items()]
        return "\n".join(lines)

    def entries(self) -> dict[str, str]:
        return {**self.knowledge, **self.procedural}

    def apply(self, calls: list) -> tuple[list[str], list[str]]:
        """Apply management tool calls; returns (ids of the saved entries in order, deleted ids)."""
        saved, deleted = [], []
        for c in calls if isinstance(calls, list) else []:
            if not isinstance(c, dict):
                continue
            tool, args = str(c.get("tool", "")), c.get("args") or {}
            if not isinstance(args, dict):
                continue
            text = str(args.get("text", "")).strip()
            if tool == "memory_update_status":
                self.status = text
            elif tool in ("memory_save_knowledge", "memory_save_procedural") and text:
                store = self.knowledge if tool == "memory_save_knowledge" else self.procedural
                eid = f"e{self.next_id}"
                store[eid] = text
                self.next_id += 1
                saved.append(eid)
            elif tool == "memory_delete":
                eid = str(args.get("id", "")).strip("[] ")
                if self.knowledge.pop(eid, None) is not None or self.procedural.pop(eid, None) is not None:
                    deleted.append(eid)
        return saved, deleted


def durable(knowledge: dict[str, str]) -> dict[str, str]:
    """The knowledge that carries across tasks: every entry that is not a requirement."""
    return {k: v for k, v in knowledge.items() if not v.lstrip().startswith(REQ)}


class PMAChain:
    """A persona chain: the run's LLM accountant and the long-term knowledge (see the module docstring)."""

    name = "pma"

    def __init__(self, seed, llm, opts: Options, mem0=None):
        self.acct = Accountant(llm)
        self.opts = opts
        self.user_id = seed.user_id
        self.vocab = tools_vocab(seed.tools)
        self.reading = standins.chain_reading(seed)  # the run's reader, as every method's
        self.tools = {t.name: list(t.params) for t in seed.tools}
        self.long_term: dict[str, str] = {}
        self.next_id = 1
        self.mem0 = mem0  # mem0_top10: a Mem0 store in place of the bank
        if opts.variant not in BANKED:
            return  # no bank to seed (mem0_top10's store is seeded by Mem0's own pipeline)
        bank, metas = Bank(), {}
        window: list = []
        sessions = seed.history.sessions
        # windows of k messages, never across two projects' conversations (a receipt is its project's)
        for n, s in enumerate(sessions):
            for t in s.turns:
                window.append(standins.turn_event(t, s.time, self.vocab))
            nxt = sessions[n + 1] if n + 1 < len(sessions) else None
            if nxt is None or len(window) >= opts.window or nxt.project_id != s.project_id:
                manage(self, bank, metas, list(enumerate(window)), window, [], "", s.project_id)
                window = []
        self.long_term = durable(bank.knowledge)
        self.next_id = bank.next_id

    def close(self) -> None:
        pass


def manage(
    chain: PMAChain,
    bank: Bank,
    metas: dict[str, Meta],
    new: list,
    window: list,
    calls: list,
    task_text: str,
    project_id: str,
    tools: dict | None = None,
) -> None:
    """Phase 1, memory management: one call that edits the bank (stand-in: pma_rules.manage_calls)."""
    tools = chain.tools if tools is None else tools
    used: dict = {}

    def standin():
        for i, ev in new:
            if ev.kind == "tool_result" and not (
                ev.args.get("status") == "error" or ev.text.lower().startswith("error")
            ):
                c = next((c for c in reversed(calls) if c.index < i and c.tool == ev.tool), None)
                if c is not None:
                    mark_done(metas, c)
        m = manage_calls(
            new,
            bank.knowledge,
            bank.procedural,
            metas,
            calls,
            tools,
            chain.vocab,
            chain.user_id,
            project_id,
            bank.next_id,
            reading=chain.reading,
        )
        used["m"] = m
        out = list(m.calls)
        if task_text:
            view = dict(metas)  # the ids the saves will get (Bank.apply numbers them in order)
            for j, meta in enumerate(x for x in m.metas if x is not None):
                view[f"e{bank.next_id + j}"] = meta
            out.append({"tool": "memory_update_status", "args": {"text": status_text(view, calls)}})
        return {"calls": out}

    prompt = (
        f"Task: {task_text or '(replaying the user’s past conversations)'}\nRecent messages:\n"
        + "\n".join(event_line(e) for e in window)
        + f"\nMemory bank:\n{bank.render() or '(empty)'}"
    )
    before = bank.render()
    out = chain.acct.call("pma.manage", MANAGE_SYSTEM, prompt, standin)
    saved, deleted = bank.apply(out.get("calls", []))
    for eid in deleted:
        metas.pop(eid, None)
    if "m" in used:  # the stand-in answered: keep what it knows about each saved entry
        for eid, meta in zip(saved, used["m"].metas):
            metas[eid] = meta
    after = bank.render()
    if after != before:
        chain.acct.wrote(after)


def status_text(metas: dict[str, Meta], calls: list[CallRecord]) -> str:
    """The stand-in's private status: requirements done / open, the last call, the next call expected."""
    reqs = [(eid, m) for eid, m in metas.items() if m.kind == "requirement"]
    done = [eid for eid, m in reqs if m.done]
    open_ = [f"{eid}" + (f" ({m.tool})" if m.tool else "") for eid, m in reqs if not m.done]
    parts = [f"Requirements done: {', '.join(done) or 'none'}; open: {', '.join(open_) or 'none'}."]
    last = calls[-1] if calls else None
    if last is not None:
        parts.append(f"Last call: {call_text(last.tool, last.args)} -> {last.result or 'pending'}.")
    nxt = None
    if last is not None and last.result == "error":
        nxt = NextCall(last.tool, {}, "redo")
    else:
        nxt = next(
            (
                NextCall(m.tool, {}, "requirement")
                for m in metas.values()
                if m.kind == "requirement" and m.tool and not m.done
            ),
            None,
        )
        if nxt is None and last is not None:
            nxt = NextCall(last.tool, {}, "continuation")
    if nxt is not None:
        parts.append(f"Next call expected: {nxt.tool} ({nxt.why}).")
    return " ".join(parts)


class PMASession(TextSession):
    """One task under the Proactive Memory Agent (the module docstring): a fresh task bank over the chain's
    long-term knowledge, every event recorded in its stream; before a decision (every `every`-th) it invokes
    the memory agent, which delivers a transient reminder or nothing; at the end it manages once more and (the
    banked variants) hands the durable knowledge back to the chain."""

    transient_deliveries = True  # "injected as transient context into that call only" (the paper)

    def __init__(self, chain: PMAChain, task, tools):
        super().__init__(chain, task, tools)
        opts = chain.opts
        self.variant = opts.variant
        # a fresh task bank: the chain's long-term knowledge, no requirements, procedures or status
        self.bank = Bank(knowledge=dict(chain.long_term), next_id=chain.next_id)
        self.metas: dict[str, Meta] = {eid: Meta("fact") for eid in self.bank.knowledge}
        self.stream: list = []  # every event of the task, as the memory agent reads it
        self.calls: list[CallRecord] = []
        self.tool_params = {t.name: list(t.params) for t in self.tools} or {
            k: list(v) for k, v in chain.tools.items()
        }
        self.managed = 0  # stream index of the first event not yet managed
        self.decisions = 0
        self.invocations = 0
        self.reminders = 0

    # -- the event stream ------------------------------------------------------------------------
    def _record(self, event) -> None:
        ev = self.read(event)
        i = len(self.stream)
        self.stream.append(ev)
        if ev.kind == "candidate_call":
            self.calls.append(CallRecord(i, ev.tool, {k: str(v) for k, v in ev.args.items()}))
            params = self.tool_params.setdefault(ev.tool, [])
            params += [k for k in ev.args if k not in params]
        elif ev.kind == "tool_result":
            c = next((c for c in reversed(self.calls) if c.tool == ev.tool and not c.result), None)
            if c is not None:
                failed = ev.args.get("status") == "error" or ev.text.lower().startswith("error")
                c.result, c.error = ("error", ev.text) if failed else ("ok", "")

    def on_start(self, request):
        self._record(request)
        return self._invoke()

    def on_event(self, event):
        self._record(event)

    def before_decision(self) -> None:
        self.decisions += 1
        if self.managed < len(self.stream) and self.decisions % self.chain.opts.every == 0:
            self.deliver(self._invoke(), self.stream[-1].step, "supplement")

    # -- one invocation -------------------------------------------------------------------------
    def _window(self) -> tuple[int, list]:
        start = max(0, len(self.stream) - self.chain.opts.window)
        return start, self.stream[start:]

    def _manage_new(self) -> None:
        start, win = self._window()
        new = [(i, self.stream[i]) for i in range(self.managed, len(self.stream))]
        self.managed = len(self.stream)
        if not new:
            return
        if self.variant in BANKED:
            manage(
                self.chain,
                self.bank,
                self.metas,
                new,
                win,
                self.calls,
                self.task.request_text,
                self.task.project_id,
                self.tool_params,
            )
        elif self.variant == "mem0_top10":  # Mem0 in place of the bank: its own write path
            evs = [e for _, e in new if e.kind != "candidate_call"]
            if evs:
                self.chain.mem0.add([event_line(e) for e in evs], evs, self.task.time, self.task.project_id)

    def _invoke(self) -> str:
        """One invocation: management, then selection; returns the reminder text ('' = null)."""
        self.invocations += 1
        self._manage_new()
        if self.variant == "full_bank":  # no selection: the bank (not the private status) goes in every call
            return self.bank.render(with_status=False)
        start, win = self._window()
        task_text = self.task.request_text
        lines = "\n".join(event_line(e) for e in win)
        if self.variant in ("injection_only", "mem0_top10"):  # no bank: the task and the window alone
            entries, metas, nxt = self._window_entries(start, win)
            system, bank_text = SELECT_WINDOW_SYSTEM, ""
            if self.variant == "mem0_top10":  # ... plus Mem0's top-k in place of the bank
                query = " ".join(
                    [nxt.tool.replace("_", " ") if nxt else "", *(event_line(e) for e in win[-2:])]
                )
                hits = self.chain.mem0.search(query, self.chain.opts.mem0_top_k)
                got = {f"m{j}": r.text for j, r in enumerate(hits)}
                entries, metas = {**got, **entries}, {**{k: Meta("fact") for k in got}, **metas}
                system, bank_text = (
                    SELECT_SYSTEM,
                    "\nRetrieved memories:\n" + "\n".join(f"[{k}] {v}" for k, v in got.items()),
                )
        else:
            entries, metas = self.bank.entries(), self.metas
            nxt = next_call(self.stream, self.calls, metas, self.tool_params, self.chain.reading)
            system = SELECT_ALWAYS_SYSTEM if self.variant == "always_inject" else SELECT_SYSTEM
            bank_text = f"\nMemory bank:\n{self.bank.render() or '(empty)'}"

        def standin():
            slots = self.tool_params.get(nxt.tool, []) if nxt else []
            ids = select_entries(
                nxt,
                entries,
                metas,
                start,
                win,
                slots,
                self.chain.vocab,
                self.task.user_id,
                self.task.project_id,
            )
            if (
                not ids and self.variant == "always_inject"
            ):  # no silence: what bears on the call, else the newest
                ids = (
                    select_entries(
                        nxt,
                        entries,
                        metas,
                        start,
                        win,
                        slots,
                        self.chain.vocab,
                        self.task.user_id,
                        self.task.project_id,
                        strict=False,
                    )
                    or list(entries)[-self.chain.opts.fallback_entries :]
                )
            if not ids:
                return {"reminder": None}
            head = f"Reminder for the next {nxt.tool} call:" if nxt else "Reminder:"
            return {"reminder": " ".join([head, *(entries[i] for i in ids)])}

        prompt = f"Task: {task_text}\nRecent messages:\n{lines}{bank_text}"
        out = self.chain.acct.call("pma.select", system, prompt, standin, path="retrieve")
        r = out.get("reminder")
        if r:
            self.reminders += 1
        return str(r) if r else ""

    def _window_entries(self, start: int, win: list) -> tuple[dict, dict, NextCall | None]:
        """No bank: what the task and the window yield (the stand-in's management rules over the request
        and the window into a scratch bank, the window's executed calls marking requirements done), and
        the next call estimated from them. Nothing persists between invocations."""
        calls = [c for c in self.calls if c.index >= start]
        seen = [(0, self.stream[0])] if start > 0 else []  # the task itself is an input of every invocation
        m = manage_calls(
            seen + list(enumerate(win, start)),
            {},
            {},
            {},
            calls,
            self.tool_params,
            self.chain.vocab,
            self.task.user_id,
            self.task.project_id,
            reading=self.chain.reading,
        )
        scratch = Bank()
        saved, _ = scratch.apply(m.calls)
        metas = {
            eid: meta
            for eid, meta in zip(saved, m.metas)
            if eid in scratch.knowledge or eid in scratch.procedural
        }
        entries = {f"w{k}": v for k, v in scratch.entries().items()}
        metas = {f"w{k}": v for k, v in metas.items()}
        for c in calls:
            if c.result == "ok":
                mark_done(metas, c)
        return entries, metas, next_call(self.stream, calls, metas, self.tool_params, self.chain.reading)

    def on_end(self, completed: bool) -> None:
        self._manage_new()  # management only: what was said after the last decision is kept
        if self.variant in BANKED:
            self.chain.long_term = durable(self.bank.knowledge)
            self.chain.next_id = self.bank.next_id
        self.stats.extra.update(
            pma_invocations=self.invocations,
            pma_reminders=self.reminders,
            pma_requirements=sum(t.lstrip().startswith(REQ) for t in self.bank.knowledge.values()),
            pma_procedural=len(self.bank.procedural),
        )


@dataclass
class PMAMethod:
    """`method=pma`: opens a `PMAChain` per persona chain (with a Mem0 store for the mem0_top10 variant) and a
    `PMASession` per task."""

    name: str
    llm: object
    opts: Options
    uses_memory: bool = True
    memory_kind: str = "pma"

    def open_chain(self, seed) -> PMAChain:
        mem0 = None
        if self.opts.variant == "mem0_top10":
            from eval.methods.mem0 import Mem0Chain
            from eval.methods.mem0 import Options as Mem0Options

            mem0 = Mem0Chain(seed, self.llm, Mem0Options(top_k=self.opts.mem0_top_k))
        chain = PMAChain(seed, self.llm, self.opts, mem0.store if mem0 else None)
        if mem0:  # one ledger: the Mem0 seed build is this chain's seed cost
            chain.acct = mem0.acct
            mem0.store.acct = mem0.acct
        return chain

    def open_session(self, task, memory, concurrent, tools=()):
        return PMASession(memory, task, tools)


def build(cfg, ctx) -> PMAMethod:
    return PMAMethod(cfg.name, ctx.llm(), parse_options(Options, cfg.options, cfg.name))
