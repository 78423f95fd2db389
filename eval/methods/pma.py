"""`pma`: the Proactive Memory Agent ("Remember When It Matters", 2026), re-implemented.

A memory agent runs beside an unmodified action agent. It is invoked at step 1 and then after every
step, reading a sliding window of the `window` (k = 8) most recent messages and its memory bank
B = (s, K, P): a private **status** s (its own notes; never shown to the action agent), a
**knowledge** store K (stable facts: requirements, preferences, decisions, environment facts) and a
**procedural** store P (attempts, failures, fixes). Each invocation has two phases:
1. **memory management** (one LLM call): tool calls `memory_update_status`, `memory_save_knowledge`,
   `memory_save_procedural`, `memory_delete` edit the bank;
2. **intervention selection** (one LLM call): one concise reminder for the next action-agent call,
   injected as transient context into that call only, or the explicit **null** action when no
   entry is likely to change the next decision.

Open choices the public summary leaves, and what this implementation does:
- the bank's knowledge and procedural stores persist across a persona's tasks (the status is reset
  at each task start); the seed history is replayed through the management phase (windows of k
  messages) so the bank starts with the user's and projects' facts, as every method's memory does;
- "the next call" is read from the task request's plan (its "..., then ..." subgoals, matched to
  the published tool names), counting the calls executed so far;
- offline stand-ins (eval/methods/standins.py): management saves the window's facts as knowledge
  (an entry for the same fact key with another value is deleted first), a failed tool result as a
  procedural entry, and sets the status to the last step done; selection reminds of the knowledge
  entries whose slot the next call takes, except values the agent's calls in the window already
  use (a reminder of them would not change its decision); null when none is left.
Ablations (`options.variant`, the paper's Table of ablations):
  selective (full agent) | full_bank (the whole bank injected every step, no selection) |
  always_inject (no null action: the newest entries when nothing matches) | injection_only (no bank:
  reminders from the window alone) | mem0_top10 (Mem0 top-10 retrieval, eval/methods/mem0.py, in
  place of the bank).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pulse.config.schema import knob
from eval.methods import standins
from eval.methods.common import Accountant, TextSession, event_line, parse_options
from eval.methods.pulse_method import tools_vocab

MANAGE_SYSTEM = ("You are the memory agent of an action agent. Given the task, the recent messages and your memory "
                 "bank, edit the bank with tool calls: memory_update_status(text), memory_save_knowledge(text), "
                 "memory_save_procedural(text), memory_delete(id). Reply with a JSON object "
                 '{"calls": [{"tool": ..., "args": {...}}]}.')
SELECT_SYSTEM = ("Given the task, the recent messages and your memory bank, write one concise reminder that is likely "
                 "to change the action agent's next decision, or null when nothing applies. Reply with a JSON "
                 'object {"reminder": <text or null>}.')
Variant = Literal["selective", "full_bank", "always_inject", "injection_only", "mem0_top10"]


@dataclass(frozen=True)
class Options:
    # selective (the full memory agent) | full_bank | always_inject | injection_only | mem0_top10
    variant: Variant = "selective"
    # messages in the memory agent's sliding window (the paper: 8)
    window: int = knob(8, ge=1)
    # always_inject: entries reminded when nothing matches the next call
    fallback_entries: int = knob(3, ge=1)
    # mem0_top10: memories retrieved per step
    mem0_top_k: int = knob(10, ge=1)


@dataclass
class Bank:
    status: str = ""
    knowledge: dict[str, str] = field(default_factory=dict)  # entry id -> text
    procedural: dict[str, str] = field(default_factory=dict)
    next_id: int = 1

    def render(self, with_status: bool = True) -> str:
        lines = [f"status: {self.status}"] if with_status and self.status else []
        lines += [f"[{k}] knowledge: {v}" for k, v in self.knowledge.items()]
        lines += [f"[{k}] procedural: {v}" for k, v in self.procedural.items()]
        return "\n".join(lines)

    def apply(self, calls: list) -> None:
        for c in calls:
            tool, args = str(c.get("tool", "")), c.get("args") or {}
            text = str(args.get("text", "")).strip()
            if tool == "memory_update_status":
                self.status = text
            elif tool in ("memory_save_knowledge", "memory_save_procedural") and text:
                store = self.knowledge if tool == "memory_save_knowledge" else self.procedural
                store[f"e{self.next_id}"] = text
                self.next_id += 1
            elif tool == "memory_delete":
                eid = str(args.get("id", ""))
                self.knowledge.pop(eid, None)
                self.procedural.pop(eid, None)


def plan_subgoals(request: str) -> list[str]:
    """The request's plan: "Please A, then B, then C." -> [A, B, C]."""
    m = re.search(r"please (.+?)\.(?:\s|$)", request, re.I | re.S)
    return [s.strip() for s in re.split(r",\s*then\s+", m.group(1))] if m else []


class PMAChain:
    name = "pma"

    def __init__(self, seed, llm, opts: Options, mem0=None):
        self.acct = Accountant(llm)
        self.opts = opts
        self.user_id = seed.user_id
        self.vocab = tools_vocab(seed.tools)
        self.bank = Bank()
        self.mem0 = mem0  # mem0_top10: a Mem0 store in place of the bank
        if opts.variant in ("injection_only", "mem0_top10"):
            return  # no bank to seed (mem0_top10's store is seeded by Mem0's own pipeline)
        window: list = []
        for s in seed.history.sessions:
            for t in s.turns:
                window.append(standins.parsed_event("tool_result" if t.role == "tool" else "message", t.role,
                                                    t.text, self.vocab, s.time, tool=t.tool, args=t.args))
            if len(window) >= opts.window:
                self.manage(window, "", s.project_id)
                window = []
        if window:
            self.manage(window, "", seed.history.sessions[-1].project_id if seed.history.sessions else "")

    def manage(self, window: list, task_text: str, project_id: str, status: str = "") -> None:
        """Phase 1: memory management over the window."""
        def standin():
            calls = []
            facts = standins.extract_facts(window, self.user_id, project_id)
            held = [(eid, f) for eid, text in self.bank.knowledge.items()
                    for f in standins.read_facts(text, self.vocab, self.user_id)]
            for f in facts:
                same = [eid for eid, g in held if g.key == f.key]
                if any(g.key == f.key and g.value == f.value for _, g in held):
                    continue
                calls += [{"tool": "memory_delete", "args": {"id": eid}} for eid in same]
                calls.append({"tool": "memory_save_knowledge", "args": {"text": f.text}})
            for ev in window:
                if ev.kind == "tool_result" and (ev.args.get("status") == "error" or ev.text.startswith("error")):
                    calls.append({"tool": "memory_save_procedural",
                                  "args": {"text": f"{ev.tool} failed: {ev.text[:120]}"}})
            if status:
                calls.append({"tool": "memory_update_status", "args": {"text": status}})
            return {"calls": calls}

        prompt = f"Task: {task_text}\nRecent messages:\n" + "\n".join(event_line(e) for e in window) + \
            f"\nMemory bank:\n{self.bank.render()}"
        before = self.bank.render()
        out = self.acct.call("pma.manage", MANAGE_SYSTEM, prompt, standin)
        self.bank.apply(out.get("calls", []))
        after = self.bank.render()
        if after != before:
            self.acct.wrote(after)

    def close(self) -> None:
        pass


class PMASession(TextSession):
    def __init__(self, chain: PMAChain, task, tools):
        super().__init__(chain, task, tools)
        self.window: list = []
        self.plan = plan_subgoals(task.request_text)
        self.done = 0
        self._added = 0
        self.request_text = task.request_text
        chain.bank.status = ""  # private notes are per task

    # the next call: the plan's next subgoal, matched to a published tool by its name's words
    def next_tool(self):
        if self.done >= len(self.plan):
            return None
        sub = self.plan[self.done].lower()
        hits = [t for t in self.tools if t.name.replace("_", " ") in sub]
        return max(hits, key=lambda t: len(t.name)) if hits else None

    def _invoke(self, step: int) -> str:
        """One invocation: management, then selection; returns the reminder text ('' = null)."""
        v = self.chain.opts.variant
        win = self.window[-self.chain.opts.window:]
        tool = self.next_tool()
        if v not in ("injection_only", "mem0_top10"):
            status = f"{self.done} of {len(self.plan)} planned calls done" + \
                (f"; next: {self.plan[self.done]}" if self.done < len(self.plan) else "; plan complete")
            self.chain.manage(win, self.request_text, self.task.project_id, status)
        if v == "full_bank":  # no selection: the bank (not the private status) goes in every call
            return self.chain.bank.render(with_status=False)
        if v == "mem0_top10":
            query = " ".join([self.plan[self.done] if tool else "", *(event_line(e) for e in win[-2:])])
            return "\n".join(f"- {r.text}" for r in self.chain.mem0.search(query, self.chain.opts.mem0_top_k))
        if v == "injection_only":  # no bank: what the window itself says
            entries = [f.text for f in standins.extract_facts(win, self.task.user_id, self.task.project_id)]
        else:
            entries = list(self.chain.bank.knowledge.values())
        slots = set(tool.params) if tool else set()

        # values the agent already uses in the window (its calls and receipts): a reminder of them is
        # unlikely to change the next decision
        in_use = {(k, v) for e in win if e.kind in ("candidate_call", "tool_result") for k, v in e.args.items()}

        def standin():
            hit = [e for e in entries
                   if any(f.slot in slots and (f.slot, f.value) not in in_use
                          for f in standins.read_facts(e, self.vocab, self.task.user_id))]
            if not hit and v == "always_inject":
                hit = entries[-self.chain.opts.fallback_entries:]
            if not hit:
                return {"reminder": None}
            what = self.plan[self.done] if tool else "the next step"
            return {"reminder": f"Reminder for {what}: " + " ".join(hit)}

        prompt = f"Task: {self.request_text}\nRecent messages:\n" + "\n".join(event_line(e) for e in win) + \
            "\nMemory bank:\n" + "\n".join(entries)
        out = self.chain.acct.call("pma.select", SELECT_SYSTEM, prompt, standin, path="retrieve")
        r = out.get("reminder")
        return str(r) if r else ""

    def on_start(self, request):
        self.window.append(request)
        return self._invoke(request.step)

    def on_event(self, event):
        if event.kind == "candidate_call":
            return
        ev = self.read(event)
        self.window.append(ev)
        if ev.kind == "tool_result":  # a step ended: invoke, and inject before the next call
            self.done += 1
            if self.chain.opts.variant == "mem0_top10":  # Mem0 in place of the bank: it also writes the step
                new = [e for e in self.window[self._added:] if e.kind != "candidate_call"]
                self._added = len(self.window)
                self.chain.mem0.add([event_line(e) for e in new], new, self.task.time, self.task.project_id)
            if self.done < len(self.plan):
                self.deliver(self._invoke(ev.step), ev.step, "supplement")

    def end(self, completed=True):
        self.chain.bank.status = ""
        return super().end(completed)


@dataclass
class PMAMethod:
    name: str
    llm: object
    opts: Options
    mem0_opts: object = None
    uses_memory: bool = True
    memory_kind: str = "pma"

    def open_chain(self, seed) -> PMAChain:
        mem0 = None
        if self.opts.variant == "mem0_top10":
            from eval.methods.mem0 import Mem0Chain, Options as Mem0Options
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
