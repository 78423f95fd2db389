"""A scripted task agent for offline checks of the real benchmarks (no LLM; labelled as scripted).

It asks the benchmark for a fixed list of tool calls (`benchmark.scripted_calls(task, script)`:
"gold" replays the gold actions / the oracle's choice, "noop" makes no call, "request_only" uses
only what the request states) and sends each through the `PreCommitGate` with the method's session
attached, exactly as the LLM agent does: request -> `start`, each call a `candidate_call` event ->
`decide_call` -> executed unless intervened -> `tool_result` event; `end` at the close. An
intervened call is not executed and not retried (a script cannot replan), so a memory method that
intervenes on a gold call costs the task its reward.
"""

from __future__ import annotations

import json
import time

from eval.episode import EpisodeOutcome, InterventionRecord, event_maker
from pulse.agent.gate import PreCommitGate


class ScriptedAgent:
    """The scripted task agent (`agent=scripted`, the module docstring) for offline checks of the real
    benchmarks: `check(bench)` refuses a generated suite or an unknown script,
    `run(task, env, session, seed, bench)` sends the benchmark's `scripted_calls` through the pre-commit gate
    and returns the episode's `EpisodeOutcome`."""

    name = "scripted"
    simulated = True  # not an LLM: its numbers are checks, never a task agent's result

    def __init__(self, script: str):
        self.script = script
        self.model = f"script:{script}"

    def check(self, bench) -> None:
        """Refuse a generated suite, and raise the benchmark's error now when it has no such script."""
        from eval.suites.schema import SimTask

        if bench.tasks and isinstance(bench.tasks[0], SimTask):
            from pulse.config.schema import ConfigError

            raise ConfigError(
                f"agent=scripted runs the real benchmarks (tau2_retail, pibench, persona2web); "
                f"{bench.name!r} uses agent=simulated or openai"
            )
        if bench.tasks:
            bench.scripted_calls(bench.tasks[0], self.script)

    def run(self, task, env, session, seed: int, bench) -> EpisodeOutcome:
        t0 = time.perf_counter()
        out = EpisodeOutcome()
        event = event_maker(task)

        transcript = [{"role": "user", "content": task.request_text}]
        session.start(event("request", text=task.request_text, role="user"))
        gate = PreCommitGate(executor=env, decide=session.decide_call)
        for tool, args in bench.scripted_calls(task, self.script):
            session.take_supplements(wait=False)  # a script cannot use them; drained like the LLM agent does
            cand = event("candidate_call", tool=tool, args={k: _text(v) for k, v in args.items()})
            res = gate.call(tool, args, cand)
            if res.intervened:
                evidence = tuple(res.decision.evidence if res.decision else ())
                # correct only where the benchmark can tell (its gold says the held call was wrong and the
                # evidence holds the right value); otherwise recorded as not correct
                judge = getattr(bench, "intervention_correct", None)
                out.interventions.append(
                    InterventionRecord(
                        cand.step,
                        tool,
                        bool(judge and judge(task, tool, args, evidence)),
                        evidence=tuple(m.item_id for m in evidence),
                    )
                )
                transcript.append({"role": "tool", "content": "NOT EXECUTED (intervened)"})
            elif res.executed:
                out.tool_calls += 1
                session.observe(event("tool_result", tool=tool, text="ok"))
                transcript.append({"role": "tool", "content": json.dumps(res.result, default=str)[:2000]})
            else:
                out.tool_errors += 1
                session.observe(
                    event("tool_result", tool=tool, text=f"error: {res.error}", args={"status": "error"})
                )
                transcript.append({"role": "tool", "content": f"ERROR: {res.error}"})
        stats = session.end(True)
        out.seconds = time.perf_counter() - t0
        out.memory_blocking_s = stats.blocking_s
        out.extra.update(transcript=transcript, termination="agent_stop", script=self.script)
        return out


def _text(v) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def build(cfg) -> ScriptedAgent:
    return ScriptedAgent(cfg.script)
