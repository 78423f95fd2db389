"""The template's tool environment (TEMPLATE, not a result): two tools over one task's bookings.

`find_flights(destination)` only reads (listed in the benchmark's `read_only_tools`, so the gate never
holds it); `book_flight(flight_id, cabin, seat)` changes the state the scorer reads. An unknown tool
or a bad argument raises `ToolCallError`, which the gate turns into the call's error result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.benchmark import RealTask
from pulse.agent.gate import ToolCallError

CABINS = ["economy", "business"]  # the first value is what an agent guesses when nothing informs it
SEATS = ["window", "aisle", "middle"]
FLIGHTS = {"Lisbon": "MK101", "Oslo": "MK202", "Rome": "MK303"}

SCHEMAS: list[dict[str, Any]] = [
    {
        "name": "find_flights",
        "description": "Find the flight to a destination.",
        "parameters": {
            "type": "object",
            "properties": {"destination": {"type": "string", "enum": sorted(FLIGHTS)}},
            "required": ["destination"],
        },
    },
    {
        "name": "book_flight",
        "description": "Book a seat on a flight.",
        "parameters": {
            "type": "object",
            "properties": {
                "flight_id": {"type": "string"},
                "cabin": {"type": "string", "enum": CABINS},
                "seat": {"type": "string", "enum": SEATS},
            },
            "required": ["flight_id", "cabin", "seat"],
        },
    },
]


class MockEnv:
    """One chain's tools; `begin(task)` starts each task with no booking."""

    transport = "direct"

    def __init__(self) -> None:
        self.bookings: list[dict[str, str]] = []

    def begin(self, task: RealTask) -> None:
        self.bookings = []

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": s} for s in SCHEMAS]

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any:
        if tool == "find_flights":
            dest = str(args.get("destination", ""))
            if dest not in FLIGHTS:
                raise ToolCallError(f"find_flights: no flight to {dest!r} (known: {sorted(FLIGHTS)})")
            return {"flight_id": FLIGHTS[dest], "destination": dest}
        if tool == "book_flight":
            booking = {k: str(args.get(k, "")) for k in ("flight_id", "cabin", "seat")}
            if booking["flight_id"] not in FLIGHTS.values():
                raise ToolCallError(f"book_flight: unknown flight {booking['flight_id']!r}")
            for key, allowed in (("cabin", CABINS), ("seat", SEATS)):
                if booking[key] not in allowed:
                    raise ToolCallError(f"book_flight: {key} {booking[key]!r} is not one of {allowed}")
            self.bookings.append(booking)
            return {"status": "booked", **booking}
        raise ToolCallError(f"unknown tool {tool!r}; available: find_flights, book_flight")

    def close(self) -> None:
        pass
