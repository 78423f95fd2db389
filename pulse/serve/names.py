"""The names a gateway client sees: Pulse's own tools, prompt and resources, the `_meta` keys and
header it reads or writes, and an upstream's names behind its prefix (pulse/serve/gateway.py says
what each does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulse.serve.config import up_prefix

if TYPE_CHECKING:
    from pulse.serve.upstream import Upstream

# Pulse's own tools (pulse/serve/memory_tools.py)
REMEMBER = "pulse_remember"
FORGET = "pulse_forget"
MEMORIES = "pulse_memories"
OWN_TOOLS = (REMEMBER, FORGET, MEMORIES)
# Pulse's own prompt and resources (pulse/serve/listings.py)
PROMPT = "pulse_preferences"
RESOURCE = "pulse://preferences"
MEMORIES_RESOURCE = "pulse://memories"
# a held call confirmed by the user (pulse/serve/tool_calls.py)
CONFIRM_ARG = "_pulse_confirm"
HOLD_META = "pulse/hold"
EVIDENCE_META = "pulse/evidence"
# the client's own session name (pulse/serve/session_pool.py)
SESSION_META = "pulse/session"
SESSION_HEADER = "pulse-session"
# why the gateway declined an upstream's request of the client (pulse/serve/client_requests.py)
DECLINED_META = "pulse/declined"


def exposed(up: Upstream, name: str) -> str:
    """The name a client sees for the upstream's tool, prompt or resource `name` (its prefix)."""
    return up_prefix(up.name, up.cfg) + name
