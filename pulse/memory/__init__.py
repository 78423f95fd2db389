"""Pulse long-term memory (DESIGN §1 "Memory"; issue 3).

    from pulse.memory import open_memory, RetrievalQuery
    mem = open_memory("structured", "runs/mem", "minilm")   # kinds: structured, flat, flat_user, flat_project
    hits = mem.retrieve(RetrievalQuery(user_id="u1", project_id="p1", subgoal="pick icon size"))
    with mem.conversation("u1", "p1", "task-7") as conv:     # commit on exit, abort on exception
        conv.observe(event)
CLI: `python -m pulse.cli.memory show --root DIR --user U [--project P] [--as-of T]` (also `export`,
`import`). Tests: `.venv/bin/python -m pytest tests/memory -q`.
Nothing here imports torch until the `minilm` embedder is used.
"""

from pulse.memory.embedders import EMBEDDERS, Embedder, make_embedder
from pulse.memory.factory import KINDS, open_memory
from pulse.memory.interface import (
    ConversationClosedError,
    ConversationWriter,
    DeliveryLog,
    ItemMeta,
    Memory,
    MemoryStoreError,
    MissingRecordError,
    RetrievalQuery,
    ScoredItem,
    SnapshotError,
    StoreError,
    UnknownScopeError,
    WriteCandidate,
)
from pulse.memory.project import STATE_KINDS, Workflow, WorkflowStep, state_slot
from pulse.memory.retrieval_flat import FlatRetrievalConfig
from pulse.memory.retrieval_graph import GraphRetrievalConfig
from pulse.memory.snapshot import Snapshot, export_snapshot, import_snapshot, load_snapshot
from pulse.memory.store_memory import StoreMemory

__all__ = [
    "EMBEDDERS",
    "KINDS",
    "STATE_KINDS",
    "ConversationClosedError",
    "ConversationWriter",
    "DeliveryLog",
    "Embedder",
    "FlatRetrievalConfig",
    "GraphRetrievalConfig",
    "ItemMeta",
    "Memory",
    "MemoryStoreError",
    "MissingRecordError",
    "RetrievalQuery",
    "ScoredItem",
    "Snapshot",
    "SnapshotError",
    "StoreError",
    "StoreMemory",
    "UnknownScopeError",
    "Workflow",
    "WorkflowStep",
    "WriteCandidate",
    "export_snapshot",
    "import_snapshot",
    "load_snapshot",
    "make_embedder",
    "open_memory",
    "state_slot",
]
