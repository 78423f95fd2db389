"""The simulated task agent: a documented, parameterized behaviour model, identical for every method.

It executes the task's plan (one tool call per step; the plan is given, the *arguments* are what
it must get right). Each step is one LLM decision that fills the arguments through the one uptake
model (eval/agents/behaviour.py: what the conversation states, what memory delivered, the slot's
default), then emits a short plan message and the candidate call. The plan message says, in
words, the subgoal and every value the agent intends to use, as a real agent's plan would,
without marking where a value came from; the request and user messages reach the memory agent as
text only. Everything a method delivers (start-of-task memory, supplements, reminders, injected
banks, an intervention's evidence) is text, read by the suite's own reader (eval/suites/reader.py)
and taken up by the same model. A delivery enters the agent's next decision and stays for all later
ones, except a `transient` one (the Proactive Memory Agent's reminder), which is context of the next
call only. Plan and call are one step, as in an API agent: a delivery that arrives after a step's
plan message reaches the next step's decision, never the announced call, so the only way any
method changes an announced call is to hold it at the gate, and every hold is an interruption,
counted and priced. On a hold the call is not executed and the agent (`hold_response`, one draw)
gives up the step (`p_hold_abandon`), asks the user, who answers with their true values for the
call's memory-sourced arguments (`p_hold_ask_user`), re-issues the call unchanged (`p_hold_repeat`:
the gate decides again), or re-plans (one more LLM decision) by editing the held call: the
arguments the evidence speaks to are decided again by the same uptake model, the evidence being the
freshest delivery; the others keep their values. More than `max_interventions_per_step` holds on one
step: the agent abandons that step.
An intervention is scored with the one definition of `pulse.core.correctness`: it is correct when
the held call conflicts with a current binding memory item whose value is the argument's true value
(the step's gold for arguments that come from memory) and the evidence names that item. Each
intervention also records whether the call finally executed for the step was right on every
argument (`fixed`) and whether the held call was already right and the final one is not, or the
step was abandoned (`misled`).

Time per task = measured memory-agent blocking wall time + the latency model: each LLM decision
costs `llm_latency_s + llm_latency_s_per_1k_ctx_tokens * context_tokens/1000`, each executed tool
call `tool_latency_s`. Non-gate events run inline here (deterministic); their measured wall time
counts only where it exceeds the LLM time they overlap with (in the concurrent runtime they run
beside it). A step's decision streams its plan message after `plan_lead` of its latency and its
call at the end, so the plan's processing overlaps the rest of that decision.
"""

from __future__ import annotations

import time

from eval.agents.behaviour import BehaviourParams, Context, Uptake, hold_response
from eval.episode import EpisodeOutcome, InterventionRecord, event_maker
from eval.suites.reader import ValueReader, tool_vocabulary
from eval.suites.schema import SimTask
from pulse.agent.gate import PreCommitGate
from pulse.agent.runtime import Delivery
from pulse.agent.tokens import count_tokens
from pulse.core.correctness import is_correct_intervention

# Argument sources whose true value long-term memory holds and may enforce (eval/suites/schema.py).
MEMORY_SOURCES = ("preference", "revised", "project", "conditional")


def plan_text(subgoal: str, args: dict[str, str]) -> str:
    """The plan message: the subgoal and the values the agent intends to use, in words."""
    values = ", ".join(f"{slot.replace('_', ' ')} {v}" for slot, v in args.items())
    return f"Next I will {subgoal}" + (f" with {values}." if values else ".")


def ask_text(subgoal: str, args: dict[str, str]) -> str:
    """The agent's question to the user after a hold."""
    slots = ", ".join(slot.replace("_", " ") for slot in args) or "this"
    return f"Before I {subgoal}: which {slots} should I use?"


def answer_text(args: dict[str, str]) -> str:
    """The simulated user's answer: their values, in words."""
    values = ", ".join(f"{slot.replace('_', ' ')} {v}" for slot, v in args.items())
    return f"Use {values}." if values else "Go ahead as you planned."


DEFAULT_BEHAVIOUR = BehaviourParams()  # frozen: one shared default is safe


class SimulatedAgent:
    """The simulated task agent (`agent=simulated`): it follows a generated task's plan of typed calls,
    and what it does with memory (take a supplement up, revise or give up on a held call, ask the
    user) follows the behaviour model's knobs (`BehaviourParams`, calibrated by
    `pulse calibrate-agent`). Latencies are modelled, not slept (unless `realtime`).

    `run(task, env, session, seed, bench)` plays one episode against the memory `session` and returns
    its `EpisodeOutcome`; `check(bench)` raises ConfigError for a benchmark that is not a generated
    suite (the real benchmarks need an LLM or scripted agent). Seeded: the same seed, the same episode.
    """

    name = "simulated"
    simulated = True
    model = "simulated-agent (behaviour model, eval/agents/simulated.py)"

    def __init__(
        self, params: BehaviourParams = DEFAULT_BEHAVIOUR, deterministic: bool = True, realtime: bool = False
    ):
        self.p = params
        # deterministic: drain the memory agent before each decision (supplement timing fixed)
        self.deterministic = deterministic
        # realtime: sleep the modelled latencies instead of adding them up (bench/bench_runtime.py)
        self.realtime = realtime

    def _latency(self, ctx_tokens: int) -> float:
        return self.p.llm_latency_s + self.p.llm_latency_s_per_1k_ctx_tokens * ctx_tokens / 1000

    def check(self, bench) -> None:
        """Refuse a benchmark whose tasks are not plans of typed calls (the real benchmarks)."""
        if bench.tasks and not isinstance(bench.tasks[0], SimTask):
            from pulse.config.schema import ConfigError

            raise ConfigError(
                f"agent=simulated runs the generated suites; {bench.name!r} needs agent=openai "
                f"(an LLM task agent) or agent=scripted (offline gold / noop checks)"
            )

    def run(self, task: SimTask, env, session, seed: int, bench=None) -> EpisodeOutcome:
        """One episode of `task` in `env` against the memory `session` (`bench`: the suite, whose
        reader reads deliveries; without one, the tools' enum values are read)."""
        return _Episode(self, task, env, session, seed, bench).run()


class _Episode:
    """One episode of the simulated agent: the state its decisions share (what was stated, executed
    and delivered, the decision count, modelled and measured time)."""

    def __init__(self, agent: SimulatedAgent, task: SimTask, env, session, seed: int, bench):
        self.agent, self.p = agent, agent.p
        self.task, self.env, self.session, self.seed = task, env, session, seed
        self.bench = bench
        self.out = EpisodeOutcome()
        reader = (
            bench.reader(task.user_id)
            if bench is not None
            else ValueReader(tool_vocabulary(env.tool_specs()))
        )
        self.uptake = Uptake(self.p, task.context)
        self.t_mem_inline = 0.0
        self.sim_time = 0.0
        self.next_event = event_maker(task)
        self.ctx = Context(reader, task.time)  # what memory has delivered so far, as the reader reads it
        # what the user stated (the agent reads the request; the memory agent gets only its text)
        self.stated = {k: v for k, v in task.request_args.items() if v != "?"}
        self.decision = 0
        self.base_ctx = count_tokens(task.request_text)
        self.executed: dict[tuple[str, str], str] = {}  # (step_id, slot) -> the value the agent executed
        self.gate: PreCommitGate | None = None

    def run(self) -> EpisodeOutcome:
        task, out, session = self.task, self.out, self.session
        request = self.next_event("request", text=task.request_text, role="user")
        out.events.append({"kind": "request", "step": request.step, "text": request.text})
        self.ctx.receive(session.start(request), 0)
        self.gate = PreCommitGate(executor=self.env, decide=session.decide_call)
        for i, step in enumerate(task.steps):
            self.step(i, step)
        self.llm_call()  # the final answer
        stats = session.end(True)
        out.memory_blocking_s = stats.blocking_s + self.t_mem_inline
        out.seconds = self.sim_time + out.memory_blocking_s
        ctx = self.ctx
        out.extra.update(
            delivered_load_tokens=ctx.load, reader_mentions=ctx.mentions, reader_attributed=ctx.attributed
        )
        return out

    def observe(self, ev, overlaps_llm: float) -> None:
        t0 = time.perf_counter()
        self.session.observe(ev)
        dt = time.perf_counter() - t0
        self.t_mem_inline += max(0.0, dt - overlaps_llm)
        self.out.events.append({"kind": ev.kind, "step": ev.step, "tool": ev.tool, "args": dict(ev.args)})

    def llm_call(self, share: float = 1.0) -> float:
        """One LLM decision; in real time only `share` of its latency is slept here (the rest after its
        plan has streamed out)."""
        self.decision += 1
        self.out.llm_calls += 1
        lat = self.agent._latency(self.base_ctx + self.ctx.load + self.p.tokens_per_step * self.decision)
        self.sim_time += lat
        if self.agent.realtime:
            time.sleep(lat * share)
        return lat

    def step(self, i: int, step) -> None:
        """One step of the plan: the user's message, the supplements, the plan, the call and its holds."""
        p, ctx, stated, executed = self.p, self.ctx, self.stated, self.executed
        key = (self.seed, self.task.task_id, i)
        ctx.next_call()  # a reminder meant for the previous call leaves the context
        if step.user_message:
            stated.update(step.user_message)
            ev = self.next_event("message", role="user", text=step.user_message_text)
            self.observe(ev, overlaps_llm=self.agent._latency(self.base_ctx + ctx.load))
        for d in self.session.take_supplements(wait=self.agent.deterministic):
            ctx.receive(d, self.decision + 1)
        known = {a.slot: stated[a.slot] for a in step.args if a.slot in stated and stated[a.slot] != "?"}
        known.update(
            {
                a.slot: executed[tuple(a.carry_from.split(".", 1))]
                for a in step.args
                if a.source == "carried" and tuple(a.carry_from.split(".", 1)) in executed
            }
        )
        slots = [(a.slot, a.default) for a in step.args]
        # the decision streams its plan text first and its call last (`plan_lead`): the memory agent
        # reads the plan while the rest of the decision is generated. Plan and call are one step: a
        # delivery that arrives after the plan reaches the next decision, never this call; the only
        # way to change an announced call is to hold it at the gate (an interruption, counted)
        lat = self.llm_call(share=p.plan_lead)
        args = self.uptake.fill(slots, known, ctx.readings, self.decision, ctx.load, (*key, "plan"))
        plan = self.next_event("message", role="agent", text=plan_text(step.subgoal, args))
        self.observe(plan, overlaps_llm=(1 - p.plan_lead) * lat)
        self.out.events[-1]["announced"] = dict(args)  # the episode record's, not the memory agent's
        if self.agent.realtime:
            time.sleep((1 - p.plan_lead) * lat)
        gold = {a.slot: a.gold for a in step.args}
        records = self.propose(step, key, slots, known, args)
        if records:
            final = self.env.state.get(step.artifact, {}) if hasattr(self.env, "state") else {}
            fixed = all(final.get(s) == g for s, g in gold.items())
            for r in records:
                r.fixed = fixed
                r.misled = r.misled and not fixed

    def propose(self, step, key: tuple, slots: list, known: dict, args: dict) -> list[InterventionRecord]:
        """Propose the step's call at the gate until it runs, errs or is given up; returns the records
        of its holds."""
        out = self.out
        gold = {a.slot: a.gold for a in step.args}
        truth = {a.slot: a.gold for a in step.args if a.source in MEMORY_SOURCES}
        n_int, records = 0, []
        while True:
            call_args = {"name": step.artifact, **args}
            cand = self.next_event("candidate_call", tool=step.tool, args=dict(call_args))
            out.events.append(
                {"kind": "candidate_call", "step": cand.step, "tool": step.tool, "args": dict(call_args)}
            )
            res = self.gate.call(step.tool, call_args, cand)  # type: ignore[union-attr]
            if res.intervened:
                n_int += 1
                # the evidence ids that resolved to memory items (made-up ids resolve to nothing)
                ev_items = res.decision.evidence if res.decision else ()
                record = InterventionRecord(
                    cand.step,
                    step.tool,
                    is_correct_intervention(call_args, ev_items, truth),
                    misled=all(args.get(s) == g for s, g in gold.items()),  # held call right; see step()
                    evidence=tuple(m.item_id for m in ev_items),
                )
                out.interventions.append(record)
                records.append(record)
                out.events.append(
                    {"kind": "intervened", "step": cand.step, "evidence": list(record.evidence)}
                )
                again = self.after_hold(step, key, n_int, slots, known, res, ev_items)
                if again is None:
                    break
                args = {**args, **again}
                continue
            self.finish_call(step, args, res)
            break
        return records

    def after_hold(self, step, key: tuple, n_int: int, slots: list, known: dict, res, ev_items):
        """What the agent does with its held call: None (it gives the step up), or the arguments it
        decides again (none for a repeat: the held call again, unchanged)."""
        p, ctx, out = self.p, self.ctx, self.out
        if n_int > p.max_interventions_per_step:
            out.abandoned_steps += 1
            return None
        # what the agent does with the held call: one draw per (task, step, hold)
        response = hold_response(p, (*key, n_int))
        out.hold_responses[response] = out.hold_responses.get(response, 0) + 1
        if response == "abandon":
            out.abandoned_steps += 1
            return None
        ctx_new = ctx.receive(
            Delivery(tuple(ev_items), res.evidence_text, self.decision, "intervene"), self.decision + 1
        )
        self.llm_call()
        if response == "repeat":  # the held call again, unchanged: the gate decides again
            return {}
        if response == "ask_user":
            # the agent asks; the user answers with their true value for every argument of the held
            # call that their memory speaks to (what they would say, asked)
            answer = {a.slot: a.gold for a in step.args if a.source in MEMORY_SOURCES}
            ask = self.next_event("message", role="agent", text=ask_text(step.subgoal, answer))
            self.observe(ask, overlaps_llm=0.0)
            reply = self.next_event("message", role="user", text=answer_text(answer))
            self.observe(reply, overlaps_llm=0.0)
            self.stated.update(answer)
            known.update(answer)
            covered = set(answer)
            purpose = "asked"
        else:
            # re-plan: the arguments the evidence speaks to are decided again (same model, the
            # evidence now the freshest delivery); the others keep their values
            covered = {r.value.slot for r in ctx_new}
            purpose = "replan"
        return self.uptake.fill(
            [sd for sd in slots if sd[0] in covered],
            known,
            ctx.readings,
            self.decision,
            ctx.load,
            (*key, purpose, n_int),
        )

    def finish_call(self, step, args: dict, res) -> None:
        """The call ran (its result observed, its values executed) or failed (a tool error)."""
        p, out, ctx = self.p, self.out, self.ctx
        if res.executed:
            out.tool_calls += 1
            self.executed.update({(step.step_id, s): v for s, v in args.items()})
            self.sim_time += p.tool_latency_s
            if self.agent.realtime:
                time.sleep(p.tool_latency_s)
            result = {k: str(v) for k, v in (res.result or {}).items()}
            tr = self.next_event("tool_result", tool=step.tool, text="ok", args=result)
            self.observe(
                tr,
                overlaps_llm=self.agent._latency(
                    self.base_ctx + ctx.load + p.tokens_per_step * (self.decision + 1)
                ),
            )
        else:
            out.tool_errors += 1
            tr = self.next_event(
                "tool_result", tool=step.tool, text=f"error: {res.error}", args={"status": "error"}
            )
            self.observe(tr, overlaps_llm=self.agent._latency(self.base_ctx + ctx.load))


def build(cfg) -> SimulatedAgent:
    """The agent of `agent=simulated` (`cfg`: the agent config with its typed `behaviour`)."""
    return SimulatedAgent(cfg.behaviour)  # typed and range-checked at start (eval/config.py)
