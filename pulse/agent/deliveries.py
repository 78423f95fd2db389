"""A task's deliveries: what was delivered (item ids, in order) and the supplements not yet taken."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from pulse.agent.rendering import render_items
from pulse.agent.stats import AgentStats, Delivery
from pulse.core.records import Decision, MemoryItem


class DeliveryLog:
    """Records each delivery in `stats` (deliveries, retrieve_tokens) and `delivered` (item ids, each
    once, in order: retrieval reads it); a supplement also waits in `pending` until `take`n.
    Written by the worker and read by the task agent's thread, under `lock`."""

    def __init__(self, stats: AgentStats, lock: threading.Lock):
        self.stats, self.lock = stats, lock
        self.delivered: list[str] = []
        self.pending: list[Delivery] = []

    def deliver(self, items: Sequence[MemoryItem], step: int, source) -> Delivery:
        """Deliver `items` at `step` as `source` ("initial", "supplement", "intervene")."""
        d = Delivery(tuple(items), render_items(items), step, source)
        with self.lock:
            for m in items:
                if m.item_id not in self.delivered:
                    self.delivered.append(m.item_id)
            self.stats.retrieve_tokens += d.tokens
            self.stats.deliveries.append(d)
            if source == "supplement":
                self.pending.append(d)
        return d

    def take(self) -> list[Delivery]:
        """The supplements waiting for the task agent's next decision, emptying the queue."""
        with self.lock:
            out, self.pending = self.pending, []
        return out

    def act(self, decision: Decision, evidence: list[MemoryItem], step: int) -> Decision:
        """Deliver what `decision` says at `step`; returns the action taken (a supplement without
        resolvable evidence delivers nothing: silent)."""
        if decision.action == "supplement" and evidence:
            self.stats.supplements += 1
            self.deliver(evidence, step, "supplement")
        elif decision.action == "supplement":
            decision = Decision("silent")
        elif decision.action == "intervene":
            self.stats.interventions += 1
            if evidence:
                self.deliver(evidence, step, "intervene")
        return decision
