"""The template's tasks (TEMPLATE, not a result): three flight bookings of one user, inline.

A real benchmark reads its tasks from the data directory here (`eval.real.data_dir.dataset_dir`: a
missing folder is one line naming it) and raises `BenchmarkDataError` naming the file, the record and
the key of a malformed one. Each task becomes a `RealTask`: what a method may read (ids, the request,
the time) and the benchmark's own record in `data` (never read by methods): here the gold booking.
"""

from __future__ import annotations

from dataclasses import dataclass

from eval.benchmark import RealTask

USER = "mock_user"
PROJECT = "travel"


@dataclass(frozen=True)
class Gold:
    """The booking a task wants: the flight the request names, the cabin and seat the user wants."""

    destination: str
    cabin: str
    seat: str
    stated: tuple[str, ...]  # the arguments the request itself states (the rest come from memory)


# (task id, date, request, gold): task 1 needs both remembered preferences, task 2 states its cabin
# (memory must not override it), task 3 states its seat
TASKS = (
    ("mock_1", "2025-03-01", "Book me a flight to Lisbon.", Gold("Lisbon", "business", "aisle", ())),
    (
        "mock_2",
        "2025-03-08",
        "Book me a flight to Oslo, in economy this time.",
        Gold("Oslo", "economy", "aisle", ("cabin",)),
    ),
    (
        "mock_3",
        "2025-03-15",
        "Book me a window seat on a flight to Rome.",
        Gold("Rome", "business", "window", ("seat",)),
    ),
)


def load_tasks() -> list[RealTask]:
    """The template's tasks in chain order (one user: one chain, one memory across its tasks)."""
    return [
        RealTask(
            task_id=task_id,
            user_id=USER,
            project_id=PROJECT,
            request_text=request,
            time=date,
            category="booking",
            data=gold,
        )
        for task_id, date, request, gold in TASKS
    ]
