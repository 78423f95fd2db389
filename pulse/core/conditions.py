"""Conditions that exclude a situation: "unless it's a client", "except for reports", and "otherwise"
after "if it's a long flight" (which the reader writes as "unless it's a long flight").

One rule for the reader that writes such a condition (`pulse.reading`) and for the scope rules that
weigh it (`pulse.agent.scope`): a fact under an excluding condition applies everywhere *but* in the
situation it names, so the situation's words in a request rule it out instead of in.
"""

from __future__ import annotations

import re

_EXCLUDING = re.compile(
    r"^\s*(?:unless|except(?:\s+(?:for|on|when|if|in|at|during|with|to))?|other than|apart from|save for"
    r"|but not(?:\s+(?:for|on|when|if|in|at|during|with|to))?|not\s+(?:for|on|when|if|in|at|during|with|to))"
    r"\s+",
    re.I,
)
_PREPOSITIONS = frozenset("for on when if in at during with to".split())
# a condition's own opener, dropped when it is turned into its opposite
_OPENER = re.compile(r"^\s*(?:if|when(?:ever)?|as long as|provided(?: that)?|only (?:if|when))\s+", re.I)


def excluded_situation(condition: str) -> str:
    """The situation an excluding condition rules out ("unless it's a client" -> "it's a client"), ""
    when the condition excludes nothing."""
    m = _EXCLUDING.match(condition or "")
    return condition[m.end() :].strip() if m else ""


def opposite(condition: str) -> str:
    """The condition under which the other branch holds ("otherwise ..." after it): "if it's a long
    flight" -> "unless it's a long flight", "unless X" -> "if X", "for long-haul flights" -> "except for
    long-haul flights"."""
    condition = (condition or "").strip()
    if not condition:
        return ""
    m = _EXCLUDING.match(condition)
    if m:  # "unless X" -> "if X", "except for X" -> "for X"
        last = m.group(0).split()[-1].lower()
        return f"{last if last in _PREPOSITIONS else 'if'} {condition[m.end() :]}"
    m = _OPENER.match(condition)
    if m:
        return f"unless {condition[m.end() :]}"
    return f"except {condition[:1].lower()}{condition[1:]}"
