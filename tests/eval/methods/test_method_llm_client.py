"""The memory-side LLM client against an OpenAI-compatible endpoint (a stub HTTP server here), and the
mem0ai cross-check wiring (a stand-in `mem0` module: the real package is an optional extra)."""

from __future__ import annotations

import json
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from eval.config import LLMConfig
from eval.methods.memory_llm import build_llm


class _Stub(BaseHTTPRequestHandler):
    replies: list[str] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        system = body["messages"][0]["content"]
        if "extract" in system:
            content = '{"facts": ["User prefers citation style IEEE."]}'
        elif "manage a memory" in system:
            content = (
                'Sure! {"memory": [{"id": "", "text": "User prefers citation style IEEE.", "event": "ADD"}]}'
            )
        else:
            content = "not json"
        _Stub.replies.append(system[:20])
        out = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


@pytest.fixture
def endpoint():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()


def test_openai_client_parses_json_counts_tokens_and_counts_parse_failures(endpoint):
    llm = build_llm(LLMConfig(name="openai", model="stub", base_url=endpoint, retries=0))
    out, call = llm.json_call(
        "mem0.extract", "You extract facts.", "user: hi", lambda: {"facts": ["never used"]}
    )
    assert out == {"facts": ["User prefers citation style IEEE."]} and call.ok and call.prompt_tokens > 0
    out, call = llm.json_call("x", "Something else.", "hi", lambda: {"a": 1})
    assert out == {} and not call.ok and llm.parse_failures == 1  # never the stand-in's answer
    assert llm.label == f"llm: stub @ {endpoint}"


def test_mem0_runs_on_an_endpoint_and_mirrors_the_mem0ai_package(endpoint, tmp_path, monkeypatch):
    calls = {"add": 0, "search": 0}

    class FakeMemory:
        @classmethod
        def from_config(cls, config):
            assert config["llm"]["config"]["openai_base_url"] == endpoint
            return cls()

        def add(self, msgs, user_id):
            calls["add"] += 1

        def search(self, query, user_id, limit):
            calls["search"] += 1
            return {"results": [{"memory": "User prefers citation style IEEE."}]}

    monkeypatch.setitem(sys.modules, "mem0", types.SimpleNamespace(Memory=FakeMemory))
    from eval.methods.mem0 import Mem0Chain, Mem0Session, Options
    from pulse.core.records import Event

    seed, task, tools = _seed_and_task(tmp_path)
    llm = build_llm(
        LLMConfig(name="openai", model="stub", base_url=endpoint, retries=0, mem0ai_crosscheck=True)
    )
    chain = Mem0Chain(seed, llm, Options())
    assert [r.text for r in chain.store.records.values()] == [
        "User prefers citation style IEEE."
    ]  # the LLM's ADD
    s = Mem0Session(chain, task, tools)
    d = s.start(Event("request", 0, text="[p1] Please write section 'a' in my usual citation style."))
    assert [(m.slot, m.value) for m in d.items] == [("citation_style", "IEEE")]
    st = s.end(True).to_dict()
    assert calls["add"] >= 1 and st["mem0ai_searches"] == 1 and st["mem0ai_agree"] == st["mem0ai_ours"] == 1
    assert st["memory_llm"].startswith("llm: stub") and st["memory_llm_calls"] == 2


def _seed_and_task(tmp_path):
    from types import SimpleNamespace

    from eval.methods.seed import ChainSeed, SeedHistory, SeedSession, SeedTurn
    from eval.suites import pibench_sim
    from pulse.memory import make_embedder

    tools = pibench_sim.generate(0).persona("researcher").tools
    s = ChainSeed(
        "u1",
        ("p1",),
        SeedHistory(
            "u1",
            (
                SeedSession(
                    "2024-01-01T10:00:00",
                    "user:u1",
                    (SeedTurn("user", "For docs, my preferred citation style is IEEE."),),
                ),
            ),
        ),
        tmp_path,
        make_embedder("bm25"),
        tuple(tools),
    )
    t = SimpleNamespace(
        task_id="t1",
        user_id="u1",
        project_id="p1",
        time="2025-01-06T09:00:00",
        request_text="[p1] Please write section 'a'.",
    )
    return s, t, tools
