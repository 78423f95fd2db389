"""Reading one probe reply: the call it makes (if any) and what that means for the probe.

A reply's call is the endpoint's `tool_calls[0]` or, for an endpoint without tool parsing, the first
JSON object in its text that names a tool of the probe. Outcomes:

single-decision probes (every condition but hold_*), about the target slot of the target step:
  note      the call's value is the note's (adopted / misled / the note won over the stated value)
  stated    the value the user stated
  default   the slot's default
  other     another allowed value, or a value the tool does not take
  missing   the call omits the slot
  off_target  a call to another tool (not informative about the slot). The artifact name is not
            compared: independent_sim's requests do not give artifact ids, so the model makes one up
  no_call   a text reply

hold probes, the model's turn after its call was held:
  repeat    the same tool again, every argument but the artifact name unchanged
  replan    the same tool with changed arguments (`slot_outcome` as above: `note` = evidence value)
  ask_user  a text reply that asks the user something (a question mark, or "could you / please
            confirm / which ... do you want")
  abandon   text that gives up or moves on, or a call to another tool
"""

from __future__ import annotations

import json
import re
from typing import Any

_ASK = re.compile(
    r"\?|\b(could you|can you|would you|please (confirm|clarify|let me know|specify|provide)|"
    r"do you want|would you like|which .* (do|would) you|let me know)\b",
    re.IGNORECASE,
)


def norm(v: Any) -> str:
    return re.sub(r"[\s_\-]+", " ", str(v)).strip().lower()


def parse_call(message: dict[str, Any], tool_names: set[str]) -> dict[str, Any] | None:
    """{"tool", "args"} of the reply's first call, or None (a text reply)."""
    for c in message.get("tool_calls") or []:
        f = c.get("function") or {}
        try:
            args = json.loads(f.get("arguments") or "{}")
        except json.JSONDecodeError:
            args = {}
        return {"tool": f.get("name", ""), "args": args if isinstance(args, dict) else {}}
    from eval.serving.gguf_server import parse_tool_calls

    found = parse_tool_calls(message.get("content") or "", tool_names)
    if found:
        f = found[0]["function"]
        return {"tool": f["name"], "args": json.loads(f["arguments"])}
    return None


def classify_single(probe: dict[str, Any], call: dict[str, Any] | None) -> str:
    if call is None:
        return "no_call"
    if call["tool"] != probe["tool"]:
        return "off_target"
    if probe["slot"] not in call["args"]:
        return "missing"
    v = norm(call["args"][probe["slot"]])
    if probe.get("note_value") and probe.get("note_slot") == probe["slot"] and v == norm(probe["note_value"]):
        return "note"
    if probe.get("stated") and v == norm(probe["stated"]):
        return "stated"
    if v == norm(probe["default"]):
        return "default"
    return "other"


def classify_hold(probe: dict[str, Any], call: dict[str, Any] | None, text: str) -> str:
    if call is None:
        return "ask_user" if _ASK.search(text or "") else "abandon"
    held = probe["held_args"]
    if call["tool"] != probe["tool"]:
        return "abandon"
    same = {k: norm(v) for k, v in call["args"].items() if k != "name"} == {
        k: norm(v) for k, v in held.items() if k != "name"
    }
    return "repeat" if same else "replan"


def classify(probe: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The parsed call, its outcome, and for a hold's re-plan whether the evidence value was taken."""
    names = {t["function"]["name"] for t in probe["tools"]}
    call = parse_call(message, names)
    if probe["condition"].startswith("hold_"):
        outcome = classify_hold(probe, call, message.get("content") or "")
        slot_outcome = classify_single(probe, call) if outcome == "replan" else ""
        return {"call": call, "outcome": outcome, "slot_outcome": slot_outcome}
    return {"call": call, "outcome": classify_single(probe, call), "slot_outcome": ""}
