"""Pulse at run time: the streaming memory agent (Algorithm 1) and its pre-commit gate.

See `runtime.py` for the agent and `gate.py` for wrapping any tool executor.
"""

from pulse.agent.gate import GateDecision, GateResult, PreCommitGate, ToolCallError
from pulse.agent.listener import Listener, Trigger
from pulse.agent.runtime import AGENT_MODES, AgentStats, Delivery, PulseAgent, PulseAgentConfig, render_items
from pulse.agent.speculation import CallSpec
from pulse.agent.tokens import count_tokens

__all__ = [
    "AGENT_MODES",
    "AgentStats",
    "CallSpec",
    "Delivery",
    "GateDecision",
    "GateResult",
    "Listener",
    "PreCommitGate",
    "PulseAgent",
    "PulseAgentConfig",
    "ToolCallError",
    "Trigger",
    "count_tokens",
    "render_items",
]
