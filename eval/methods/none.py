"""`none`: the task agent runs without any memory (no delivery, no gate, no writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulse.agent.runtime import AgentStats


class NoMemorySession:
    """No delivery, no gate, no writes (the base of sessions that hold no memory of their own)."""

    def __init__(self):
        self.stats = AgentStats()

    def start(self, request):
        return None

    def observe(self, event):
        pass

    def decide_call(self, event):
        return None

    def take_supplements(self, wait=False):
        return []

    def end(self, completed=True):
        return self.stats


@dataclass
class NoMemory:
    """`method=none`: no memory; every session is a `NoMemorySession`."""

    name: str = "none"
    uses_memory: bool = False
    memory_kind: str = ""

    def open_chain(self, seed):
        return None

    def open_session(self, task, memory: Any, concurrent: bool, tools=()):
        return NoMemorySession()


def build(cfg, ctx) -> NoMemory:
    return NoMemory(name=cfg.name)
