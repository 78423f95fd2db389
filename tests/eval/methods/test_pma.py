"""The Proactive Memory Agent (eval/methods/pma.py, eval/methods/pma_rules.py): each mechanism its paper
describes, checked through the session interface the task agent uses (eval/methods/base.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from eval.methods.memory_llm import MemoryLLM, OfflineLLM
from eval.methods.pma import Options, PMAMethod
from eval.methods.seed import ChainSeed, SeedHistory, SeedSession, SeedTurn
from eval.suites import pibench_sim
from pulse.core.records import Event
from pulse.memory import make_embedder

TOOLS = pibench_sim.generate(0).persona("researcher").tools  # write_section, make_figure, log_experiment, ...
REQUEST = (
    "[p1] Please log experiment 'x', then write section 'y', then write section 'z'. "
    "Constraints: use tracker tensorboard."
)


def seed(tmp_path: Path, *texts: str, tools=TOOLS) -> ChainSeed:
    sessions = tuple(
        SeedSession(f"2024-01-{i + 1:02d}T10:00:00", "user:u1", (SeedTurn("user", t),))
        for i, t in enumerate(texts)
    )
    return ChainSeed(
        "u1", ("p1",), SeedHistory("u1", sessions), tmp_path, make_embedder("bm25"), tuple(tools)
    )


def task(request: str = REQUEST, tid: str = "t1"):
    return SimpleNamespace(
        task_id=tid, user_id="u1", project_id="p1", time="2025-01-06T09:00:00", request_text=request
    )


class Stream:
    """Drives a session as a task agent does: plan message, candidate call (decide_call), result."""

    def __init__(self, session):
        self.s, self.n = session, 0

    def ev(self, kind, **kw) -> Event:
        self.n += 1
        return Event(kind, self.n, time="2025-01-06T09:00:00", **kw)

    def start(self):
        return self.s.start(self.ev("request", text=self.s.task.request_text, role="user"))

    def step(self, tool, args, error: str = "", subgoal: str = ""):
        self.s.take_supplements(wait=True)  # the decision that emits the plan and the call
        plan = (
            "Next I will "
            + (subgoal or tool.replace("_", " "))
            + " with "
            + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in args.items() if k != "name")
            + "."
        )
        self.s.observe(self.ev("message", role="agent", text=plan, args={"subgoal": subgoal or tool}))
        assert self.s.decide_call(self.ev("candidate_call", tool=tool, args=dict(args))) is None  # no gate
        if error:
            self.s.observe(
                self.ev("tool_result", tool=tool, text=f"error: {error}", args={"status": "error"})
            )
        else:
            self.s.observe(self.ev("tool_result", tool=tool, text="ok", args={"status": "ok"}))

    def user(self, text):
        self.s.observe(self.ev("message", role="user", text=text))

    def reminder(self) -> str:
        got = self.s.take_supplements(wait=True)
        return " ".join(d.message for d in got)


def session(
    tmp_path, *seed_texts, variant="selective", request=REQUEST, tools=TOOLS, llm=None, chain=None, tid="t1"
):
    m = PMAMethod("pma", llm or OfflineLLM(0.0, 0.0, "stand-in: test"), Options(variant=variant))
    chain = chain or m.open_chain(seed(tmp_path, *seed_texts, tools=tools))
    return chain, m.open_session(task(request, tid), chain, False, tools)


def test_requirements_of_the_request_and_of_later_user_messages_are_tracked(tmp_path):
    chain, s = session(tmp_path)
    st = Stream(s)
    st.start()
    reqs = [t for t in s.bank.knowledge.values() if t.startswith("Requirement")]
    assert "Requirement: use tracker tensorboard." in reqs
    assert any("write section 'y'" in t for t in reqs) and len(reqs) == 4
    assert "open:" in s.bank.status and "Next call expected: log_experiment" in s.bank.status
    st.step("log_experiment", {"name": "x", "tracker": "tensorboard", "seed_policy": "fixed"})
    st.user("By the way, from now on my preferred citation style is IEEE.")
    st.reminder()
    assert any(t.startswith("Requirement (user") and "IEEE" in t for t in s.bank.knowledge.values())
    assert "User prefers citation style IEEE." in s.bank.knowledge.values()  # and the durable fact
    assert "Next call expected: write_section" in s.bank.status and "done: e" in s.bank.status


def test_failed_redone_and_corrected_steps_become_procedural_entries(tmp_path):
    _, s = session(tmp_path)
    st = Stream(s)
    st.start()
    st.step(
        "log_experiment",
        {"name": "x", "tracker": "tensorboard", "seed_policy": "fixed"},
        error="tracker offline",
    )
    st.step("log_experiment", {"name": "x", "tracker": "tensorboard", "seed_policy": "three_seeds"})
    st.step("write_section", {"name": "y", "citation_style": "APA", "latex_template": "article"})
    st.user("No, use citation style IEEE for that section.")
    st.reminder()
    proc = list(s.bank.procedural.values())
    assert any(p.startswith("Do not repeat log_experiment(") and "tracker offline" in p for p in proc)
    assert any(
        p.startswith("log_experiment was redone after its earlier call failed") and "three_seeds" in p
        for p in proc
    )
    assert any(p.startswith("The user corrected the write_section call") and "IEEE" in p for p in proc)


def test_a_reminder_names_the_pending_calls_argument_and_what_failed(tmp_path):
    _, s = session(tmp_path, "For docs, my preferred citation style is ACM.")
    st = Stream(s)
    st.start()
    st.step("log_experiment", {"name": "x", "tracker": "tensorboard", "seed_policy": "fixed"})
    r = st.reminder()  # next: write_section (the open requirement after the one done)
    assert r.startswith("Reminder for the next write_section call") and "citation style ACM" in r
    st.step(
        "write_section",
        {"name": "y", "citation_style": "APA", "latex_template": "article"},
        error="bad template",
    )
    r = st.reminder()  # next: the redo of the failed call
    assert "write_section" in r and "citation style ACM" in r and "Do not repeat write_section(" in r
    items = [d for d in s.stats.deliveries if d.message == r][0].items
    assert {(m.slot, m.value) for m in items} == {
        ("citation_style", "ACM")
    }  # the failed values are not read as advice


def test_silence_when_nothing_in_the_bank_bears_on_the_pending_call(tmp_path):
    _, s = session(
        tmp_path,
        "For docs, my preferred citation style is ACM.",
        request="[p1] Please log experiment 'x', then make figure 'f'.",
    )
    st = Stream(s)
    assert st.start() is None  # log_experiment: nothing about tracker / seed policy
    st.step("log_experiment", {"name": "x", "tracker": "wandb", "seed_policy": "fixed"})
    assert st.reminder() == ""  # make_figure: nothing about figure format / palette either
    assert (
        s.stats.supplements == 0 and s.stats.memory_llm_calls == 4
    )  # still invoked: manage + select each time


def test_tool_calls_and_results_are_in_the_window_and_the_prompted_path_sends_both_phases(tmp_path):
    class Recorder(MemoryLLM):
        label, offline = "llm: recorder", False

        def __init__(self):
            super().__init__()
            self.sent = []

        def _complete(self, purpose, system, user, standin):
            self.sent.append((purpose, system, user))
            if purpose == "pma.manage":
                out = {
                    "calls": [
                        {"tool": "memory_save_knowledge", "args": {"text": "Requirement: from the model."}},
                        {"tool": "memory_update_status", "args": {"text": "private note"}},
                    ]
                }
            else:
                out = {
                    "reminder": "Remember citation style ACM." if "tool (log_experiment)" in user else None
                }
            return out, json.dumps(out), 0.0, True

    llm = Recorder()
    _, s = session(tmp_path, llm=llm)
    st = Stream(s)
    assert st.start() is None
    st.step("log_experiment", {"name": "x", "tracker": "wandb", "seed_policy": "fixed"})
    assert st.reminder() == "Remember citation style ACM."
    purposes = [p for p, _, _ in llm.sent]
    assert purposes[-2:] == ["pma.manage", "pma.select"]
    _, msys, muser = llm.sent[-2]
    assert "memory_save_procedural" in msys and "Requirement:" in msys
    assert "assistant: call log_experiment(name=x, tracker=wandb, seed_policy=fixed)" in muser
    assert "tool (log_experiment): ok" in muser
    _, ssys, suser = llm.sent[-1]
    assert "null" in ssys and "status: private note" in suser and "Requirement: from the model." in suser
    assert not any("private note" in d.message for d in s.stats.deliveries)


def test_the_bank_is_one_tasks_only_durable_facts_carry_to_the_next_task(tmp_path):
    chain, s = session(tmp_path, "For docs, my preferred citation style is ACM.")
    st = Stream(s)
    st.start()
    st.step("log_experiment", {"name": "x", "tracker": "wandb", "seed_policy": "fixed"}, error="down")
    st.user("By the way, from now on my preferred citation style is IEEE.")
    s.end(True)
    assert s.bank.procedural and any(t.startswith("Requirement") for t in s.bank.knowledge.values())
    assert list(chain.long_term.values()) == ["User prefers citation style IEEE."]
    _, s2 = session(tmp_path, chain=chain, tid="t2", request="[p1] Please write section 'w'.")
    Stream(s2).start()
    assert not s2.bank.procedural and not s2.bank.status.startswith("Last call")
    assert "User prefers citation style IEEE." in s2.bank.knowledge.values()
    assert not any("tensorboard" in t or "'x'" in t for t in s2.bank.knowledge.values())


def test_works_on_a_real_benchmark_stream_without_tool_schemas(tmp_path):
    """τ²-style: no published schemas (tools=()), free-text request: the next call is the redo of the
    failed one, seen only in the event stream, and the reminder says what failed."""
    _, s = session(
        tmp_path, tools=(), request="Hi, I want to exchange the keyboard in order #W123 for a clicky one."
    )
    st = Stream(s)
    assert st.start() is None
    st.step("get_order_details", {"order_id": "W123"}, error="order not found: use the '#' prefix")
    r = st.reminder()
    assert r.startswith("Reminder for the next get_order_details call") and "order not found" in r
    st.step("get_order_details", {"order_id": "#W123"})
    st.reminder()
    assert any(
        p.startswith("get_order_details was redone") and "#W123" in p for p in s.bank.procedural.values()
    )


@pytest.mark.parametrize(
    "variant", ["selective", "full_bank", "always_inject", "injection_only", "mem0_top10"]
)
def test_every_ablation_runs_a_task_and_differs_as_documented(tmp_path, variant):
    _, s = session(
        tmp_path,
        "For docs, my preferred citation style is ACM.",
        variant=variant,
        request="[p1] Please make figure 'f', then write section 'y'.",
    )
    st = Stream(s)
    first = st.start()
    st.step("make_figure", {"name": "f", "figure_format": "png", "palette": "default"})
    r = st.reminder()
    stats = s.end(True)
    if variant == "full_bank":  # the whole bank every time, the status never
        assert first is not None and "citation style ACM" in first.message and "status" not in first.message
        assert "Requirement: make figure 'f'." in r
    elif variant == "always_inject":  # never silent
        assert first is not None and "citation style ACM" in r
    elif variant == "injection_only":  # no bank: nothing from the seed history
        assert first is None and r == "" and not s.bank.knowledge
    else:  # selective, mem0_top10: silent first (make_figure), then the pending write_section's argument
        assert first is None and "citation style ACM" in r
    assert stats.memory_llm_calls > 0
