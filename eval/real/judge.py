"""LLM judge over a transcript: one verdict per criterion, through an OpenAI-compatible endpoint.

Used by τ²'s natural-language assertions and π-Bench's checklist. The judge answers one JSON object
{"results": [{"criterion": ..., "met": true|false, "reasoning": ...}, ...]} in the order given; a
reply that does not parse, or lacks a verdict for a criterion, counts that criterion as not met
and is counted in `unparsed` (never guessed as met).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pulse.llm.endpoint import EndpointClient

SYSTEM = (
    "You grade a conversation between an assistant and a user against a list of criteria. Grade each "
    "criterion on its own: met only if the conversation (and the assistant's outputs shown) clearly "
    'satisfies it. Answer with one JSON object: {"results": [{"criterion": "<as given>", "met": true or '
    'false, "reasoning": "<short>"}]}, one entry per criterion, in the order given.'
)


@dataclass
class Verdicts:
    """A judge's answer: one verdict per criterion (`met`) and how many criteria got no parsable verdict."""

    met: list[bool]
    unparsed: int


def transcript_text(transcript: Sequence[dict[str, Any]]) -> str:
    return "\n".join(f"{m.get('role')}: {m.get('content') or ''}" for m in transcript)


class LLMJudge:
    """The checklist judge over an OpenAI-compatible endpoint (the module docstring):
    `judge(criteria, transcript, context)` returns `Verdicts`; a criterion without a parsable verdict counts
    as not met."""

    label_suffix = ""

    def __init__(self, endpoint: EndpointClient):
        self.endpoint = endpoint
        self.label = f"LLM judge {endpoint.label}"

    def judge(
        self, criteria: Sequence[str], transcript: Sequence[dict[str, Any]], context: str = ""
    ) -> Verdicts:
        if not criteria:
            return Verdicts([], 0)
        user = (
            (f"context:\n{context}\n\n" if context else "")
            + f"conversation:\n{transcript_text(transcript)}\n\n"
            f"criteria:\n{json.dumps(list(criteria), ensure_ascii=False)}"
        )
        reply = self.endpoint.chat_json(
            [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        )
        results = reply.get("results") if isinstance(reply, dict) else None
        met: list[bool] = []
        unparsed = 0
        for i in range(len(criteria)):
            r = (
                results[i]
                if isinstance(results, list) and i < len(results) and isinstance(results[i], dict)
                else None
            )
            if r is None or not isinstance(r.get("met"), bool):
                unparsed += 1
                met.append(False)
            else:
                met.append(r["met"])
        return Verdicts(met, unparsed)
