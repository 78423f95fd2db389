"""The simulated task agent: a documented, parameterized behaviour model, identical for every method.

It executes the task's plan (one tool call per step; the plan is given, the *arguments* are what
it must get right) and fills each argument as follows:
1. a value the user stated (request or a mid-task user message) is used with `p_follow_explicit`;
2. otherwise, if memory delivered an item for that slot (initial delivery, supplement, or an
   intervention's evidence), the delivered value is used with probability
       influence = p_use_delivered * exp(-decay_per_step * steps_since_delivery)
                   / (1 + load_penalty * max(0, delivered_tokens / context_budget_tokens - 1))
   (behavioural state decay; lost-in-the-middle as delivered context grows). Several delivered
   values for one slot (e.g. flat memory returning a superseded record): the newest is taken
   with `p_latest_on_conflict`, another one otherwise;
3. otherwise the slot's default value (the agent's prior guess).
Each step is one LLM decision that emits a short plan message and the candidate call. The plan
message says, in words, the subgoal and every value the agent intends to use, as a real agent's
plan would, without marking where a value came from; the request and user messages reach the
memory agent as text only (Pulse's listener parses them). A supplement
enters the *next* decision (it cannot change a call already emitted; the gate can). On an
intervention the call is not executed; the agent replans (one more LLM decision): an argument the
evidence covers takes the evidence value with `p_replan_fix`, except an argument the user stated
explicitly, which the evidence overrides only with `p_misled` (a wrong intervention misleading the
agent, the paper's Notion/Obsidian case). More than `max_interventions_per_step` interventions on
one step: the agent abandons that step.
An intervention is scored with the one definition of `pulse.core.correctness`: it is correct when
the held call conflicts with a current binding memory item whose value is the argument's true value
(the step's gold for arguments that come from a preference, a revised preference or a project
decision) and the evidence names that item. Each intervention also records whether the call finally
executed for the step was right on every argument (`fixed`) and whether the held call was already
right and the final one is not, or the step was abandoned (`misled`).
Randomness uses common random numbers keyed by (seed, task, step, slot, purpose), so methods are
compared on the same draws.

Time per task = measured memory-agent blocking wall time + the latency model: each LLM decision
costs `llm_latency_s + llm_latency_s_per_1k_ctx_tokens * context_tokens/1000`, each executed tool
call `tool_latency_s`. Non-gate events run inline here (deterministic); their measured wall time
counts only where it exceeds the next LLM decision's latency (in the concurrent runtime they
overlap with it); plan messages precede a gate, so their processing counts in full.
"""
from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from typing import Any

from pulse.agent.gate import PreCommitGate
from pulse.agent.listener import SUBGOAL_KEY
from pulse.agent.runtime import Delivery
from pulse.agent.tokens import count_tokens
from pulse.core.correctness import is_correct_intervention
from pulse.core.records import Event
from eval.episode import EpisodeOutcome, InterventionRecord
from eval.suites.schema import SimTask, StepSpec

BINDING = ("preference", "project_state", "habit")
# Argument sources whose true value long-term memory holds and may enforce (eval/suites/schema.py).
MEMORY_SOURCES = ("preference", "revised", "project")


def plan_text(subgoal: str, args: dict[str, str]) -> str:
    """The plan message: the subgoal and the values the agent intends to use, in words."""
    values = ", ".join(f"{slot.replace('_', ' ')} {v}" for slot, v in args.items())
    return f"Next I will {subgoal}" + (f" with {values}." if values else ".")


@dataclass(frozen=True)
class BehaviourParams:
    # probability of using a value the user stated
    p_follow_explicit: float = 0.97
    # probability of using a delivered fact at the decision right after its delivery
    p_use_delivered: float = 0.9
    # per-step exponential decay of a delivered fact's influence (1/steps)
    decay_per_step: float = 0.25
    # delivered-memory tokens the agent attends to fully; beyond it influence drops (lost in the middle)
    context_budget_tokens: int = 120
    # strength of the drop beyond the budget
    load_penalty: float = 0.5
    # several delivered values for one slot: probability of taking the newest
    p_latest_on_conflict: float = 0.6
    # after a right intervention, probability the replanned call uses the evidence value
    p_replan_fix: float = 0.95
    # a wrong intervention flips an explicitly stated (correct) argument with this probability
    p_misled: float = 0.5
    # interventions on one step after which the agent abandons the step
    max_interventions_per_step: int = 2
    # latency model of the simulated LLM (seconds per decision, plus per 1k context tokens)
    llm_latency_s: float = 1.5
    llm_latency_s_per_1k_ctx_tokens: float = 0.3
    # latency of one executed tool call (seconds)
    tool_latency_s: float = 0.3
    # context tokens one past step adds (plan + call + result)
    tokens_per_step: int = 60


def _u(*key: Any) -> float:
    h = hashlib.blake2b("|".join(map(str, key)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2 ** 64


class SimulatedAgent:
    name = "simulated"
    simulated = True
    model = "simulated-agent (behaviour model, eval/agents/simulated.py)"

    def __init__(self, params: BehaviourParams = BehaviourParams(), deterministic: bool = True,
                 realtime: bool = False):
        self.p = params
        # deterministic: drain the memory agent before each decision (supplement timing fixed)
        self.deterministic = deterministic
        # realtime: sleep the modelled latencies instead of adding them up (bench/bench_runtime.py)
        self.realtime = realtime

    # ---------------------------------------------------------------------------------------
    def _latency(self, ctx_tokens: int) -> float:
        return self.p.llm_latency_s + self.p.llm_latency_s_per_1k_ctx_tokens * ctx_tokens / 1000

    def _delivered_value(self, slot: str, deliveries: list[tuple[int, Delivery]], decision: int,
                         load: int, key: tuple) -> str | None:
        found = [(d_step, m) for d_step, d in deliveries for m in d.items if m.slot == slot and m.kind in BINDING]
        if not found:
            return None
        last_step = max(s for s, _ in found)
        influence = self.p.p_use_delivered * math.exp(-self.p.decay_per_step * max(0, decision - last_step))
        influence /= 1 + self.p.load_penalty * max(0.0, load / self.p.context_budget_tokens - 1)
        if _u(*key, "use") >= influence:
            return None
        values = {}
        for _, m in sorted(found, key=lambda x: (x[1].valid_from, x[0])):
            values.pop(m.value, None)
            values[m.value] = m
        ordered = list(values)
        if len(ordered) == 1 or _u(*key, "conflict") < self.p.p_latest_on_conflict:
            return ordered[-1]
        return ordered[int(_u(*key, "pick") * (len(ordered) - 1))]

    def _fill(self, step: StepSpec, stated: dict[str, str], deliveries, decision: int, load: int,
              key: tuple) -> dict[str, str]:
        args = {}
        for a in step.args:
            k = (*key, a.slot)
            if a.slot in stated and stated[a.slot] != "?" and _u(*k, "explicit") < self.p.p_follow_explicit:
                args[a.slot] = stated[a.slot]
                continue
            v = self._delivered_value(a.slot, deliveries, decision, load, k)
            args[a.slot] = v if v is not None else a.default
        return args

    # ---------------------------------------------------------------------------------------
    def run(self, task: SimTask, env, session, seed: int) -> EpisodeOutcome:
        p = self.p
        out = EpisodeOutcome()
        t_mem_inline = 0.0
        sim_time = 0.0
        ev_no = 0

        def next_event(kind: str, **kw) -> Event:
            nonlocal ev_no
            ev_no += 1
            return Event(kind, ev_no, time=task.time, event_id=f"{task.task_id}#{ev_no}", **kw)

        def observe(ev: Event, overlaps_llm: float) -> None:
            nonlocal t_mem_inline
            t0 = time.perf_counter()
            session.observe(ev)
            dt = time.perf_counter() - t0
            t_mem_inline += max(0.0, dt - overlaps_llm)
            out.events.append({"kind": ev.kind, "step": ev.step, "tool": ev.tool, "args": dict(ev.args)})

        # what the user stated (the agent reads the request; the memory agent gets only its text)
        stated = {k: v for k, v in task.request_args.items() if v != "?"}
        request = next_event("request", text=task.request_text, role="user")
        out.events.append({"kind": "request", "step": request.step, "text": request.text})
        deliveries: list[tuple[int, Delivery]] = []
        first = session.start(request)
        if first is not None:
            deliveries.append((0, first))
        gate = PreCommitGate(executor=env, decide=session.decide_call)
        load = sum(d.tokens for _, d in deliveries)
        decision = 0
        base_ctx = count_tokens(task.request_text)

        def llm_call() -> float:
            nonlocal decision, sim_time
            decision += 1
            out.llm_calls += 1
            lat = self._latency(base_ctx + load + p.tokens_per_step * decision)
            sim_time += lat
            if self.realtime:
                time.sleep(lat)
            return lat

        for i, step in enumerate(task.steps):
            key = (seed, task.task_id, i)
            if step.user_message:
                stated.update(step.user_message)
                ev = next_event("message", role="user", text=step.user_message_text)
                observe(ev, overlaps_llm=self._latency(base_ctx + load))
            for d in session.take_supplements(wait=self.deterministic):
                deliveries.append((decision + 1, d))
                load += d.tokens
            llm_call()
            args = self._fill(step, stated, deliveries, decision, load, key)
            plan = next_event("message", role="agent", text=plan_text(step.subgoal, args),
                              args={SUBGOAL_KEY: step.subgoal})
            observe(plan, overlaps_llm=0.0)
            gold = {a.slot: a.gold for a in step.args}
            truth = {a.slot: a.gold for a in step.args if a.source in MEMORY_SOURCES}
            n_int, records = 0, []
            while True:
                call_args = {"name": step.artifact, **args}
                cand = next_event("candidate_call", tool=step.tool, args=dict(call_args))
                out.events.append({"kind": "candidate_call", "step": cand.step, "tool": step.tool, "args": dict(call_args)})
                res = gate.call(step.tool, call_args, cand)
                if res.intervened:
                    n_int += 1
                    # the evidence ids that resolved to memory items (made-up ids resolve to nothing)
                    ev_items = res.decision.evidence if res.decision else ()
                    record = InterventionRecord(
                        cand.step, step.tool, is_correct_intervention(call_args, ev_items, truth),
                        misled=all(args.get(s) == g for s, g in gold.items()),  # held call right; see below
                        evidence=tuple(m.item_id for m in ev_items))
                    out.interventions.append(record)
                    records.append(record)
                    out.events.append({"kind": "intervened", "step": cand.step, "evidence": list(record.evidence)})
                    if ev_items:
                        d = Delivery(tuple(ev_items), res.evidence_text, decision, "intervene")
                        deliveries.append((decision + 1, d))
                        load += d.tokens
                    if n_int > p.max_interventions_per_step:
                        out.abandoned_steps += 1
                        break
                    llm_call()  # replanning costs one decision
                    for s in list(args):
                        ev_vals = [m for m in ev_items if m.slot == s and m.kind in BINDING]
                        if not ev_vals or ev_vals[-1].value == args[s]:
                            continue
                        u = _u(*key, s, "replan", n_int)
                        if s in stated:
                            if u < p.p_misled:
                                args[s] = ev_vals[-1].value
                        elif u < p.p_replan_fix:
                            args[s] = ev_vals[-1].value
                    continue
                if res.executed:
                    out.tool_calls += 1
                    sim_time += p.tool_latency_s
                    if self.realtime:
                        time.sleep(p.tool_latency_s)
                    result = {k: str(v) for k, v in (res.result or {}).items()}
                    tr = next_event("tool_result", tool=step.tool, text="ok", args=result)
                    observe(tr, overlaps_llm=self._latency(base_ctx + load + p.tokens_per_step * (decision + 1)))
                else:
                    out.tool_errors += 1
                    tr = next_event("tool_result", tool=step.tool, text=f"error: {res.error}", args={"status": "error"})
                    observe(tr, overlaps_llm=self._latency(base_ctx + load))
                break
            if records:
                final = env.state.get(step.artifact, {}) if hasattr(env, "state") else {}
                fixed = all(final.get(s) == g for s, g in gold.items())
                for r in records:
                    r.fixed = fixed
                    r.misled = r.misled and not fixed
        llm_call()  # the final answer
        stats = session.end(True)
        out.memory_blocking_s = stats.blocking_s + t_mem_inline
        out.seconds = sim_time + out.memory_blocking_s
        out.extra["delivered_load_tokens"] = load
        return out


def build(cfg) -> SimulatedAgent:
    fields = BehaviourParams.__dataclass_fields__
    unknown = set(cfg.behaviour) - set(fields)
    if unknown:
        raise ValueError(f"agent.behaviour: unknown key(s) {sorted(unknown)}; known: {sorted(fields)}")
    return SimulatedAgent(BehaviourParams(**cfg.behaviour))
