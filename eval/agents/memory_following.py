"""The memory-following offline agent (`agent=memory_following`): the scripted request-only agent that
also takes what memory delivers, through the fair world's one uptake model.

Persona2Web (no LLM; labelled "simulated" like every behaviour-model number): the request-only plan
(search, open a site, submit an answer) with three decisions, each one uptake decision
(eval/agents/behaviour.py `Uptake.fill`) over the task group's slots (`bench.memory_slots`: its level-2
values, the site, the location):
1. `web_search(query)`: the request text plus the values the agent takes for its slots;
2. `open_website(site)`: the site it takes (the request's site when it names one, `p_follow_explicit`;
   else a delivered one; else the task's start page). This call is gated: on an intervention the
   agent re-plans once with the evidence as its freshest delivery (one more decision), as the
   simulated agent does; more than `max_interventions_per_step` holds on the step abandon it;
3. `submit_answer(answer)`: the request text plus the values it takes (and the location).
What the request states (`bench.request_states`) is `known`; everything memory delivers (the start
delivery, supplements, reminders, intervention evidence) is read by Persona2Web's own reader
(`bench.reader(user)`: the synthetic world's values, each task group's phrase as its condition) and
the agent's context is its task group, so a delivered preference of another group is applied with
`p_apply_out_of_context`. Common random numbers: every method is compared on the same draws.
Interventions are scored by the benchmark (`bench.intervention_correct`).
"""

from __future__ import annotations

from eval.agents.behaviour import BehaviourParams, Context, Uptake, hold_response
from eval.episode import EpisodeOutcome, InterventionRecord, event_maker
from pulse.agent.gate import PreCommitGate
from pulse.agent.runtime import Delivery

# BehaviourParams is frozen: one shared default instance is safe.
_DEFAULT_PARAMS = BehaviourParams()


class MemoryFollowingAgent:
    name = "memory_following"
    simulated = True  # a behaviour model, not an LLM
    model = "memory-following request-only agent (uptake model, eval/agents/memory_following.py)"

    def __init__(self, params: BehaviourParams = _DEFAULT_PARAMS):
        self.p = params
        self._readers: dict[tuple[int, str], object] = {}

    def check(self, bench) -> None:
        from pulse.config.schema import ConfigError

        for need in ("reader", "memory_slots", "request_states"):
            if not hasattr(bench, need):
                raise ConfigError(
                    f"agent=memory_following runs persona2web (its reader and slots); "
                    f"{bench.name!r} has no {need}()"
                )

    def run(self, task, env, session, seed: int, bench) -> EpisodeOutcome:
        p = self.p
        out = EpisodeOutcome()
        event = event_maker(task)
        key_r = (id(bench), task.user_id)
        if key_r not in self._readers:
            self._readers[key_r] = bench.reader(task.user_id)
        reader = self._readers[key_r]
        uptake = Uptake(p, (task.project_id,))
        ctx = Context(reader, task.time)  # what memory has delivered so far, as the reader reads it

        slots = bench.memory_slots(task)
        known = bench.request_states(task)
        defaults = [(s, d) for s, _, d in slots]
        ctx.receive(session.start(event("request", text=task.request_text, role="user")), 0)
        gate = PreCommitGate(executor=env, decide=session.decide_call)
        decision = 0
        transcript = [{"role": "user", "content": task.request_text}]

        def decide(purpose: str) -> dict[str, str]:
            nonlocal decision
            ctx.next_call()  # a reminder meant for the previous call leaves the context
            for d in session.take_supplements(wait=True):
                ctx.receive(d, decision + 1)
            decision += 1
            out.llm_calls += 1
            return uptake.fill(
                defaults, known, ctx.readings, decision, ctx.load, (seed, task.task_id, purpose)
            )

        def with_values(base: str, args: dict[str, str]) -> str:
            extra = [v for s, v in args.items() if s != "site" and v and v.lower() not in base.lower()]
            return base + (" " + "; ".join(extra) if extra else "")

        def execute(tool: str, args: dict[str, str], purpose: str, filled: dict[str, str]) -> None:
            n_int = 0
            while True:
                cand = event("candidate_call", tool=tool, args=dict(args))
                res = gate.call(tool, args, cand)
                if res.intervened:
                    n_int += 1
                    ev = tuple(res.decision.evidence if res.decision else ())
                    out.interventions.append(
                        InterventionRecord(
                            cand.step,
                            tool,
                            bool(bench.intervention_correct(task, tool, args, ev)),
                            evidence=tuple(m.item_id for m in ev),
                        )
                    )
                    if n_int > p.max_interventions_per_step:
                        out.abandoned_steps += 1
                        return
                    response = hold_response(p, (seed, task.task_id, purpose, n_int))
                    out.hold_responses[response] = out.hold_responses.get(response, 0) + 1
                    if response == "abandon":
                        out.abandoned_steps += 1
                        return
                    new = ctx.receive(Delivery(ev, res.evidence_text, decision, "intervene"), decision + 1)
                    nonlocal_decision()
                    if response == "repeat":  # the held call again, unchanged
                        continue
                    if response == "ask_user":  # the user answers with their values for this call
                        used = {"site"} if tool == "open_website" else set(filled)
                        answer = {s: v for s, v, _ in slots if s in used}
                        session.observe(event("message", role="agent", text="Which values should I use?"))
                        session.observe(
                            event("message", role="user", text="; ".join(answer.values()) or "Go ahead.")
                        )
                        known.update(answer)
                        covered = set(answer)
                    else:
                        covered = {r.value.slot for r in new}
                    again = uptake.fill(
                        [sd for sd in defaults if sd[0] in covered],
                        known,
                        ctx.readings,
                        decision,
                        ctx.load,
                        (seed, task.task_id, purpose, response, n_int),
                    )
                    filled.update(again)
                    args = rebuild(tool, filled)
                    continue
                if res.executed:
                    out.tool_calls += 1
                    session.observe(event("tool_result", tool=tool, text="ok"))
                    transcript.append({"role": "tool", "content": str(res.result)[:500]})
                else:
                    out.tool_errors += 1
                    session.observe(
                        event("tool_result", tool=tool, text=f"error: {res.error}", args={"status": "error"})
                    )
                return

        def nonlocal_decision() -> None:
            nonlocal decision
            decision += 1
            out.llm_calls += 1

        def rebuild(tool: str, filled: dict[str, str]) -> dict[str, str]:
            if tool == "open_website":
                return {"site": filled.get("site") or task.data.start_url}
            if tool == "web_search":
                return {"query": with_values(task.request_text, filled)}
            return {"answer": with_values(task.request_text, filled)}

        for tool in ("web_search", "open_website", "submit_answer"):
            filled = decide(tool)
            execute(tool, rebuild(tool, filled), tool, filled)
        stats = session.end(True)
        out.memory_blocking_s = stats.blocking_s
        out.seconds = stats.blocking_s  # no latency model: only the memory time the agent waited
        out.extra.update(
            transcript=transcript,
            termination="agent_stop",
            delivered_load_tokens=ctx.load,
            reader_mentions=ctx.mentions,
            reader_attributed=ctx.attributed,
        )
        return out


def build(cfg) -> MemoryFollowingAgent:
    return MemoryFollowingAgent(cfg.behaviour)
