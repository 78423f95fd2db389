"""What the run-time agent tests share: the one user preference they hold memory to."""

from __future__ import annotations

from pulse.core.records import MemoryItem, Provenance


def notes_preference() -> MemoryItem:
    """u1 prefers the notes app obsidian, stated by the user (binding)."""
    return MemoryItem(
        "m1",
        "preference",
        "user:u1",
        "u1 prefers notes app obsidian.",
        "notes_app",
        "obsidian",
        "notes",
        ("notes_app",),
        "",
        Provenance("user_statement"),
        "2025-01-01",
    )
