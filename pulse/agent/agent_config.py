"""`PulseAgentConfig`: every knob of one `PulseAgent` (pulse/agent/runtime.py), checked when built."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pulse.agent.call_kinds import CallKinds
from pulse.agent.schema import SchemaTool
from pulse.agent.speculation import CallSpec
from pulse.core.statements import SlotTerms

AgentMode = Literal["streaming", "start_only", "serial"]
AGENT_MODES: tuple[str, ...] = ("streaming", "start_only", "serial")


@dataclass(frozen=True)
class PulseAgentConfig:
    """How one task's memory agent runs: whose memory, which mode, what it may deliver and how it
    reads the tools. Raises ValueError on a mode not in AGENT_MODES, an empty user_id, a threshold
    outside [0, 1] or a negative max_holds_per_call."""

    user_id: str
    project_id: str = ""
    # streaming | start_only | serial (see the PulseAgent docstring)
    mode: AgentMode = "streaming"
    # False: every intervene becomes a supplement (the "streaming supplement-only" ablation)
    allow_intervene: bool = True
    # deliver applicable memory with the initial request (Algorithm 1, line 1)
    initial_personalization: bool = True
    # memory items retrieved per triggering event
    retrieve_k: int = 6
    # memory items delivered with the initial request
    initial_k: int = 6
    # run non-gate events on a worker thread (True) or inline (False, deterministic)
    concurrent: bool = True
    # commit write candidates at task end
    writeback: bool = True
    # information cutoff for retrieval (ISO-8601, "" = now)
    as_of: str = ""
    # events kept in the policy prompt: the request plus this many most recent events
    max_prefix_events: int = 12
    # a triggering event whose retrieval returns nothing is silent without a policy call
    skip_policy_without_evidence: bool = True
    # no policy call where memory cannot change what happens next (pulse/agent/precheck.py: an exact
    # superset of where the gold rule acts); off for the situation-blind reference policies
    precheck: bool = True
    # what the task agent's tools publish about their arguments (values, names): the listener
    # parses request and message text with it (pulse.core.statements); empty = no slot parsing
    slot_vocab: Mapping[str, SlotTerms] = field(default_factory=dict)
    # id of this task's conversation in the memory store ("" = a fresh random id)
    conversation_id: str = ""
    # the tools' JSON schemas (pulse.agent.schema.SchemaTool): argument mapping, types, call kinds
    tool_schemas: Sequence[SchemaTool] = ()
    # which calls are gated (pulse.agent.call_kinds); None = from tool_schemas, else every call
    call_kinds: CallKinds | None = None
    # similarity (0-1) at which a memory slot maps to a differently named argument
    arg_map_threshold: float = 0.5
    # user facts carry the context they were stated in; several contexts for a slot: weigh the best match
    scope_facts: bool = True
    # least word cosine (0-1) between a fact's context and the request for the fact to apply
    scope_threshold: float = 0.2
    # interventions on one held call and its revisions (PulseAgent docstring); 0 = no limit
    max_holds_per_call: int = 1
    # what the tools publish about their calls (name, parameters, artifact parameter) for plan-time
    # speculation (pulse.agent.speculation); empty = from tool_schemas
    call_specs: Sequence[CallSpec] = ()
    # concurrent streaming only: decide ahead the gate input of the call an agent message announces,
    # used at the gate only when the real input is exactly equal (PulseAgent docstring, "Speculation")
    speculate: bool = True
    # the reading layer bound to the tools' schema (`pulse.reading.BoundReader`): the listener reads
    # the user's words with it (values for this task, `UNREAD`), and at task end the user's
    # statements are filed by what it reads (pulse.memory.extraction); None = cue rules only
    reading: Any = None
    # tool -> the words that describe it (its description, its service): what a tool-scoped fact's
    # condition ("For slides, ...") is matched against when that tool is proposed; empty = from
    # tool_schemas' descriptions
    tool_words: Mapping[str, str] = field(default_factory=dict)
    # at a call, a conditional fact's condition words that name the called tool itself ("meetings"
    # in "for meetings with clients" at schedule_meeting) do not count toward its condition applying,
    # unless they are all it says (the gateway; off in the benchmarks' runs)
    condition_skips_tool_words: bool = False

    def __post_init__(self) -> None:
        if self.mode not in AGENT_MODES:
            raise ValueError(f"PulseAgentConfig.mode: {self.mode!r} not in {AGENT_MODES}")
        if not self.user_id:
            raise ValueError("PulseAgentConfig.user_id must be non-empty")
        for name in ("arg_map_threshold", "scope_threshold"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"PulseAgentConfig.{name}: {getattr(self, name)} not in [0, 1]")
        if self.max_holds_per_call < 0:
            raise ValueError(f"PulseAgentConfig.max_holds_per_call: {self.max_holds_per_call} < 0")
