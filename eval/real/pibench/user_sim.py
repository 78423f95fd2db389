"""π-Bench's hidden-intent user simulator, through an OpenAI-compatible endpoint.

Each hidden intent is `not_provided`, `inferred` (the agent satisfied it unasked) or `provided` (the
user told it). After each agent reply, as π-Bench does: stop when nothing is left unprovided; else an
intent-satisfaction judge marks the intents the latest reply explicitly satisfies as inferred (stop
when none is left); else a targeted-follow-up judge finds the remaining intents the reply asks about
specifically: the user answers them (their texts, verbatim) and they count as *matched*; otherwise
the user states the first unprovided intent verbatim (not counted). `covered` = inferred + matched
(π-Bench's PROC numerator).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

STOP = "###STOP###"
SATISFIED = (
    "You check whether the assistant's latest reply precisely and explicitly satisfies each listed user "
    "intent with specific details (judge only the latest reply; trust its wording). Answer one JSON object: "
    '{"results": [{"intent": <index>, "satisfied": true|false}]}.'
)
FOLLOWUP = (
    "You check whether the assistant's latest reply asks a clear question, confirmation or next-step "
    "proposal specifically about each listed user intent (a generic 'anything else?' does not count). "
    'Answer one JSON object: {"results": [{"intent": <index>, "asked": true|false}]}.'
)


class PiBenchUser:
    """π-Bench's hidden-intent user (the module docstring) over an endpoint: `first_message()` is the request,
    `reply(transcript)` provides or marks intents (STOP when none is left), `is_stop(text)`. `status`,
    `matched` and `unparsed` are read for the scores."""

    def __init__(self, endpoint, request: str, intents: Sequence[str]):
        self.endpoint = endpoint
        self.request = request
        self.intents = list(intents)
        self.status = ["not_provided"] * len(self.intents)
        self.matched: set[int] = set()
        self.unparsed = 0

    def first_message(self) -> str:
        return self.request

    def _ask(self, system: str, reply: str, idx: list[int], key: str) -> set[int]:
        listed = "\n".join(f"{i}: {self.intents[i]}" for i in idx)
        got = self.endpoint.chat_json(
            [
                {"role": "system", "content": system},
                {"role": "user", "content": f"assistant reply:\n{reply}\n\nintents:\n{listed}"},
            ]
        )
        res = got.get("results") if isinstance(got, dict) else None
        if not isinstance(res, list):
            self.unparsed += 1
            return set()
        return {r.get("intent") for r in res if isinstance(r, dict) and r.get(key) is True} & set(idx)

    def reply(self, transcript: Sequence[dict[str, Any]]) -> str:
        open_ = [i for i, s in enumerate(self.status) if s == "not_provided"]
        if not open_:
            return STOP
        latest = next(
            (m.get("content") or "" for m in reversed(transcript) if m.get("role") == "assistant"), ""
        )
        for i in self._ask(SATISFIED, latest, open_, "satisfied"):
            self.status[i] = "inferred"
        open_ = [i for i, s in enumerate(self.status) if s == "not_provided"]
        if not open_:
            return STOP
        asked = sorted(self._ask(FOLLOWUP, latest, open_, "asked"))
        if asked:
            for i in asked:
                self.status[i] = "provided"
                self.matched.add(i)
            return "\n".join(self.intents[i] for i in asked)
        self.status[open_[0]] = "provided"
        return self.intents[open_[0]]

    def is_stop(self, text: str) -> bool:
        return STOP in text

    def state(self) -> dict[str, Any]:
        covered = sum(1 for i, s in enumerate(self.status) if s == "inferred" or i in self.matched)
        return {
            "intents": len(self.intents),
            "covered": covered,
            "status": list(self.status),
            "unparsed": self.unparsed,
        }


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
