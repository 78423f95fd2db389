"""What a `PulseAgent` reports about one task: its deliveries, its decisions and its counters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pulse.agent.tokens import count_tokens
from pulse.core.records import MemoryItem


@dataclass(frozen=True)
class Delivery:
    """Memory supplied to the task agent: at the request, as a supplement, or with an intervention."""

    items: tuple[MemoryItem, ...]
    message: str
    step: int
    source: Literal["initial", "supplement", "intervene"]
    # context of the task agent's next call only (a reminder injected into one call), not kept for
    # later decisions; False: the delivery joins the conversation like any message
    transient: bool = False

    @property
    def tokens(self) -> int:
        """The number of tokens of the delivered message (`count_tokens`)."""
        return count_tokens(self.message)


@dataclass(frozen=True)
class DecisionRecord:
    """One decision point of a task: the event, why it triggered, the action taken and its evidence."""

    step: int
    event_kind: str
    trigger: str
    action: str
    evidence: tuple[str, ...]
    parse_ok: bool
    policy_called: bool
    wall_s: float
    converted: str = ""  # what an intervene became (pulse.agent.conversions), "" = as decided
    speculative: bool = False  # a gate decision decided ahead for exactly this input (speculation)


@dataclass
class AgentStats:
    """A task's counters (`to_dict`: the ones every episode row carries), decisions and deliveries."""

    retrieve_tokens: int = 0
    store_tokens: int = 0
    retrievals: int = 0
    policy_calls: int = 0
    parse_failures: int = 0
    illegal_interventions: int = 0
    supplements: int = 0
    interventions: int = 0
    memory_wall_s: float = 0.0  # total time the memory agent spent working
    blocking_s: float = 0.0  # time the task agent waited for it (gates, serial mode)
    committed_items: int = 0
    precheck_skips: int = 0  # decision points the pre-check settled as silent without a policy call
    # speculation (concurrent streaming): gate inputs decided ahead (not in policy_calls), of which
    # used at the gate (the input was exactly equal) and discarded; calls = hits + misses at end
    speculative_calls: int = 0
    speculative_hits: int = 0
    speculative_misses: int = 0
    decisions: list[DecisionRecord] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The counters as a dict, times rounded to microseconds."""
        return {
            "retrieve_tokens": self.retrieve_tokens,
            "store_tokens": self.store_tokens,
            "retrievals": self.retrievals,
            "policy_calls": self.policy_calls,
            "parse_failures": self.parse_failures,
            "illegal_interventions": self.illegal_interventions,
            "supplements": self.supplements,
            "interventions": self.interventions,
            "memory_wall_s": round(self.memory_wall_s, 6),
            "blocking_s": round(self.blocking_s, 6),
            "committed_items": self.committed_items,
            "precheck_skips": self.precheck_skips,
            "speculative_calls": self.speculative_calls,
            "speculative_hits": self.speculative_hits,
            "speculative_misses": self.speculative_misses,
        }
