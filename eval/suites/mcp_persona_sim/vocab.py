"""Domain vocabularies for `mcp_persona_sim`: personal apps as tool servers (one MCP server per
service), in the spirit of MCP-Persona: email, notes (Notion vs Obsidian), team collaboration
(Lark), social posting (Rednote), calendar/maps. First value of each argument = the default.
"""

from __future__ import annotations

# service -> {tool: (description, {param: values})}
SERVICES: dict[str, dict[str, tuple[str, dict[str, list[str]]]]] = {
    "email": {
        "send_email": (
            "Send an email.",
            {
                "email_app": ["gmail", "outlook", "protonmail"],
                "signature": ["none", "full", "short"],
                "language": ["en", "zh", "fr"],
            },
        ),
    },
    "notes": {
        "create_note": (
            "Create a note.",
            {
                "notes_app": ["notion", "obsidian", "apple_notes"],
                "note_format": ["markdown", "outline", "checklist"],
            },
        ),
    },
    "collab": {
        "post_lark": (
            "Post to a Lark group or doc.",
            {"lark_space": ["team_chat", "project_doc", "wiki"], "mention": ["none", "owner", "all"]},
        ),
    },
    "social": {
        "post_rednote": (
            "Publish a Rednote post.",
            {
                "cover_style": ["photo", "collage", "text_card"],
                "hashtags": ["none", "few", "many"],
                "visibility": ["public", "friends", "private"],
            },
        ),
    },
    "calendar": {
        "create_event": (
            "Create a calendar event.",
            {"calendar": ["work", "personal", "family"], "reminder_min": ["10", "30", "60"]},
        ),
        "plan_route": (
            "Plan a route in maps.",
            {
                "maps_app": ["google_maps", "apple_maps", "amap"],
                "travel_mode": ["driving", "transit", "walking", "cycling"],
            },
        ),
    },
}

# The 7 task categories: 5 single-service, 2 cross-service (as MCP-Persona's 7).
CATEGORIES: dict[str, list[str]] = {
    "email": ["email"],
    "notes": ["notes"],
    "collaboration": ["collab"],
    "social": ["social"],
    "calendar_maps": ["calendar"],
    "notes_to_team": ["notes", "collab", "email"],
    "plan_and_share": ["calendar", "social", "email"],
}

# service -> what the user's past tool calls there were about (objects of the world history)
SERVICE_OBJECTS: dict[str, tuple[str, ...]] = {
    "email": ("a reply to a friend", "a message to a colleague", "an invitation", "a thank-you note"),
    "notes": ("reading notes", "a packing list", "meeting notes", "an idea draft"),
    "collab": ("a sprint update", "a shared project doc", "a team announcement"),
    "social": ("a weekend trip post", "a recipe post", "a product review post"),
    "calendar": ("a dentist appointment", "a team meeting", "a trip to the airport", "a dinner with family"),
}

PERSONA_ROLES = [
    "graduate student",
    "product designer",
    "travel blogger",
    "startup founder",
    "high-school teacher",
    "freelance photographer",
]
# Slots that are a *habit* (never a constraint) more often than others: the Notion/Obsidian case
# (DomainSpec.habit_prone: habits as often as a website is in the web domains).
HABIT_PRONE = ["notes_app", "email_app", "maps_app", "cover_style"]
