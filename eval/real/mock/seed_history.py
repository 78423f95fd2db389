"""The template user's past (TEMPLATE, not a result): what every method builds its memory from.

Two earlier conversations, dated before the first task, in which the user states a preference for each
argument memory can supply. Every method gets exactly these sessions (eval/methods/seed.py) and reads
them through its own write path; none is handed the gold answers.
"""

from __future__ import annotations

from eval.methods.seed import SeedHistory
from eval.suites.schema import SeedSession, SeedTurn

STATEMENTS = (
    ("2025-01-10T09:00:00", "When I fly I always take an aisle seat."),
    ("2025-01-20T09:00:00", "I fly business class."),
)


def mock_history(user_id: str) -> SeedHistory:
    """The sessions of `user_id`'s chain, one per statement, in time order."""
    ack = SeedTurn("assistant", "Thanks, noted.")
    return SeedHistory(
        user_id,
        tuple(SeedSession(t, f"user:{user_id}", (SeedTurn("user", text), ack)) for t, text in STATEMENTS),
    )
