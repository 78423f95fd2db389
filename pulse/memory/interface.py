"""The memory interface the agent runtime, the evaluation methods and the data generator use.

Every memory variant (the structured Topic graph + project memory, flat memory, the mixed ablation
variants, and later the baselines) implements `Memory`. Callers never reach into a store directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pulse.core.errors import PulseUserError
from pulse.core.records import Event, MemoryItem


class MemoryStoreError(PulseUserError, RuntimeError):
    """A memory operation failed on bad input (unknown user/project, missing record, corrupt store)."""


# The subclasses let callers tell bad input apart; every message names the user/project/record/file.
class UnknownScopeError(MemoryStoreError):
    """A user or project id that this memory root has never seen."""


class MissingRecordError(MemoryStoreError):
    """A revision (or supersession link) names a record that does not exist."""


class SnapshotError(MemoryStoreError):
    """A snapshot file is malformed; the message names the file and the record."""


class StoreError(MemoryStoreError):
    """The store file is corrupted, foreign, or from a newer schema; the message names the file."""


class ConversationClosedError(MemoryStoreError):
    """A conversation writer was used after commit or abort."""


@dataclass(frozen=True)
class RetrievalQuery:
    """What the listener knows when it asks memory for evidence.

    `as_of` is the information cutoff (ISO-8601; "" = now); superseded items are never returned as
    current. `delivered` lists ids already given to the task agent in this episode (information
    gain: they are not returned again unless nothing else qualifies, or unless the candidate call
    sets their slot to another value, i.e. the agent did not take them up). The flat ablation
    ranks by similarity only and does not consult it (pulse/memory/retrieval_flat.py).
    """

    user_id: str
    project_id: str = ""
    as_of: str = ""
    subgoal: str = ""
    entities: tuple[str, ...] = ()
    candidate_call: Event | None = None
    delivered: tuple[str, ...] = ()
    k: int = 8
    # Task (conversation) id of the running episode: task-scoped items (temporary choices) are only
    # visible to the task that made them. "" = durable memory only.
    task_id: str = ""


@dataclass(frozen=True)
class ScoredItem:
    """One retrieved item with its relevance score and the reason it was selected."""

    item: MemoryItem
    score: float
    reason: str  # why it was selected, for traces


@dataclass
class WriteCandidate:
    """A fact extracted from a finished conversation, before validation and merge."""

    item: MemoryItem
    source_event: Event | None = None
    # Further Topics this fact belongs to (a cross-topic link, e.g. "code examples" in Coding and Writing).
    links: tuple[str, ...] = ()
    # A temporary choice: kept in the conversation's task scope, never promoted to durable memory.
    task_scoped: bool = False
    # The slot and value were read from the quote's words by the reading layer (pulse.reading), which
    # also decided whose words they are: the value may be a paraphrase ("a seat by the corridor" ->
    # aisle), so validation checks the quote is the user's own words, not that it spells the value.
    read: bool = False


@dataclass(frozen=True)
class ItemMeta:
    """Graph structure a `MemoryItem` has no field for; optional in `add_items` and snapshots."""

    links: tuple[str, ...] = ()  # extra Topic paths (cross-topic links)
    task_id: str = ""  # non-empty: task-scoped item, visible only to RetrievalQuery(task_id=...)


@runtime_checkable
class ConversationWriter(Protocol):
    """Collects write candidates for one conversation; `commit` applies them in one transaction,
    `abort` discards them."""

    def observe(self, event: Event) -> None:
        """Record one event of the conversation."""

    def add_candidate(self, candidate: WriteCandidate) -> None:
        """Queue one write candidate until `commit`."""

    def commit(self) -> list[MemoryItem]:
        """Apply the queued candidates in one transaction and return the items written."""

    def abort(self) -> None:
        """Discard the queued candidates; nothing is written."""


@runtime_checkable
class Memory(Protocol):
    """What every memory backend offers the agent: `retrieve` (scored items for a query at its
    cutoff), `snapshot` (a scope's current items), `add_items` (bulk load) and `conversation` (a
    writer that commits a conversation's items at its end). Errors are MemoryStoreError subclasses."""

    def retrieve(self, query: RetrievalQuery) -> list[ScoredItem]:
        """The scored items for a query, best first, as seen at its cutoff."""

    def snapshot(self, user_id: str, project_id: str = "", as_of: str = "") -> list[MemoryItem]:
        """The items of a user's (and optionally a project's) scopes at `as_of` ("" = now)."""

    def add_items(self, items: Sequence[MemoryItem]) -> None:
        """Bulk-load already validated items (e.g. a generated world's histories), one transaction."""
        ...

    def conversation(
        self, user_id: str, project_id: str = "", conversation_id: str = ""
    ) -> ConversationWriter:
        """A writer for one conversation of this user (and project), committed at its end."""


@dataclass
class DeliveryLog:
    """Ids of memory items already delivered to the task agent in one episode."""

    ids: list[str] = field(default_factory=list)

    def add(self, items: Sequence[MemoryItem]) -> None:
        """Record the ids of `items` not delivered yet, in order."""
        self.ids.extend(i.item_id for i in items if i.item_id not in self.ids)
