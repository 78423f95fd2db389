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
    """The scripted request-only Persona2Web agent that also takes what memory delivers (the
    module docstring): search, open a site, submit an answer, each call's values filled by the
    fair world's uptake model; one `_Episode` per task."""

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
        key_r = (id(bench), task.user_id)
        if key_r not in self._readers:
            self._readers[key_r] = bench.reader(task.user_id)
        return _Episode(self.p, task, env, session, seed, bench, self._readers[key_r]).play()


class _Episode:
    """One task's episode: what memory has delivered so far as the reader reads it (`ctx`), the
    pre-commit gate, the count of the agent's decisions, and the outcome being recorded."""

    def __init__(self, p: BehaviourParams, task, env, session, seed: int, bench, reader):
        self.p, self.task, self.session, self.seed, self.bench = p, task, session, seed, bench
        self.out = EpisodeOutcome()
        self.event = event_maker(task)
        self.uptake = Uptake(p, (task.project_id,))
        self.ctx = Context(reader, task.time)
        self.slots = bench.memory_slots(task)
        self.known = bench.request_states(task)
        self.defaults = [(s, d) for s, _, d in self.slots]
        self.ctx.receive(session.start(self.event("request", text=task.request_text, role="user")), 0)
        self.gate = PreCommitGate(executor=env, decide=session.decide_call)
        self.decision = 0
        self.transcript = [{"role": "user", "content": task.request_text}]

    def play(self) -> EpisodeOutcome:
        for tool in ("web_search", "open_website", "submit_answer"):
            filled = self.decide(tool)
            self.execute(tool, self.rebuild(tool, filled), tool, filled)
        stats = self.session.end(True)
        out = self.out
        out.memory_blocking_s = stats.blocking_s
        out.seconds = stats.blocking_s  # no latency model: only the memory time the agent waited
        out.extra.update(
            transcript=self.transcript,
            termination="agent_stop",
            delivered_load_tokens=self.ctx.load,
            reader_mentions=self.ctx.mentions,
            reader_attributed=self.ctx.attributed,
        )
        return out

    def _count_decision(self) -> None:
        self.decision += 1
        self.out.llm_calls += 1

    def decide(self, purpose: str) -> dict[str, str]:
        """One uptake decision over the task's slots, after taking the supplements waiting for it."""
        self.ctx.next_call()  # a reminder meant for the previous call leaves the context
        for d in self.session.take_supplements(wait=True):
            self.ctx.receive(d, self.decision + 1)
        self._count_decision()
        return self.uptake.fill(
            self.defaults,
            self.known,
            self.ctx.readings,
            self.decision,
            self.ctx.load,
            (self.seed, self.task.task_id, purpose),
        )

    def rebuild(self, tool: str, filled: dict[str, str]) -> dict[str, str]:
        """The call's arguments from the values the agent took."""
        if tool == "open_website":
            return {"site": filled.get("site") or self.task.data.start_url}
        if tool == "web_search":
            return {"query": _with_values(self.task.request_text, filled)}
        return {"answer": _with_values(self.task.request_text, filled)}

    def execute(self, tool: str, args: dict[str, str], purpose: str, filled: dict[str, str]) -> None:
        """The call through the gate; while it is held, the agent's response to each hold."""
        n_int = 0
        while True:
            cand = self.event("candidate_call", tool=tool, args=dict(args))
            res = self.gate.call(tool, args, cand)
            if not res.intervened:
                self._record_result(tool, res)
                return
            n_int += 1
            args = self._after_hold(tool, args, purpose, filled, cand, res, n_int)
            if args is None:
                return

    def _after_hold(self, tool, args, purpose, filled, cand, res, n_int) -> dict[str, str] | None:
        """The intervention recorded, then the agent's response: abandon the step (None; also past
        `max_interventions_per_step` holds), repeat the held call, or re-plan (one more decision)
        with the evidence as its freshest delivery, after asking the user when it chose to."""
        p, out, task = self.p, self.out, self.task
        ev = tuple(res.decision.evidence if res.decision else ())
        out.interventions.append(
            InterventionRecord(
                cand.step,
                tool,
                bool(self.bench.intervention_correct(task, tool, args, ev)),
                evidence=tuple(m.item_id for m in ev),
            )
        )
        if n_int > p.max_interventions_per_step:
            out.abandoned_steps += 1
            return None
        response = hold_response(p, (self.seed, task.task_id, purpose, n_int))
        out.hold_responses[response] = out.hold_responses.get(response, 0) + 1
        if response == "abandon":
            out.abandoned_steps += 1
            return None
        new = self.ctx.receive(Delivery(ev, res.evidence_text, self.decision, "intervene"), self.decision + 1)
        self._count_decision()
        if response == "repeat":  # the held call again, unchanged
            return args
        if response == "ask_user":
            covered = self._ask_user(tool, filled)
        else:
            covered = {r.value.slot for r in new}
        again = self.uptake.fill(
            [sd for sd in self.defaults if sd[0] in covered],
            self.known,
            self.ctx.readings,
            self.decision,
            self.ctx.load,
            (self.seed, task.task_id, purpose, response, n_int),
        )
        filled.update(again)
        return self.rebuild(tool, filled)

    def _ask_user(self, tool: str, filled: dict[str, str]) -> set[str]:
        """The user answers with their values for this call; they become known. Returns the slots."""
        used = {"site"} if tool == "open_website" else set(filled)
        answer = {s: v for s, v, _ in self.slots if s in used}
        self.session.observe(self.event("message", role="agent", text="Which values should I use?"))
        self.session.observe(
            self.event("message", role="user", text="; ".join(answer.values()) or "Go ahead.")
        )
        self.known.update(answer)
        return set(answer)

    def _record_result(self, tool: str, res) -> None:
        if res.executed:
            self.out.tool_calls += 1
            self.session.observe(self.event("tool_result", tool=tool, text="ok"))
            self.transcript.append({"role": "tool", "content": str(res.result)[:500]})
        else:
            self.out.tool_errors += 1
            self.session.observe(
                self.event("tool_result", tool=tool, text=f"error: {res.error}", args={"status": "error"})
            )


def _with_values(base: str, args: dict[str, str]) -> str:
    """`base` plus the values (other than the site) it does not already name."""
    extra = [v for s, v in args.items() if s != "site" and v and v.lower() not in base.lower()]
    return base + (" " + "; ".join(extra) if extra else "")


def build(cfg) -> MemoryFollowingAgent:
    return MemoryFollowingAgent(cfg.behaviour)
