"""The independent suite's own world, written as data: six personas, their tools, slots, values and
every way the suite's texts say each value.

Written from the public task descriptions of pi-Bench (professional personas with long-lived
preferences primed in earlier conversations, hidden intents revealed mid-task, checklists) and
MCP-Persona / Persona2Web (account-bound personal apps, single- and cross-service tool chains,
preferences left implicit at several ambiguity levels). Nothing here comes from the other offline
suites' vocabularies or from the training world: the services, tools, slots and values are new.

Per persona:
  tools         tool -> (service, description, subgoal phrase, slots); every tool's enum for a slot
                is the slot's value list (the first value is the slot's default: the agent's prior
                guess when nothing informs it)
  decision      the suite's decision tool's slots (the project-level decisions)
  slots         slot -> (noun the texts use for it, {canonical value: surface forms}); each canonical
                value is also one of its own surface forms; within one persona no surface form is
                shared by two (slot, value) pairs and no form contains another (slot, value)'s form
  user_slots    slots that long-term user memory speaks to (preference / revision / condition / habit)
  free_slot     a per-task logistics slot (stated or defaulted), repeated later in a plan: the later
                step must carry the earlier step's executed value
  contexts      context tag -> the phrases that name it (conditional preferences hold in one)
  projects      the user's two projects and one other team's project (a distractor in the history)
  colleagues    other people whose facts the history mentions (distractors)
  topics        context tag ("" = none) -> what a task is about
  plans         tool sequences of 2-4 steps
"""

from __future__ import annotations

DECISION_TOOL = "record_decision"
DECISION_SERVICE = "planning"

PERSONAS: dict[str, dict] = {
    "consultant": {
        "role": "management consultant who books her own travel for client work and private trips",
        "tools": {
            "reserve_flight": (
                "flights",
                "Book a flight.",
                "book the flight",
                ("seat_spot", "cabin_class", "airport"),
            ),
            "reserve_room": (
                "lodging",
                "Book a hotel room.",
                "book the hotel room",
                ("bed_setup", "hotel_chain"),
            ),
            "arrange_ride": (
                "ground",
                "Arrange ground transport from the airport.",
                "sort out getting from the airport into town",
                ("ride_kind", "airport"),
            ),
            "file_expense": (
                "expenses",
                "File an expense claim.",
                "claim the costs back",
                ("cost_center", "reimburse_to"),
            ),
        },
        "decision": ("cost_center", "hotel_chain"),
        "slots": {
            "seat_spot": (
                "seat",
                {
                    "any_seat": ("any seat", "whatever seat is free"),
                    "aisle": ("an aisle seat", "a seat by the corridor", "the gangway side"),
                    "window": ("a window seat", "a seat with a view outside", "the window side"),
                },
            ),
            "cabin_class": (
                "cabin",
                {
                    "coach": ("economy", "the cheapest cabin"),
                    "premium": ("a premium cabin", "the extra-legroom cabin"),
                    "business": ("business class", "a lie-flat cabin"),
                },
            ),
            "airport": (
                "airport",
                {"LHR": ("Heathrow",), "LGW": ("Gatwick",), "LCY": ("London City", "City Airport")},
            ),
            "bed_setup": (
                "bed",
                {
                    "double": ("a double bed", "a standard double"),
                    "king": ("a king bed", "a king-size bed", "the biggest bed they have"),
                    "twin": ("twin beds", "two single beds"),
                },
            ),
            "hotel_chain": (
                "hotel chain",
                {
                    "any_chain": ("any hotel chain", "whichever chain is cheapest"),
                    "meridian": ("Meridian", "the Meridian group"),
                    "harbourline": ("Harbourline", "the Harbourline chain"),
                },
            ),
            "ride_kind": (
                "ride",
                {
                    "taxi": ("a taxi", "a cab", "a car service"),
                    "rail_link": ("the train", "the rail link", "the express train"),
                    "rental_car": ("a rental car", "a hire car"),
                },
            ),
            "cost_center": (
                "cost centre",
                {
                    "overhead": ("internal overhead", "the firm's overhead"),
                    "client_billable": ("billable to the client", "client-billable"),
                    "bid_budget": ("the bid budget", "the proposal budget"),
                },
            ),
            "reimburse_to": (
                "reimbursement",
                {
                    "payroll": ("through payroll", "with my salary"),
                    "bank_transfer": ("a bank transfer", "straight to my bank account"),
                    "corporate_card": ("the corporate card", "the company card"),
                },
            ),
        },
        "user_slots": ("seat_spot", "cabin_class", "bed_setup", "ride_kind", "reimburse_to"),
        "free_slot": "airport",
        "contexts": {
            "client_trip": ("a client trip", "a client visit", "travelling for a client"),
            "personal_trip": ("a personal trip", "a private trip", "a family trip"),
        },
        "projects": ("harbor-audit", "mill-merger", "delta-pricing"),
        "colleagues": ("Priya", "Tomasz"),
        "topics": {
            "client_trip": (
                "the steering meeting in Oslo",
                "the supplier audit in Lyon",
                "the kickoff workshop in Vienna",
            ),
            "personal_trip": (
                "my cousin's wedding in Porto",
                "a few days in Ghent with my partner",
                "my mother's birthday in Cork",
            ),
            "": ("the trip to Basel next month", "the Milan visit", "the trip to Tallinn"),
        },
        "plans": (
            ("reserve_flight", "reserve_room"),
            ("reserve_flight", "arrange_ride"),
            ("reserve_flight", "reserve_room", "arrange_ride"),
            ("reserve_flight", "reserve_room", "arrange_ride", "file_expense"),
            ("reserve_room", "file_expense"),
            ("reserve_flight", "arrange_ride", "file_expense"),
        ),
    },
    "event_planner": {
        "role": "office manager who organises company events, offsites and team socials",
        "tools": {
            "book_venue": (
                "venues",
                "Book an event venue.",
                "secure a place to hold it",
                ("room_layout", "host_city", "event_day"),
            ),
            "order_catering": (
                "catering",
                "Order catering for an event.",
                "arrange the food and drinks",
                ("menu_style", "drinks_plan", "budget_band"),
            ),
            "send_invites": (
                "invites",
                "Send the event invitations.",
                "get the invitations out",
                ("invite_medium", "rsvp_window", "event_day"),
            ),
        },
        "decision": ("host_city", "budget_band"),
        "slots": {
            "room_layout": (
                "layout",
                {
                    "theatre": ("theatre-style rows", "rows facing the stage"),
                    "banquet": ("round tables", "banquet rounds"),
                    "u_shape": ("a U-shape", "a horseshoe layout"),
                },
            ),
            "host_city": (
                "city",
                {
                    "lisbon": ("Lisbon", "the Lisbon office"),
                    "rotterdam": ("Rotterdam", "the Rotterdam office"),
                    "krakow": ("Krakow", "the Krakow office"),
                },
            ),
            "event_day": (
                "day",
                {"thursday": ("Thursday",), "friday": ("Friday",), "saturday": ("Saturday",)},
            ),
            "menu_style": (
                "food",
                {
                    "buffet": ("a buffet", "self-service food"),
                    "plated": ("a plated meal", "food served at the table"),
                    "canapes": ("finger food", "bites passed around"),
                },
            ),
            "drinks_plan": (
                "drinks",
                {
                    "soft_only": ("soft drinks only", "alcohol-free drinks"),
                    "beer_wine": ("beer and wine", "a beer-and-wine bar"),
                    "full_bar": ("an open bar", "a full bar"),
                },
            ),
            "budget_band": (
                "budget",
                {
                    "mid_range": ("mid-range", "a middle budget"),
                    "shoestring": ("a shoestring budget", "as cheap as possible"),
                    "lavish": ("a lavish budget", "no expense spared"),
                },
            ),
            "invite_medium": (
                "invitations",
                {
                    "calendar_invite": ("a calendar invite", "a meeting invitation"),
                    "printed_card": ("a printed card", "paper invitations"),
                    "chat_message": ("a chat message", "a message in the team channel"),
                },
            ),
            "rsvp_window": (
                "reply deadline",
                {
                    "one_week": ("one week", "a week to reply"),
                    "two_weeks": ("two weeks", "a fortnight"),
                    "three_days": ("three days", "72 hours"),
                },
            ),
        },
        "user_slots": ("room_layout", "menu_style", "drinks_plan", "invite_medium", "rsvp_window"),
        "free_slot": "event_day",
        "contexts": {
            "board_event": ("a board event", "the board meeting", "a directors' meeting"),
            "team_social": ("a team social", "a staff party", "an after-work get-together"),
        },
        "projects": ("spring-offsite", "partner-summit", "finance-retreat"),
        "colleagues": ("Jonas", "Amara"),
        "topics": {
            "board_event": (
                "the quarterly strategy review",
                "the annual accounts session",
                "the investor briefing",
            ),
            "team_social": ("the summer barbecue", "the end-of-project celebration", "the quiz night"),
            "": ("the product training day", "the onboarding morning", "the sales kickoff"),
        },
        "plans": (
            ("book_venue", "send_invites"),
            ("book_venue", "order_catering"),
            ("book_venue", "order_catering", "send_invites"),
            ("order_catering", "send_invites"),
            ("book_venue", "order_catering", "send_invites", "order_catering"),
        ),
    },
    "news_editor": {
        "role": (
            "digital news editor who publishes stories, commissions graphics and shares them on social sites"
        ),
        "tools": {
            "publish_story": (
                "cms",
                "Publish a story in the content system.",
                "put the piece live on the site",
                ("headline_case", "embargo_mode", "style_guide", "section"),
            ),
            "make_graphic": (
                "graphics",
                "Commission a data graphic.",
                "commission the graphic",
                ("graphic_kind", "colour_scheme"),
            ),
            "share_story": (
                "social",
                "Share a story on a social site.",
                "push the piece to our social accounts",
                ("social_site", "post_slot", "section"),
            ),
        },
        "decision": ("style_guide", "colour_scheme"),
        "slots": {
            "headline_case": (
                "headline",
                {
                    "sentence_case": ("sentence case", "a capital on the first word only"),
                    "title_case": ("title case", "capitals on every word"),
                    "all_caps": ("all caps", "shouting capitals"),
                },
            ),
            "embargo_mode": (
                "release",
                {
                    "publish_now": ("straight away", "immediately"),
                    "hold_for_review": ("held for a second read", "after a second read"),
                    "scheduled": ("a scheduled slot", "queued for later"),
                },
            ),
            "style_guide": (
                "style guide",
                {
                    "ap_style": ("AP style", "Associated Press style"),
                    "house_guide": ("our house guide", "the in-house stylebook"),
                    "chicago": ("Chicago", "the Chicago manual"),
                },
            ),
            "section": (
                "section",
                {
                    "politics": ("Politics", "the politics pages"),
                    "climate": ("Climate", "the climate desk"),
                    "culture": ("Culture", "the arts pages"),
                },
            ),
            "graphic_kind": (
                "graphic",
                {
                    "dot_plot": ("a dot plot", "dots on a scale"),
                    "choropleth": ("a shaded map", "a choropleth map"),
                    "slope_chart": ("a slope chart", "a before-and-after slope"),
                },
            ),
            "colour_scheme": (
                "colours",
                {
                    "house_blue": ("house blue", "the blue house palette"),
                    "sepia": ("sepia tones", "warm browns"),
                    "high_contrast": ("high contrast", "black and yellow"),
                },
            ),
            "social_site": (
                "social site",
                {
                    "mastodon": ("Mastodon", "the fediverse"),
                    "bluesky": ("Bluesky", "the butterfly site"),
                    "newsletter": ("the newsletter", "our email newsletter"),
                },
            ),
            "post_slot": (
                "posting time",
                {
                    "morning_rush": ("the morning rush", "commuter time"),
                    "lunchtime": ("lunchtime", "the lunch hour"),
                    "late_evening": ("late evening", "after dinner"),
                },
            ),
        },
        "user_slots": ("headline_case", "embargo_mode", "graphic_kind", "social_site", "post_slot"),
        "free_slot": "section",
        "contexts": {
            "breaking_news": ("breaking news", "a story that just broke", "a live-desk story"),
            "weekend_feature": ("a weekend feature", "a long read", "the Sunday magazine"),
        },
        "projects": ("election-night", "river-data", "transport-audit"),
        "colleagues": ("Noor", "Felix"),
        "topics": {
            "breaking_news": ("the bridge closure", "the council vote result", "the port strike"),
            "weekend_feature": (
                "the profile of the lighthouse keepers",
                "the history of the tram lines",
                "the essay on allotment gardens",
            ),
            "": ("the school places story", "the housing figures", "the budget explainer"),
        },
        "plans": (
            ("publish_story", "share_story"),
            ("make_graphic", "publish_story"),
            ("make_graphic", "publish_story", "share_story"),
            ("publish_story", "make_graphic", "share_story"),
            ("make_graphic", "share_story"),
        ),
    },
    "home_organiser": {
        "role": "parent who runs the household: weekly meal plans, grocery orders and family outings",
        "tools": {
            "plan_meals": (
                "recipes",
                "Plan the week's meals.",
                "work out what we eat this week",
                ("spice_level", "portion_size", "headcount"),
            ),
            "order_groceries": (
                "groceries",
                "Order groceries for delivery.",
                "get the food shopping delivered",
                ("milk_kind", "delivery_window", "store_pick", "headcount"),
            ),
            "book_outing": (
                "family",
                "Book a family outing.",
                "set up the family day out",
                ("outing_kind", "spend_cap"),
            ),
        },
        "decision": ("store_pick", "spend_cap"),
        "slots": {
            "spice_level": (
                "spice",
                {
                    "mild": ("mild", "barely any chilli"),
                    "medium_hot": ("medium heat", "a bit of a kick"),
                    "fiery": ("really spicy", "lots of chilli"),
                },
            ),
            "portion_size": (
                "portions",
                {
                    "regular": ("regular portions", "normal helpings"),
                    "hearty": ("big portions", "generous helpings"),
                    "small_plates": ("small portions", "light helpings"),
                },
            ),
            "headcount": (
                "number of people",
                {
                    "two_people": ("two people", "for two"),
                    "four_people": ("four people", "for four"),
                    "eight_people": ("eight people", "for eight"),
                },
            ),
            "milk_kind": (
                "milk",
                {
                    "whole_milk": ("whole milk", "full-fat milk"),
                    "oat_milk": ("oat milk", "the oat drink"),
                    "lactose_free": ("lactose-free milk", "lactose free"),
                },
            ),
            "delivery_window": (
                "delivery",
                {
                    "morning_slot": ("a morning delivery", "before noon"),
                    "evening_slot": ("an evening delivery", "after six"),
                    "saturday_slot": ("a Saturday delivery", "on Saturday"),
                },
            ),
            "store_pick": (
                "shop",
                {
                    "corner_shop": ("the corner shop", "the local shop"),
                    "greenhill": ("Greenhill Market", "Greenhill"),
                    "bulkmart": ("BulkMart", "the warehouse store"),
                },
            ),
            "spend_cap": (
                "spending",
                {
                    "mid_cap": ("a moderate budget", "a sensible amount"),
                    "low_cap": ("a tight budget", "keep it cheap"),
                    "high_cap": ("a generous budget", "splash out"),
                },
            ),
            "outing_kind": (
                "outing",
                {
                    "museum": ("a museum", "an exhibition"),
                    "park": ("the park", "a picnic outdoors"),
                    "cinema": ("the cinema", "a film"),
                },
            ),
        },
        "user_slots": ("spice_level", "portion_size", "milk_kind", "delivery_window", "outing_kind"),
        "free_slot": "headcount",
        "contexts": {
            "grandkids_visit": (
                "a grandkids visit",
                "a visit from the grandchildren",
                "a week with the little ones",
            ),
            "dinner_party": ("a dinner party", "an evening with guests", "a night we host"),
        },
        "projects": ("summer-reunion", "garden-redo", "school-fair"),
        "colleagues": ("Marta", "Kofi"),
        "topics": {
            "grandkids_visit": ("the half-term week", "the Easter weekend", "the school holidays"),
            "dinner_party": (
                "the dinner with the neighbours",
                "the anniversary dinner",
                "the book club supper",
            ),
            "": ("next week", "the coming fortnight", "the week after the holiday"),
        },
        "plans": (
            ("plan_meals", "order_groceries"),
            ("plan_meals", "order_groceries", "book_outing"),
            ("order_groceries", "book_outing"),
            ("book_outing", "plan_meals", "order_groceries"),
            ("plan_meals", "book_outing"),
        ),
    },
    "physio": {
        "role": "physiotherapist who books patient sessions, sends home exercises and bills the sessions",
        "tools": {
            "book_session": (
                "clinic",
                "Book a therapy session.",
                "put the appointment in the diary",
                ("session_length", "intake_form", "visit_day"),
            ),
            "send_homework": (
                "exercises",
                "Send a home exercise plan.",
                "send the home exercises",
                ("exercise_format", "reminder_rhythm", "visit_day"),
            ),
            "bill_session": (
                "billing",
                "Bill a session.",
                "invoice the appointment",
                ("payer_route", "invoice_detail"),
            ),
        },
        "decision": ("payer_route", "intake_form"),
        "slots": {
            "session_length": (
                "session length",
                {
                    "half_hour": ("half an hour", "thirty minutes"),
                    "forty_five": ("forty-five minutes", "three quarters of an hour"),
                    "full_hour": ("a full hour", "sixty minutes"),
                },
            ),
            "intake_form": (
                "intake form",
                {
                    "short_form": ("the short form", "a quick intake"),
                    "full_history": ("the full history form", "a full intake"),
                    "sports_screen": ("the sports screening form", "a sports screen"),
                },
            ),
            "visit_day": ("day", {"monday": ("Monday",), "wednesday": ("Wednesday",), "friday": ("Friday",)}),
            "exercise_format": (
                "exercise format",
                {
                    "printed_sheet": ("a printed sheet", "paper handouts"),
                    "video_clips": ("video clips", "short videos"),
                    "app_program": ("the exercise app", "an app program"),
                },
            ),
            "reminder_rhythm": (
                "reminders",
                {
                    "daily_nudge": ("a daily nudge", "every day"),
                    "every_other_day": ("every other day", "alternate days"),
                    "weekly_digest": ("a weekly digest", "once a week"),
                },
            ),
            "payer_route": (
                "payer",
                {
                    "self_pay": ("self-pay", "the patient pays"),
                    "insurer": ("the insurer", "insurance billing"),
                    "sports_club": ("the sports club", "the club pays"),
                },
            ),
            "invoice_detail": (
                "invoice",
                {
                    "summary_line": ("a one-line summary", "a short invoice"),
                    "itemised": ("itemised", "line by line"),
                    "coded": ("with procedure codes", "a coded invoice"),
                },
            ),
        },
        "user_slots": ("session_length", "exercise_format", "reminder_rhythm", "invoice_detail"),
        "free_slot": "visit_day",
        "contexts": {
            "post_surgery": ("a post-surgery case", "a post-op patient", "rehab after an operation"),
            "sports_injury": ("a sports injury", "an injured athlete", "someone hurt playing sport"),
        },
        "projects": ("knee-rehab-group", "runners-clinic", "back-school"),
        "colleagues": ("Dr Haddad", "Lena"),
        "topics": {
            "post_surgery": (
                "Mr Okafor's new hip",
                "the ACL reconstruction patient",
                "Mrs Byrne's shoulder repair",
            ),
            "sports_injury": (
                "the hamstring strain from the rugby club",
                "the sprinter's ankle",
                "the tennis elbow case",
            ),
            "": ("the new back-pain referral", "Mrs Silva's neck", "the desk-worker posture case"),
        },
        "plans": (
            ("book_session", "send_homework"),
            ("book_session", "bill_session"),
            ("book_session", "send_homework", "bill_session"),
            ("send_homework", "bill_session"),
            ("book_session", "bill_session", "send_homework"),
        ),
    },
    "sre_lead": {
        "role": "site reliability lead who opens incidents, ships releases and sets up on-call alerts",
        "tools": {
            "open_incident": (
                "incidents",
                "Open an incident.",
                "log the outage",
                ("severity_tag", "incident_room", "service_name"),
            ),
            "ship_release": (
                "deploys",
                "Ship a release.",
                "roll out the new version",
                ("rollout_plan", "release_train", "review_gate", "service_name"),
            ),
            "notify_team": (
                "paging",
                "Set up team notifications.",
                "set up the notifications",
                ("alert_route", "quiet_hours"),
            ),
        },
        "decision": ("release_train", "review_gate"),
        "slots": {
            "severity_tag": (
                "severity",
                {
                    "sev3": ("SEV3", "low severity"),
                    "sev2": ("SEV2", "medium severity"),
                    "sev1": ("SEV1", "top severity", "all hands on deck"),
                },
            ),
            "incident_room": (
                "incident room",
                {
                    "ticket_only": ("just a ticket", "the ticket only"),
                    "incident_channel": ("an incident channel", "a dedicated channel"),
                    "war_room_call": ("a war-room call", "a bridge call"),
                },
            ),
            "service_name": (
                "service",
                {
                    "checkout": ("the checkout service",),
                    "search_api": ("the search API",),
                    "billing_svc": ("the billing service",),
                },
            ),
            "rollout_plan": (
                "rollout",
                {
                    "staged": ("a staged rollout", "region by region"),
                    "canary": ("a canary", "a small slice first"),
                    "big_bang": ("all at once", "everything in one go"),
                },
            ),
            "release_train": (
                "release train",
                {
                    "tuesday_train": ("the Tuesday train", "Tuesday releases"),
                    "thursday_train": ("the Thursday train", "Thursday releases"),
                    "continuous": ("continuous delivery", "ship on merge"),
                },
            ),
            "review_gate": (
                "review gate",
                {
                    "one_approver": ("one approval", "a single reviewer"),
                    "two_approvers": ("two approvals", "two reviewers"),
                    "owner_signoff": ("the owner's sign-off", "service-owner sign-off"),
                },
            ),
            "alert_route": (
                "alerts",
                {
                    "chat_ping": ("a chat ping", "a DM"),
                    "pager": ("the pager", "a page"),
                    "phone_call": ("a phone call", "ring me"),
                },
            ),
            "quiet_hours": (
                "quiet hours",
                {
                    "always_on": ("always on", "any hour"),
                    "quiet_nights": ("quiet nights", "nothing after 10 pm"),
                    "office_hours": ("office hours only", "9 to 5"),
                },
            ),
        },
        "user_slots": ("severity_tag", "incident_room", "rollout_plan", "alert_route", "quiet_hours"),
        "free_slot": "service_name",
        "contexts": {
            "weekend": ("the weekend", "a Saturday or Sunday", "a weekend shift"),
            "hotfix": ("a hotfix", "an emergency patch", "a hot patch"),
        },
        "projects": ("payments-migration", "search-revamp", "data-platform"),
        "colleagues": ("Ravi", "Sofia"),
        "topics": {
            "weekend": ("the cache stampede", "the queue backlog", "the certificate expiry"),
            "hotfix": ("the login loop bug", "the currency rounding bug", "the timeout regression"),
            "": ("the latency spike", "the dependency upgrade", "the config cleanup"),
        },
        "plans": (
            ("open_incident", "ship_release"),
            ("open_incident", "notify_team"),
            ("open_incident", "notify_team", "ship_release"),
            ("ship_release", "notify_team"),
            ("open_incident", "ship_release", "notify_team"),
        ),
    },
}
