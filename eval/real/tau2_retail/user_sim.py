"""τ²-bench retail's LLM user simulator (MIT; see NOTICE): τ²'s user guidelines, in our words, the
task's scenario, and the tokens that end a conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

STOP, TRANSFER, OUT_OF_SCOPE = "###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"
GREETING = "Hi! How can I help you today?"  # τ²'s agent opens every conversation with this line
# τ²'s user-simulation guidelines, in our words (the task's own instructions follow them)
USER_GUIDELINES = (
    "You play a customer contacting a customer service agent. Follow the scenario instructions below. "
    "Write one message at a time, like a real customer. Never invent information the instructions do "
    "not give: treat it as unknown. Do not repeat the instructions word for word. Give information only "
    f"when the agent asks for it. When the goal of the instructions is reached, reply with {STOP} only. "
    f"If you are transferred to another agent, reply with {TRANSFER}. If the instructions do not say how "
    f"to go on, reply with {OUT_OF_SCOPE}."
)


class Tau2User:
    """τ²'s LLM user simulator: guidelines + the task's instructions; stop / transfer / out-of-scope
    tokens."""

    def __init__(self, endpoint, scenario: dict[str, Any], opening: str | None = None):
        self.endpoint = endpoint
        self.opening = opening  # None: the simulator writes the first message (τ²'s standard)
        instr = scenario.get("instructions") or {}
        text = "\n".join(
            f"{k.replace('_', ' ').capitalize()}: {instr[k]}"
            for k in ("domain", "reason_for_call", "known_info", "unknown_info", "task_instructions")
            if instr.get(k)
        )
        persona = scenario.get("persona")
        self.system = (
            USER_GUIDELINES + ("\n\nPersona: " + persona if persona else "") + "\n\nInstructions:\n" + text
        )

    def _ask(self, transcript: Sequence[dict[str, Any]]) -> str:
        # the simulator sees the conversation from the customer's side: agent turns are "user" to it
        flipped = [
            {"role": "user" if m["role"] == "assistant" else "assistant", "content": m.get("content") or ""}
            for m in transcript
            if m.get("role") in ("user", "assistant") and m.get("content")
        ]
        return self.endpoint.chat([{"role": "system", "content": self.system}, *flipped]).strip()

    def first_message(self) -> str:
        if self.opening is not None:
            return self.opening
        return self._ask([{"role": "assistant", "content": GREETING}])

    def reply(self, transcript: Sequence[dict[str, Any]]) -> str:
        return self._ask(transcript)

    def is_stop(self, text: str) -> bool:
        return any(tok in text for tok in (STOP, TRANSFER, OUT_OF_SCOPE))
