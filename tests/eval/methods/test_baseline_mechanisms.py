"""Each baseline's distinctive mechanism, checked on its own (each test fails without it)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from eval.methods import standins
from eval.methods.memory_llm import OfflineLLM
from eval.methods.seed import ChainSeed, SeedHistory, SeedSession, SeedTurn
from eval.methods.text_slots import text_items
from eval.suites import pibench_sim
from pulse.core.records import Event
from pulse.memory import make_embedder

TOOLS = pibench_sim.generate(0).persona("researcher").tools
LLM = lambda: OfflineLLM(0.0, 0.0, "stand-in: test")  # noqa: E731


def seed(tmp_path: Path, *texts: str, tools=TOOLS) -> ChainSeed:
    sessions = tuple(
        SeedSession(f"2024-01-{i + 1:02d}T10:00:00", "user:u1", (SeedTurn("user", t),))
        for i, t in enumerate(texts)
    )
    return ChainSeed(
        "u1", ("p1",), SeedHistory("u1", sessions), tmp_path, make_embedder("bm25"), tuple(tools)
    )


def task(request: str = "[p1] Please write section 'a', then make figure 'b'.", tid: str = "t1"):
    return SimpleNamespace(
        task_id=tid, user_id="u1", project_id="p1", time="2025-01-06T09:00:00", request_text=request
    )


def user(text: str, step: int = 1) -> Event:
    return Event("message", step, text=text, role="user")


def test_shared_text_mapping_reads_slots_dates_and_skips_withdrawn_values():
    from eval.methods.pulse_method import tools_vocab

    items = text_items(
        "2024-03-01 User prefers citation style IEEE.\nUser no longer prefers palette colorblind.\n"
        "Project p1 decided latex template acl.",
        tools_vocab(TOOLS),
        "m",
        "u1",
        "2025-01-01",
    )
    got = {(m.slot, m.value, m.kind, m.valid_from[:10]) for m in items}
    assert got == {
        ("citation_style", "IEEE", "preference", "2024-03-01"),
        ("latex_template", "acl", "project_state", "2025-01-01"),
    }


def test_mem0_update_replaces_a_fact_and_delete_removes_it(tmp_path):
    from eval.methods.mem0 import Mem0Chain, Options

    chain = Mem0Chain(seed(tmp_path, "For docs, my preferred citation style is ACM."), LLM(), Options())
    assert [r.text for r in chain.store.records.values()] == ["User prefers citation style ACM."]
    rid = next(iter(chain.store.records))
    ev = standins.parsed_event(
        "message", "user", "From now on my preferred citation style is IEEE.", chain.vocab
    )
    ops = chain.store.add(["user: ..."], [ev], "2025-01-01")
    assert [o["event"] for o in ops] == ["UPDATE"] and chain.store.records[
        rid
    ].text == "User prefers citation style IEEE."
    ev = standins.parsed_event("message", "user", "I no longer want citation style IEEE.", chain.vocab)
    ops = chain.store.add(["user: ..."], [ev], "2025-01-02")
    assert [o["event"] for o in ops] == ["DELETE"] and chain.store.records == {}


def test_a_mem_evolution_rewrites_a_neighbours_context_and_links_the_new_note(tmp_path):
    from eval.methods.a_mem import AMemChain, Options

    chain = AMemChain(seed(tmp_path, "For docs, my preferred citation style is ACM."), LLM(), Options())
    old = next(iter(chain.notes.values()))
    before = old.context
    ev = standins.parsed_event(
        "message", "user", "From now on my preferred citation style is IEEE.", chain.vocab
    )
    new = chain.add_note("user: From now on my preferred citation style is IEEE.", "2025-01-01", ev)
    assert old.context != before and "IEEE" in old.context and old.evolution_history == [before]
    assert old.id in new.links


def test_openclaw_memory_search_finds_a_note_written_in_an_earlier_task(tmp_path):
    from eval.methods.openclaw import OpenClawChain, OpenClawSession, Options

    chain = OpenClawChain(seed(tmp_path, "My home city is Denver."), LLM(), Options())
    s1 = OpenClawSession(chain, task(tid="t1"), TOOLS)
    s1.start(Event("request", 0, text="[p1] Please write section 'a'."))
    s1.observe(user("By the way, from now on my preferred citation style is Nature."))
    s1.end(True)
    assert "citation style Nature" in (tmp_path / "workspace" / "MEMORY.md").read_text()
    hits = chain.memory_search("citation style")
    assert hits and hits[0][0] == "MEMORY.md" and "Nature" in hits[0][1]
    s2 = OpenClawSession(chain, task(tid="t2"), TOOLS)
    d = s2.start(Event("request", 0, text="[p1] Please write section 'b' in my usual citation style."))
    assert any(m.slot == "citation_style" and m.value == "Nature" for m in d.items)


def test_dsh_compacts_at_the_threshold_and_keeps_the_newest_tail_verbatim(tmp_path):
    from eval.methods.dsh import DshMethod, Options
    from pulse.agent.tokens import count_tokens

    m = DshMethod("dsh", LLM(), Options(context_tokens=200, threshold_ratio=0.8, retain_ratio=0.16))
    chain = m.open_chain(seed(tmp_path))
    texts = [f"For docs, my preferred citation style is {v}." for v in ("ACM", "IEEE", "APA", "Nature")] * 3
    for i, t in enumerate(texts):
        chain.append(f"2024-02-{i + 1:02d}", standins.parsed_event("message", "user", t, chain.vocab))
        below = chain.tokens() < 0.8 * 200
        if chain.maybe_compact():
            assert not below  # only at the threshold
            break
    else:
        pytest.fail("never compacted")
    assert chain.tokens() < 0.8 * 200
    assert chain.log and chain.log[-1].text.endswith(texts[i])  # the newest entry, verbatim
    assert sum(count_tokens(e.line) for e in chain.log) <= 0.16 * 200
    assert [f.value for f in chain.summary if f.slot == "citation_style"] == [
        texts[i - len(chain.log)].split()[-1][:-1]
    ]


def test_pma_status_changes_after_a_step_and_reminder_is_null_when_nothing_applies(tmp_path):
    """More of the Proactive Memory Agent's mechanisms: tests/eval/methods/test_pma.py."""
    from eval.methods.pma import Options, PMAChain, PMASession

    chain = PMAChain(seed(tmp_path, "For docs, my preferred citation style is ACM."), LLM(), Options())
    assert list(chain.long_term.values()) == ["User prefers citation style ACM."]
    # next call log_experiment: no entry about its slots -> null; then write_section -> a reminder
    s = PMASession(chain, task("[p1] Please log experiment 'x', then write section 'y'."), TOOLS)
    assert s.start(Event("request", 0, text=s.task.request_text)) is None
    status0 = s.bank.status
    s.decide_call(Event("candidate_call", 1, tool="log_experiment", args={"name": "x"}))
    s.observe(Event("tool_result", 2, tool="log_experiment", text="ok", args={"status": "ok"}))
    (d,) = s.take_supplements()
    assert s.bank.status != status0 and "Next call expected: write_section" in s.bank.status
    assert d.message.startswith("Reminder for the next write_section call") and "ACM" in d.message
    assert not any("status" in it.text for it in d.items)  # the status is private


def test_lightmem_sleep_time_update_deletes_the_older_conflicting_entry(tmp_path):
    from eval.methods.lightmem import LightMemChain, Options

    chain = LightMemChain(
        seed(
            tmp_path,
            "For docs, my preferred citation style is ACM.",
            "From now on, for docs, my preferred citation style is IEEE.",
        ),
        LLM(),
        Options(update_threshold=0.5),
    )
    facts = [e.fact for e in chain.entries.values()]
    assert facts == ["User prefers citation style IEEE."]
    assert chain.retrieve("citation style").split(" ", 2)[2].startswith("User prefers citation style IEEE")


def test_zcode_save_step_rewrites_the_fact_file_and_keeps_one_index_line(tmp_path):
    from eval.methods.zcode import Options, ZCodeChain

    chain = ZCodeChain(
        seed(
            tmp_path,
            "For docs, my preferred citation style is ACM.",
            "From now on, for docs, my preferred citation style is IEEE.",
        ),
        LLM(),
        Options(),
    )
    index = (tmp_path / "memory" / "MEMORY.md").read_text().splitlines()
    assert index == ["- [citation style (user preference)](user_citation_style.md)"]
    assert "IEEE" in (tmp_path / "memory" / "user_citation_style.md").read_text()
    assert "IEEE" in chain.read_relevant("use my usual citation style")


def test_memory_side_llm_calls_count_as_store_tokens_and_blocking_time(tmp_path):
    from eval.methods.mem0 import Mem0Chain, Mem0Session, Options

    chain = Mem0Chain(
        seed(tmp_path, "For docs, my preferred citation style is ACM."),
        OfflineLLM(1.0, 0.0, "stand-in: test"),
        Options(),
    )
    assert chain.acct.seed.llm_calls == 2  # extraction + update for the one seed exchange
    s = Mem0Session(chain, task(), TOOLS)
    s.start(Event("request", 0, text="[p1] Please write section 'a'."))
    s.observe(user("By the way, from now on my preferred citation style is IEEE."))
    st = s.end(True)
    assert st.memory_llm_calls == 2 and st.blocking_s >= 2.0 and st.store_tokens > 0
    assert st.seed_llm_calls == 2 and st.to_dict()["memory_llm"] == "stand-in: test"


def test_method_options_typos_are_config_errors(tmp_path, eval_cfg):
    from eval.harness import run_eval
    from pulse.config.schema import ConfigError

    with pytest.raises(ConfigError, match="method.options.*top_kk"):
        run_eval(eval_cfg(tmp_path, "mem0", overrides=["+method.options.top_kk=3"]))
    with pytest.raises(ConfigError, match="variant"):
        run_eval(eval_cfg(tmp_path, "pma", overrides=["method.options.variant=sometimes"]))
