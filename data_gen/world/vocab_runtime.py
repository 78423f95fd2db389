"""Tool workspaces of the *training* personas that `pulse gen-data source=runtime` runs the real
agent over (data_gen/runtime.py).

Services, tools, arguments and values written for training only: none is a tool, argument or value
of an evaluation suite (pibench_sim, mcp_persona_sim, independent_sim); `tests/data_gen/
test_runtime_source.py` checks it against the suites as generated. Besides these "other domains"
(kitchen, gym, cloud ops, garden, pets, music, home), the web domains of the generator's world
(`vocab_web.WEB_DOMAINS`) become tool services too (`web_services`), so the runtime data covers
both. The first value of an argument is its default (what an uninformed agent guesses).
`PROJECT_SLOTS` are project decisions (recorded by `DECISION_TOOL`), never user preferences.
"""

from __future__ import annotations

# the training workspaces' decision tool (a receipt records decision.<slot> fields)
DECISION_TOOL = "log_decision"

# service -> tool -> (description, {argument: values})
OTHER_SERVICES: dict[str, dict[str, tuple[str, dict[str, list[str]]]]] = {
    "kitchen": {
        "plan_menu": (
            "Plan a week of meals.",
            {
                "cuisine": ["homestyle", "mediterranean", "tex-mex", "sichuan", "nordic", "levantine"],
                "heat_level": ["gentle", "medium-hot", "scorching", "numbing"],
                "caterer": ["inhouse-kitchen", "lunchbox-co", "feastly", "platewise"],
            },
        ),
        "order_pantry": (
            "Order groceries for delivery.",
            {
                "grocer": ["freshmart", "greenbasket", "cornerco", "farmbox"],
                "drop_window": ["anytime", "dawn", "midday", "dusk", "late-night"],
            },
        ),
    },
    "gym": {
        "book_workout": (
            "Book a training session.",
            {
                "gym_chain": ["ironworks", "pulsefit", "corefactory", "zenstudio"],
                "session_slot": ["6am", "noon-break", "7pm", "weekend-am"],
                "offsite_venue": ["rooftop", "boathouse", "library-hall", "warehouse-loft"],
            },
        ),
        "log_training": (
            "Log a training block.",
            {
                "training_split": ["full-body", "push-pull", "upper-lower", "bro-split"],
                "load_unit": ["kilograms", "pounds", "stones"],
            },
        ),
    },
    "cloud": {
        "deploy_app": (
            "Deploy an application build.",
            {
                "cloud_region": ["us-east-2", "eu-west-3", "ap-south-1", "sa-east-1"],
                "machine_type": ["t3.small", "m5.large", "c6g.xlarge", "r6i.2xlarge"],
                "ci_system": ["jenkins", "buildkite", "circleci", "drone"],
            },
        ),
        "page_oncall": (
            "Page the on-call rotation.",
            {
                "pager_tool": ["pagerduty", "opsgenie", "victorops"],
                "escalation": ["tier-one", "tier-two", "tier-three"],
            },
        ),
    },
    "garden": {
        "order_plants": (
            "Order plants from a nursery.",
            {
                "nursery": ["greenleaf", "rootstock", "bloomhaus", "fernhill"],
                "plant_size": ["plug", "quart-pot", "gallon-pot", "bare-root"],
            },
        ),
        "schedule_watering": (
            "Schedule the garden watering.",
            {
                "irrigation": ["drip", "sprinkler", "soaker-hose", "hand-can"],
                "water_time": ["sunrise", "sunset", "noon-ish"],
                "sprint_cadence": ["one-week", "two-week", "three-week"],
            },
        ),
    },
    "pets": {
        "book_grooming": (
            "Book a grooming appointment.",
            {
                "groomer": ["pawspa", "furbulous", "wagwash", "groomroom"],
                "coat_trim": ["natural", "puppy-cut", "teddy-cut", "lion-cut"],
            },
        ),
        "order_petfood": (
            "Order pet food.",
            {
                "kibble_brand": ["barkbites", "meowmix-pro", "wildpaws", "purrfecta"],
                "bag_size": ["5lb", "15lb", "30lb"],
                "vendor_tier": ["gold-tier", "silver-tier", "bronze-tier"],
            },
        ),
    },
    "music": {
        "make_playlist": (
            "Make a playlist.",
            {
                "genre_mix": ["lofi", "synthwave", "bossa-nova", "baroque"],
                "stream_service": ["spotify", "tidal", "deezer", "qobuz"],
            },
        ),
        "book_studio": (
            "Book a rehearsal studio.",
            {
                "studio": ["soundforge", "echobay", "tapehouse"],
                "mic_setup": ["dynamic", "condenser", "ribbon"],
            },
        ),
    },
    "home": {
        "order_paint": (
            "Order paint for a room.",
            {
                "paint_finish": ["eggshell", "matte", "satin", "semi-gloss"],
                "paint_brand": ["sherwin", "benjamin", "valspar", "behr"],
            },
        ),
        "hire_help": (
            "Hire household help.",
            {
                "helper_app": ["taskrabbit", "handy", "angi", "thumbtack"],
                "visit_length": ["two-hours", "half-day", "full-day"],
            },
        ),
    },
}

# arguments that are project decisions (in the tools above and in DECISION_TOOL)
PROJECT_SLOTS: tuple[str, ...] = ("caterer", "offsite_venue", "ci_system", "sprint_cadence", "vendor_tier")
# arguments that are habits more often (usual, not required)
HABIT_PRONE: tuple[str, ...] = ("grocer", "stream_service", "helper_app", "pager_tool")
ROLES: tuple[str, ...] = (
    "home cook and weekend gardener",
    "platform engineer",
    "pet owner and musician",
    "fitness coach",
    "event organiser",
    "frequent traveller and shopper",
)
PROJECT_NAMES: tuple[str, ...] = (
    "spring-offsite",
    "infra-revamp",
    "house-move",
    "band-tour",
    "garden-plan",
    "family-reunion",
)


# web domains and slots left out: evaluation suites use some of their values (independent_sim's
# travel and notes vocabulary: aisle, economy, king, markdown, ...; city names), so they stay out of
# the run-time training data (the generator's own prefixes still have them)
WEB_EXCLUDED_DOMAINS: tuple[str, ...] = ("flights", "hotels", "notes", "movies")
WEB_EXCLUDED_SLOTS: tuple[str, ...] = ("location",)


def web_services() -> dict[str, dict[str, tuple[str, dict[str, list[str]]]]]:
    """The generator world's web domains as tool services: per domain a search and a commit tool over
    its slots (`<domain>_search`, `<domain>_commit`), the slot's first value as the default."""
    from data_gen.world.vocab_web import WEB_DOMAINS

    out = {}
    for name, d in WEB_DOMAINS.items():
        if name in WEB_EXCLUDED_DOMAINS:
            continue
        params = {s.name: list(s.values) for s in d.slots if s.name not in WEB_EXCLUDED_SLOTS}
        out[f"web_{name}"] = {
            f"{name}_search": (f"Search {d.label}.", params),
            f"{name}_commit": (f"Commit a {d.label} choice.", params),
        }
    return out
