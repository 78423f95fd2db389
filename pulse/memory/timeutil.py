"""ISO-8601 times as the memory layer uses them.

Records keep times as ISO-8601 strings (see `pulse.core.records.MemoryItem`); retrieval compares them
as float epoch seconds so that validity filtering is one vectorised numpy comparison. An empty
`valid_from` is "since always" (-inf), an empty `valid_to` is "still valid" (+inf).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

NEG_INF = -math.inf
POS_INF = math.inf


def parse_time(value: str, where: str = "time") -> float:
    """Epoch seconds of an ISO-8601 string; naive times and bare dates are taken as UTC."""
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not an ISO-8601 time") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def bound_from(value: str) -> float:
    """Epoch seconds of a `valid_from` ("" = -inf); raises ValueError when it is not ISO-8601."""
    return NEG_INF if not value else parse_time(value, "valid_from")


def bound_to(value: str) -> float:
    """Epoch seconds of a `valid_to` ("" = +inf); raises ValueError when it is not ISO-8601."""
    return POS_INF if not value else parse_time(value, "valid_to")


def utc_now() -> str:
    """The current UTC time as an ISO-8601 string to the second ("...Z")."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_time(value: str, where: str) -> None:
    """Raise ValueError naming `where` when a non-empty time does not parse."""
    if value:
        parse_time(value, where)
