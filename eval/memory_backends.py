"""Open the memory store of one evaluation chain: always the real store, `pulse.memory.open_memory`.

Method configs name the organisation with pulse.memory's kinds (and the paper's rows):
  structured    Full (graph user memory + graph project memory)
  flat          Flat Memory (flat user + flat project)
  flat_user     Flat + User: flat memory plus the structured *user* part (graph user, flat project)
  flat_project  Flat + Project: flat memory plus the structured *project* part (flat user, graph project)
Every kind reads the same records; only the retriever of each layer differs (pulse/memory/store_memory.py).
The embedder is the run's `embedder` config (default BM25: lexical, no model), built once per run
and identical for every method and chain.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pulse.core.records import MemoryItem
from pulse.memory import KINDS, Embedder, MemoryStoreError, StoreMemory, make_embedder
from pulse.memory import open_memory as _open_memory

# Embedder of a store opened without a run config (tests, benches): a name for pulse.memory.make_embedder.
EMBEDDER = "bm25"


def build_embedder(cfg) -> Embedder:
    """The run's embedder from its `EmbedderConfig` (built once: a dense model loads once per run)."""
    kwargs = {
        k: v for k, v in (("model", cfg.model), ("base_url", cfg.base_url), ("api_key", cfg.api_key)) if v
    }
    if cfg.name != "openai" and kwargs:
        raise MemoryStoreError(
            f"embedder.model/base_url/api_key apply to embedder.name=openai only, not {cfg.name!r}"
        )
    return make_embedder(cfg.name, **kwargs)


def describe(kind: str, embedder: str = EMBEDDER) -> str:
    """What the run manifest records about the memory that ran."""
    if kind not in KINDS:  # a memory baseline: its own store, built from the seed history
        return (
            f"baseline memory {kind!r} (eval/methods; built from the seed history), embedder={embedder!r}, "
            f"memory-side LLM: the run's llm config"
        )
    return f"pulse.memory.open_memory(kind={kind!r}, embedder={embedder!r})"


def open_memory(kind: str, root: str | Path, embedder: Embedder | str = EMBEDDER) -> StoreMemory:
    if kind not in KINDS:
        raise MemoryStoreError(f"method.memory: {kind!r} is not a memory kind (known: {', '.join(KINDS)})")
    Path(root).mkdir(parents=True, exist_ok=True)
    return _open_memory(kind, root, embedder)


def open_chain_memory(
    kind: str,
    root: str | Path,
    user_id: str,
    project_ids: Sequence[str],
    items: Sequence[MemoryItem],
    embedder: Embedder | str = EMBEDDER,
) -> StoreMemory:
    """A fresh store for one persona chain: its user and projects created, its seed memory loaded."""
    mem = open_memory(kind, root, embedder)
    mem.create_user(user_id)
    for pid in sorted(set(project_ids) - {""}):
        mem.create_project(pid)
    mem.add_items(items)
    return mem
