"""The memory factory's kinds and the embedders (MiniLM from package weights, BM25, OpenAI-compatible)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest
from memory_helpers import call, pref

from pulse.memory import KINDS, Memory, MemoryStoreError, RetrievalQuery, make_embedder, open_memory
from pulse.memory.embedders.hashing import HashEmbedder

WORLD = [
    pref("tea", "I like green tea in the morning", topic="food/drinks", slot="drink", value="green tea"),
    pref(
        "old",
        "I like coffee",
        topic="food/drinks",
        slot="drink",
        value="coffee",
        valid_from="2024-01-01T00:00:00Z",
        valid_to="2025-01-01T00:00:00Z",
    ),
    pref("ci", "Runs CI on every push", topic="coding", kind="habit", valid_from="2025-01-01T00:00:00Z"),
]
WORLD[0] = WORLD[0].__class__(**{**WORLD[0].__dict__, "supersedes": "old"})


@pytest.mark.parametrize("kind", [*KINDS, "flat+user", "flat+project", "full"])
def test_every_kind_implements_the_protocol(mem_factory, tmp_path, kind):
    m = mem_factory(kind, root=tmp_path / kind.replace("+", "_"))
    assert isinstance(m, Memory)
    m.add_items(WORLD)
    assert m.retrieve(RetrievalQuery("u1", candidate_call=call("order", drink="tea")))
    assert len(m.snapshot("u1")) == 3


def test_unknown_kind_suggests(tmp_path):
    with pytest.raises(MemoryStoreError, match="did you mean 'structured'"):
        open_memory("structured_", tmp_path, "hash")


def test_mixed_kinds_route_layers(mem_factory, tmp_path):
    m = mem_factory("flat_user", root=tmp_path / "fu")
    assert m.user_retriever.name == "graph" and m.project_retriever.name == "flat"
    m = mem_factory("flat_project", root=tmp_path / "fp")
    assert m.user_retriever.name == "flat" and m.project_retriever.name == "graph"


def test_flat_keeps_superseded_versions_graph_does_not(mem_factory, tmp_path):
    flat = mem_factory("flat", root=tmp_path / "f")
    flat.add_items(WORLD)
    graph = mem_factory("structured", root=tmp_path / "f")
    q = RetrievalQuery("u1", subgoal="I like coffee drink", k=5)
    assert "old" in {h.item.item_id for h in flat.retrieve(q)}
    assert "old" not in {h.item.item_id for h in graph.retrieve(q)}


class CountingHash(HashEmbedder):
    def __init__(self):
        super().__init__(64)
        self.calls = 0

    def embed(self, texts):
        self.calls += len(texts)
        return super().embed(texts)


def test_vectors_are_cached_in_the_store(tmp_path):
    e1 = CountingHash()
    m = open_memory("structured", tmp_path / "c", e1)
    m.add_items(WORLD)
    m.retrieve(RetrievalQuery("u1", subgoal="tea"))
    assert e1.calls == 3 + 1  # items once at write, one query
    m.close()
    e2 = CountingHash()
    m2 = open_memory("flat", tmp_path / "c", e2)
    m2.retrieve(RetrievalQuery("u1", subgoal="tea"))
    assert e2.calls == 1  # only the query; item vectors come from the cache
    m2.close()


def test_bm25_embedder(mem_factory, tmp_path):
    m = mem_factory(root=tmp_path / "b", embedder="bm25")
    m.add_items(WORLD)
    hits = m.retrieve(RetrievalQuery("u1", subgoal="green tea morning"))
    assert hits[0].item.item_id == "tea"
    assert m.store._q("SELECT COUNT(*) FROM vectors")[0][0] == 0  # lexical: nothing to cache


def test_minilm_from_package_weights(mem_factory, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    emb = make_embedder("minilm")
    v = emb.embed(["I enjoy green tea", "My favourite beverage is tea", "The build failed on CI"])
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-4)
    assert v[0] @ v[1] > v[0] @ v[2]
    m = mem_factory(root=tmp_path / "mini", embedder="minilm")
    m.add_items(WORLD)
    hits = m.retrieve(RetrievalQuery("u1", subgoal="what beverage to order"))
    assert hits[0].item.item_id == "tea"


class _FakeEmbeddings(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _FakeEmbeddings.requests.append(body)
        data = [
            {"object": "embedding", "index": i, "embedding": HashEmbedder(16).embed([t])[0].tolist()}
            for i, t in enumerate(body["input"])
        ]
        out = json.dumps(
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


def test_openai_compatible_endpoint(tmp_path):
    server = HTTPServer(("127.0.0.1", 0), _FakeEmbeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        emb = make_embedder("openai", base_url=url, api_key="test", model="tiny-embed")
        m = open_memory("structured", tmp_path / "oa", emb)
        m.add_items(WORLD)
        hits = m.retrieve(RetrievalQuery("u1", subgoal="green tea"))
        assert hits and emb.dim == 16 and emb.embedder_id == f"openai:tiny-embed@{url}"
        assert {r["model"] for r in _FakeEmbeddings.requests} == {"tiny-embed"}
        m.close()
    finally:
        server.shutdown()


def test_flat_returns_only_records_similar_to_the_query(mem_factory, tmp_path):
    """Flat top-k never pads its answer with records that share nothing with the query."""
    m = mem_factory("flat", root=tmp_path / "f0", embedder="bm25")
    m.add_items(WORLD)
    hits = m.retrieve(RetrievalQuery("u1", subgoal="green tea", k=8))
    assert {h.item.item_id for h in hits} == {"tea"} and all(h.score > 0 for h in hits)
    assert m.retrieve(RetrievalQuery("u1", subgoal="zzz qqq", k=8)) == []


def test_flat_similarity_floor_is_configurable(tmp_path):
    from pulse.memory import FlatRetrievalConfig

    m = open_memory(
        "flat", tmp_path / "f1", make_embedder("bm25"), flat_config=FlatRetrievalConfig(min_similarity=0.99)
    )
    m.add_items(WORLD)
    # "I like" matches coffee and tea partly; only the best match clears a 0.99 floor
    hits = m.retrieve(RetrievalQuery("u1", subgoal="like green tea", k=8))
    assert [h.item.item_id for h in hits] == ["tea"]
    m.close()


def test_bm25_splits_snake_case_identifiers():
    from pulse.memory.embedders.bm25 import tokenize

    assert tokenize("seed_policy five_seeds") == [
        "seed_policy",
        "seed",
        "policy",
        "five_seeds",
        "five",
        "seeds",
    ]
    assert "policy" in tokenize("prefers seed policy")
