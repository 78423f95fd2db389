"""The LLM task agent on a real benchmark: user <-> assistant turns with the environment's tools.

    system (the benchmark's policy, or the default) -> the user's first message (from the user
    simulator, or the task's request when the benchmark has none) -> completions with the
    environment's tool schemas; every tool call goes through the pre-commit gate with the method's
    session (as in eval/agents/llm_tool_agent.py) -> an answer without tool calls goes to the user
    simulator, whose reply continues the conversation, until it says stop (user_stop), the agent
    answers with no simulator to reply (agent_stop), or `max_turns` completions (max_steps: τ² scores
    such an episode 0).
The transcript (public messages, tool results) and the termination reason go into
`EpisodeOutcome.extra` for the benchmark's scorer.
"""

from __future__ import annotations

import json
import time
from typing import Any

from eval.episode import EpisodeOutcome, InterventionRecord, event_maker
from pulse.agent.gate import PreCommitGate

DEFAULT_SYSTEM = (
    "You are a helpful assistant that completes the user's task, calling the tools you are given "
    "when they help. Respect the user's stated constraints and any memory notes about them."
)
GREETING = "Hi! How can I help you today?"


def run_conversation(agent, task, env, session, bench) -> EpisodeOutcome:
    t0 = time.perf_counter()
    out = EpisodeOutcome()
    event = event_maker(task)

    user = bench.user_simulator(task)
    tools = env.tool_schemas()
    transcript: list[dict[str, Any]] = []  # public conversation + tool results (for scorers and judges)
    if user is not None:
        transcript.append({"role": "assistant", "content": GREETING})
        first = user.first_message()
    else:
        first = task.request_text
    transcript.append({"role": "user", "content": first})
    delivery = session.start(event("request", text=first, role="user"))
    messages: list[dict[str, Any]] = [{"role": "system", "content": task.system_prompt or DEFAULT_SYSTEM}]
    if user is not None:
        messages.append({"role": "assistant", "content": GREETING})
    messages.append(
        {
            "role": "user",
            "content": first + (f"\n\nWhat I remember about you:\n{delivery.message}" if delivery else ""),
        }
    )
    gate = PreCommitGate(executor=env, decide=session.decide_call)
    termination = "max_steps"
    # a simulated user may end the conversation with its very first message (τ²'s orchestrator checks
    # every user message, the first included): then the agent never gets a turn
    turns = 0 if user is not None and user.is_stop(first) else agent.max_turns
    if turns == 0:
        termination = "user_stop"
    for _ in range(turns):
        msg, calls = assistant_turn(agent, session, messages, tools, out, event)
        if msg.content:
            transcript.append({"role": "assistant", "content": msg.content})
        for c in calls:
            content = tool_call(
                c,
                gate,
                session,
                messages,
                out,
                event,
                correct=lambda args: False,
                judge=(lambda name, args, ev: bench.intervention_correct(task, name, args, ev))
                if hasattr(bench, "intervention_correct")
                else None,
                result_text=lambda r: r if isinstance(r, str) else json.dumps(r, default=str),
                candidate_arg=lambda v: v if isinstance(v, str) else json.dumps(v),
            )
            transcript.append({"role": "tool", "content": content[:4000]})
        if calls:
            continue
        if user is None:
            termination = "agent_stop"
            break
        text = user.reply(transcript)
        if user.is_stop(text):
            termination = "user_stop"
            break
        transcript.append({"role": "user", "content": text})
        messages.append({"role": "user", "content": text})
        session.observe(event("message", role="user", text=text))
    stats = session.end(True)
    out.seconds = time.perf_counter() - t0
    out.memory_blocking_s = stats.blocking_s
    out.extra.update(transcript=transcript, termination=termination)
    if user is not None and hasattr(user, "state"):
        out.extra["user_state"] = user.state()
    return out


MEMORY_NOTE = "Memory note (from the user's long-term memory):\n"


def assistant_turn(agent, session, messages: list[dict[str, Any]], tools, out: EpisodeOutcome, event):
    """One completion: pending memory notes join the context first; the reply is appended and, if it
    says something, observed by the memory session. Returns (message, tool calls)."""
    notes = session.take_supplements(wait=False)
    lasting = [d.message for d in notes if not d.transient]
    once = [d.message for d in notes if d.transient]  # a reminder for this completion only
    if lasting:
        messages.append({"role": "user", "content": MEMORY_NOTE + "\n".join(lasting)})
    context = messages + ([{"role": "user", "content": MEMORY_NOTE + "\n".join(once)}] if once else [])
    r = agent._complete(context, tools)
    out.llm_calls += 1
    msg = r.choices[0].message
    calls = msg.tool_calls or []
    messages.append(
        {
            "role": "assistant",
            "content": msg.content or "",
            **({"tool_calls": [c.model_dump() for c in calls]} if calls else {}),
        }
    )
    if msg.content:
        session.observe(event("message", role="agent", text=msg.content[:500]))
    return msg, calls


def tool_call(
    c,
    gate: PreCommitGate,
    session,
    messages: list[dict[str, Any]],
    out: EpisodeOutcome,
    event,
    *,
    correct,
    result_text,
    candidate_arg=str,
    result_args=lambda r: {},
    judge=None,
) -> str:
    """One tool call of a completion through the pre-commit gate; its reply joins `messages` and is
    returned. `correct(args)`: whether an intervention on these arguments is correct (where the
    benchmark can tell); `judge(tool, args, evidence)`: the benchmark's own definition
    (`intervention_correct`), used instead when given, so interruption success means the same with a
    scripted and an LLM agent; `result_text` / `result_args`: how a result reads to the agent and to memory.
    A call held once and proposed again unchanged passes (the runtime's `max_holds_per_call`)."""
    name = c.function.name
    try:
        args = json.loads(c.function.arguments or "{}")
        if not isinstance(args, dict):
            raise ValueError("arguments are not a JSON object")
    except (json.JSONDecodeError, ValueError) as e:
        out.tool_errors += 1
        content = f"ERROR: bad arguments: {e}"
        messages.append({"role": "tool", "tool_call_id": c.id, "content": content})
        return content
    cand = event("candidate_call", tool=name, args={k: candidate_arg(v) for k, v in args.items()})
    res = gate.call(name, args, cand)
    if res.intervened:
        ev = tuple(res.decision.evidence if res.decision else ())
        out.interventions.append(
            InterventionRecord(
                cand.step,
                name,
                bool(judge(name, args, ev)) if judge is not None else correct(args),
                evidence=tuple(m.item_id for m in ev),
            )
        )
        content = (
            "NOT EXECUTED: the user's memory agent stopped this call before it ran. Evidence:\n"
            + (res.evidence_text or "(none)")
            + "\nRevise the call and try again."
        )
    elif res.executed:
        out.tool_calls += 1
        content = result_text(res.result)
        session.observe(event("tool_result", tool=name, text="ok", args=result_args(res.result)))
    else:
        out.tool_errors += 1
        content = f"ERROR: {res.error}"
        session.observe(event("tool_result", tool=name, text=f"error: {res.error}", args={"status": "error"}))
    messages.append({"role": "tool", "tool_call_id": c.id, "content": content})
    return content
