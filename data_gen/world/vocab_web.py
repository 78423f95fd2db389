"""Persona2Web-style vocabularies: web domains, names and cities (written here, no data file read).

Inspired by the reference's vocab lists (persona2web.md §4.2, §6.1-6.2) but self-contained, so the
generator needs no data directory. Values are short tokens ("32x32", "$150", "4.5+",
"economy", "thai", "kohls.com", "Austin") so a tiny model can compare them exactly. Add a domain
by adding a `DomainSpec` to `WEB_DOMAINS`; nothing else changes.
"""

from __future__ import annotations

from data_gen.world.domains import DomainSpec, SlotSpec

FIRST_NAMES: tuple[str, ...] = (
    "Alex",
    "Avery",
    "Blake",
    "Cameron",
    "Casey",
    "Dakota",
    "Drew",
    "Emery",
    "Hayden",
    "Jordan",
    "Logan",
    "Morgan",
    "Parker",
    "Quinn",
    "Reese",
    "Riley",
    "Rowan",
    "Sage",
    "Taylor",
    "Jessica",
)
LAST_NAMES: tuple[str, ...] = (
    "Garcia",
    "Lee",
    "Smith",
    "Davis",
    "Moore",
    "Rodriguez",
    "Thomas",
    "Miller",
    "Thompson",
    "Jones",
    "Taylor",
    "Williams",
    "Johnson",
    "Lewis",
    "Clark",
    "Wilson",
)
CITIES: tuple[str, ...] = (
    "Austin",
    "Boston",
    "Chicago",
    "Dallas",
    "Denver",
    "Houston",
    "Phoenix",
    "Seattle",
    "Portland",
    "Nashville",
    "Baltimore",
    "Charlotte",
    "Columbus",
    "Louisville",
    "Indianapolis",
    "Jacksonville",
)
OCCUPATIONS: tuple[str, ...] = (
    "nurse",
    "teacher",
    "engineer",
    "student",
    "accountant",
    "designer",
    "chef",
    "researcher",
    "marketer",
    "pharmacist",
    "electrician",
    "lawyer",
)
HOUSEHOLDS: tuple[str, ...] = ("single", "couple", "family-of-4", "roommates", "family-of-3")


def _site(*sites: str, implicit: str = "on my usual site") -> SlotSpec:
    return SlotSpec("site", tuple(sites), "on {v}", implicit, hidden_until_l3=True)


def _location(implicit: str = "in my usual area") -> SlotSpec:
    return SlotSpec("location", CITIES, "in {v}", implicit, hidden_until_l3=True)


def _budget(*values: str, implicit: str = "within my usual budget") -> SlotSpec:
    return SlotSpec("budget", tuple(values), "under {v}", implicit)


WEB_DOMAINS: dict[str, DomainSpec] = {
    d.name: d
    for d in (
        DomainSpec(
            "apparel",
            "apparel shopping",
            ("slim-fit chinos", "straight jeans", "dress pants", "work trousers", "hiking shorts"),
            (
                _site("kohls.com", "amazon.com", "macys.com", "uniqlo.com", "nordstrom.com", "target.com"),
                SlotSpec(
                    "size",
                    ("32x32", "30x30", "34x32", "36x30", "33x34", "31x30"),
                    "in size {v}",
                    "in my usual size",
                ),
                _budget("$40", "$60", "$80", "$100", "$150"),
                SlotSpec(
                    "rating",
                    ("4.0+", "4.2+", "4.5+", "4.7+"),
                    "rated {v}",
                    "that meet my usual rating standard",
                ),
                SlotSpec("color", ("navy", "black", "olive", "gray", "khaki"), "in {v}", "in my usual color"),
            ),
            "search_products",
            "add_to_cart",
        ),
        DomainSpec(
            "electronics",
            "electronics shopping",
            ("noise-cancelling headphones", "a laptop", "a 27-inch monitor", "a tablet", "a smartwatch"),
            (
                _site("bestbuy.com", "amazon.com", "newegg.com", "walmart.com", "bhphotovideo.com"),
                _budget("$200", "$300", "$500", "$800", "$1200"),
                SlotSpec(
                    "brand",
                    ("sony", "apple", "samsung", "dell", "lenovo", "bose"),
                    "from {v}",
                    "from my usual brand",
                ),
                SlotSpec(
                    "rating", ("4.0+", "4.3+", "4.5+", "4.7+"), "rated {v}", "that meet my usual rating bar"
                ),
                SlotSpec(
                    "condition",
                    ("new", "refurbished", "open-box"),
                    "in {v} condition",
                    "in my usual condition",
                ),
            ),
            "search_products",
            "add_to_cart",
        ),
        DomainSpec(
            "flights",
            "flights",
            (
                "a round-trip flight to Chicago",
                "a one-way flight to Boston",
                "a flight to Denver",
                "a round-trip flight to Seattle",
                "a weekend flight to Miami",
            ),
            (
                _site(
                    "united.com",
                    "delta.com",
                    "jetblue.com",
                    "kayak.com",
                    "expedia.com",
                    "southwest.com",
                    implicit="on my preferred booking site",
                ),
                SlotSpec(
                    "airport",
                    ("SFO", "DFW", "DEN", "JFK", "ORD", "SEA", "AUS", "BOS"),
                    "from {v}",
                    "from my home airport",
                ),
                SlotSpec(
                    "cabin", ("economy", "comfort+", "premium", "business"), "in {v}", "in my usual cabin"
                ),
                _budget("$250", "$400", "$600", "$900", implicit="within my usual fare"),
                SlotSpec("seat", ("aisle", "window", "exit-row"), "with an {v} seat", "with my usual seat"),
            ),
            "search_flights",
            "book_flight",
            ("web_search", "web_visit", "booking", "review_rating"),
            "Book",
        ),
        DomainSpec(
            "hotels",
            "hotel stays",
            (
                "a hotel in Chicago for two nights",
                "a hotel in San Diego",
                "a room in New York for the weekend",
                "a hotel near the conference",
                "a hotel in Miami",
            ),
            (
                _site("booking.com", "hotels.com", "expedia.com", "marriott.com", "airbnb.com"),
                _budget("$120", "$180", "$250", "$350", implicit="within my usual nightly budget"),
                SlotSpec(
                    "rating", ("8.0+", "8.5+", "9.0+"), "with guest rating {v}", "with my usual guest rating"
                ),
                SlotSpec(
                    "room",
                    ("king", "queen", "2-queen", "suite"),
                    "with a {v} room",
                    "with my usual room type",
                ),
                SlotSpec(
                    "area",
                    ("downtown", "airport", "beach", "midtown"),
                    "near {v}",
                    "in my usual kind of area",
                ),
            ),
            "search_hotels",
            "book_hotel",
            ("web_search", "web_visit", "booking", "review_rating"),
            "Book",
        ),
        DomainSpec(
            "dining",
            "restaurant reservations",
            (
                "a dinner table for Friday",
                "a table for Saturday night",
                "a birthday dinner",
                "a lunch reservation",
                "a post-show dinner",
            ),
            (
                _site("opentable.com", "resy.com", "yelp.com", "tock.com"),
                SlotSpec(
                    "cuisine",
                    ("thai", "italian", "sushi", "mexican", "indian", "korean", "vegan"),
                    "serving {v}",
                    "serving my favorite cuisine",
                ),
                _budget("$25", "$40", "$60", "$90", implicit="within my usual per-person budget"),
                SlotSpec("party", ("2", "4", "6"), "for {v} people", "for my usual party size"),
                SlotSpec("time", ("6-7pm", "7-8pm", "8-9pm", "9-10pm"), "at {v}", "at my usual dinner time"),
                _location(),
            ),
            "search_restaurants",
            "book_table",
            ("web_search", "web_visit", "booking", "review_rating"),
            "Reserve",
        ),
        DomainSpec(
            "events",
            "event tickets",
            (
                "concert tickets for next month",
                "tickets for a show this weekend",
                "two tickets for a live show",
                "festival passes",
                "tickets for a Friday show",
            ),
            (
                _site("ticketmaster.com", "seatgeek.com", "eventbrite.com", "stubhub.com"),
                SlotSpec(
                    "genre",
                    ("jazz", "indie", "comedy", "hip-hop", "classical", "country"),
                    "for {v}",
                    "for my favorite genre",
                ),
                _budget("$50", "$80", "$120", "$150", "$200", implicit="within my usual ticket budget"),
                SlotSpec(
                    "seat",
                    ("floor", "balcony", "GA", "lower-bowl"),
                    "in the {v} section",
                    "in my usual section",
                ),
                _location(),
            ),
            "search_events",
            "buy_tickets",
            ("web_search", "web_visit", "purchase", "review_rating"),
        ),
        DomainSpec(
            "movies",
            "movie tickets",
            (
                "movie tickets for tonight",
                "two tickets for the new release",
                "a Sunday matinee",
                "tickets for the premiere",
                "a late movie",
            ),
            (
                _site("fandango.com", "amctheatres.com", "regmovies.com", "atomtickets.com"),
                SlotSpec("format", ("IMAX", "Dolby", "3D", "standard"), "in {v}", "in my preferred format"),
                SlotSpec(
                    "genre",
                    ("sci-fi", "comedy", "drama", "thriller", "animation"),
                    "for a {v}",
                    "in my favorite genre",
                ),
                _budget("$15", "$20", "$25", "$30", implicit="within my per-ticket budget"),
                SlotSpec(
                    "score",
                    ("70%+", "80%+", "90%+"),
                    "with a Tomatometer of {v}",
                    "with my usual critic score",
                ),
                _location(),
            ),
            "search_showtimes",
            "buy_tickets",
            ("web_search", "web_visit", "purchase", "review_rating"),
        ),
        DomainSpec(
            "grocery",
            "grocery delivery",
            (
                "this week's groceries",
                "ingredients for a dinner party",
                "breakfast supplies",
                "snacks for the office",
                "a fruit and vegetable order",
            ),
            (
                _site("instacart.com", "amazonfresh.com", "walmart.com", "wholefoods.com"),
                SlotSpec(
                    "diet",
                    ("organic", "vegan", "gluten-free", "keto", "dairy-free"),
                    "that are {v}",
                    "that fit my usual diet",
                ),
                SlotSpec(
                    "delivery",
                    ("pickup", "same-day", "next-day"),
                    "with {v} delivery",
                    "with my usual delivery option",
                ),
                _budget("$75", "$100", "$150", "$200", implicit="within my usual grocery budget"),
                _location(),
            ),
            "search_groceries",
            "place_order",
            ("web_search", "web_visit", "purchase", "review_rating"),
            "Order",
        ),
        DomainSpec(
            "health",
            "doctor appointments",
            (
                "a dermatologist appointment",
                "an annual physical",
                "a dentist visit",
                "a physical therapy session",
                "an eye exam",
            ),
            (
                _site("zocdoc.com", "healthgrades.com", "teladoc.com", "onemedical.com"),
                SlotSpec(
                    "insurance",
                    ("aetna", "cigna", "kaiser", "bluecross", "united"),
                    "that takes {v}",
                    "that takes my insurance",
                ),
                SlotSpec(
                    "provider", ("female", "male", "any"), "with a {v} provider", "with my preferred provider"
                ),
                SlotSpec(
                    "visit", ("in-person", "video", "phone"), "as an {v} visit", "as my usual visit type"
                ),
                SlotSpec("time", ("mornings", "evenings", "weekends", "lunch"), "on {v}", "at my usual time"),
                _location(),
            ),
            "search_doctors",
            "book_appointment",
            ("web_search", "web_visit", "booking", "review_rating"),
            "Book",
        ),
        DomainSpec(
            "courses",
            "online courses",
            (
                "an online Python course",
                "a data visualization course",
                "a machine learning course",
                "a SQL course",
                "a UX design course",
            ),
            (
                _site("coursera.org", "udemy.com", "edx.org", "linkedin.com"),
                SlotSpec(
                    "level", ("beginner", "intermediate", "advanced"), "at {v} level", "at my usual level"
                ),
                SlotSpec(
                    "workload",
                    ("2h/wk", "4h/wk", "6h/wk", "10h/wk"),
                    "with about {v}",
                    "within my usual weekly workload",
                ),
                _budget("$0", "$50", "$100", "$200", implicit="within my usual course budget"),
                SlotSpec(
                    "rating", ("4.5+", "4.6+", "4.7+", "4.8+"), "rated {v}", "that meet my usual rating bar"
                ),
            ),
            "search_courses",
            "enroll",
            ("web_search", "web_visit", "purchase", "review_rating"),
        ),
        # A personal-app domain: the paper's Notion-vs-Obsidian habit case lives here.
        DomainSpec(
            "notes",
            "note taking",
            ("meeting notes", "a reading list", "a trip plan", "a project log", "a weekly review"),
            (
                _site(
                    "notion.so",
                    "obsidian.md",
                    "evernote.com",
                    "onenote.com",
                    implicit="in my usual notes app",
                ),
                SlotSpec(
                    "format", ("markdown", "checklist", "outline", "table"), "as a {v}", "in my usual format"
                ),
                SlotSpec(
                    "folder",
                    ("work", "personal", "research", "journal"),
                    "in the {v} folder",
                    "in my usual folder",
                ),
            ),
            "search_notes",
            "save_note",
            ("web_visit", "web_search"),
            "Save",
        ),
    )
}
