"""`open_memory(kind, root, embedder)`: every memory variant by name.

    from pulse.memory import open_memory
    mem = open_memory("structured", "runs/mem", "minilm")        # the paper's Full memory
    mem = open_memory("flat", "runs/mem", make_embedder("bm25"))  # the Flat Memory ablation
Kinds: structured, flat, flat_user ("flat+user": structured user memory, flat project memory),
flat_project ("flat+project": flat user memory, structured project memory). All four share the store
format, so one root can be opened as any kind.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulse.memory.embedders import Embedder, make_embedder
from pulse.memory.interface import MemoryStoreError
from pulse.memory.retrieval_flat import FlatRetrievalConfig, FlatRetriever
from pulse.memory.retrieval_graph import GraphRetrievalConfig, GraphRetriever
from pulse.memory.store_memory import StoreMemory
from pulse.memory.timeutil import utc_now
from pulse.memory.wal_checkpoint import DEFAULT_SYNC

# kind -> (user layer, project layer)
KINDS: dict[str, tuple[str, str]] = {
    "structured": ("graph", "graph"),
    "flat": ("flat", "flat"),
    "flat_user": ("graph", "flat"),
    "flat_project": ("flat", "graph"),
}
ALIASES: dict[str, str] = {
    "full": "structured",
    "graph": "structured",
    "flat+user": "flat_user",
    "flat+project": "flat_project",
}


def open_memory(
    kind: str,
    root: str | Path,
    embedder: Embedder | str = "minilm",
    *,
    graph_config: GraphRetrievalConfig | None = None,
    flat_config: FlatRetrievalConfig | None = None,
    clock: Callable[[], str] = utc_now,
    create: bool = True,
    auto_create_scopes: bool = False,
    sync: str = DEFAULT_SYNC,
    **embedder_kwargs: Any,
) -> StoreMemory:
    """Open (or create) a memory root as one of the memory kinds (the module docstring).

    Args:
        kind: structured, flat, flat_user or flat_project (or an alias: full, graph, flat+user,
            flat+project).
        root: the memory root folder (holds memory.sqlite).
        embedder: an `Embedder`, or a name (minilm, bm25, openai, hash) built with `embedder_kwargs`.
        graph_config: the structured layers' retrieval knobs (None: defaults).
        flat_config: the flat layers' retrieval knobs (None: defaults).
        clock: the current time as ISO-8601 (tests pass a fixed clock).
        create: create the store when the root has none (False: that is an error).
        auto_create_scopes: see `StoreMemory`; off, an unknown user or project is an
            `UnknownScopeError`; on, a conversation creates it and a read of it returns nothing.
        sync: "background" (commits fsynced off the commit path, within ~0.5 s) or "commit" (every
            commit fsyncs before it returns); pulse/memory/wal_checkpoint.py says what each survives.
        **embedder_kwargs: passed to the embedder named by `embedder`.

    Returns:
        The open `StoreMemory` (a `pulse.memory.Memory`; a context manager that closes it).

    Raises:
        MemoryStoreError: an unknown kind (with close names).
        StoreError: no store at `root` with `create=False`, a root that is a file, a store that is
            corrupted, foreign or of a newer schema, or an unknown `sync` mode.
        RegistryError: an unknown embedder name.
    """
    name = ALIASES.get(kind, kind)
    if name not in KINDS:
        close = difflib.get_close_matches(kind, [*KINDS, *ALIASES], n=2, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise MemoryStoreError(f"unknown memory kind {kind!r}{hint} (known: {', '.join(KINDS)})")
    emb = make_embedder(embedder, **embedder_kwargs) if isinstance(embedder, str) else embedder

    def retriever(layer: str) -> GraphRetriever | FlatRetriever:
        return GraphRetriever(graph_config) if layer == "graph" else FlatRetriever(flat_config)

    user_layer, project_layer = KINDS[name]
    return StoreMemory(
        root,
        emb,
        retriever(user_layer),
        retriever(project_layer),
        kind=name,
        clock=clock,
        create=create,
        auto_create_scopes=auto_create_scopes,
        sync=sync,
    )
