"""Values a statement gives by their form, not from an enum: quantities, clock times, yes/no
settings, codes, names, free-text notes, time zones.

People give such values in their own words: "half an hour", "a fifth of the bill", "half past
five", "skip the plastic forks", "I'm based in Singapore". This module finds the mentions
(`quantities`, `clock_times`, `codes`, ...) and says which kind of argument each may fill; which
argument of the schema it fills is decided in `offline.py` by what the surrounding words mean
(the argument's name and description through the static word vectors) and by unit agreement
("minutes" never fills a percentage).

Everything here is the language's and the schema's own conventions (number words, units, clock
phrases, the IANA zone list), never one suite's vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_UNITS = {
    "minute": ("minute", "minutes", "min", "mins"),
    "hour": ("hour", "hours", "hr", "hrs"),
    "day": ("day", "days"),
    "week": ("week", "weeks"),
    "percent": ("percent", "per cent", "percentage", "%"),
    "degree": ("degree", "degrees", "°", "°c", "celsius"),
    "money": ("dollar", "dollars", "bucks", "usd", "$", "euros", "eur", "pounds", "quid", "francs"),
    "point": ("point", "points", "pt", "pts"),
    "character": ("character", "characters", "chars", "columns"),
}
# an argument's unit, from the words of its name and description ("Length of the meeting in minutes")
_ARG_UNIT_WORDS = {
    "minute": ("minute", "minutes"),
    "hour": ("hours",),
    "day": ("days",),
    "percent": ("percent", "percentage", "0-100"),
    "degree": ("degree", "degrees", "celsius", "fahrenheit"),
    "money": ("dollar", "dollars", "usd", "currency", "price", "fare", "spend", "budget", "cost", "total"),
    "point": ("points", "point size", "pt"),
    "character": ("characters", "line length"),
    "age": ("age", "years old"),
}
_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split()
)
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_WORD_NUMBER = {w: i for i, w in enumerate(_SMALL)} | _TENS | {"a dozen": 12, "dozen": 12}
_BELOW_100 = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|seven"
    r"|eight|nine))?|" + "|".join(sorted(_SMALL, key=len, reverse=True)) + r")"
)
_SCALES = {"hundred": 100, "thousand": 1000, "grand": 1000}
# "eight hundred", "a thousand", "two thousand five hundred", "a dozen"
_NUMBER_WORD = (
    rf"(?:(?:{_BELOW_100}|a|\d+)[- ](?:hundred|thousand)(?:(?:[- ]and)?[- ]{_BELOW_100}(?:[- ]hundred)?)?"
    rf"(?:(?:[- ]and)?[- ]{_BELOW_100})?|{_BELOW_100}|a dozen)"
)
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT_RE = "|".join(
    re.escape(u) for u in sorted((u for us in _UNITS.values() for u in us), key=len, reverse=True)
)
# "90 minutes", "15-minute", "2,000", "80%", "$20", "twenty minutes", "forty-five"
_QUANTITY = re.compile(
    rf"(?<![\w.:/#-])(?P<cur>\$\s?)?(?P<num>{_NUMBER_WORD}|{_DIGITS})(?![\w:/]|\.\d)"
    rf"(?:\s*-?\s*(?P<unit>{_UNIT_RE})(?![a-z]))?(?P<k>k\b)?",
    re.I,
)
# fractions of a whole: "half an hour", "a quarter of max", "a fifth of the bill", "the halfway mark"
_FRACTION = re.compile(
    r"\b(?:(?P<h90>(?:an|one) hour and a half|one and a half hours|1\.5 hours)"
    r"|(?P<hh>half an? hour)|(?P<qh>(?:a|one) quarter of an hour)|(?P<tqh>three quarters of an hour)"
    r"|(?:an?|one)\s+(?P<part>half|third|quarter|fifth|tenth)\s+of\b"
    r"|(?P<halfway>halfway|half way)|(?P<hour>an hour|(?:a |one |the )?full hour|one hour)"
    r"|(?<!per )(?<!every )(?<!once )(?<!twice )(?P<day>(?:a|a full|one|the) day)(?=\s+(?:before|ahead|early"
    r"|earlier|in advance|prior|beforehand))"
    r"|(?P<fortnight>(?:a |one )?fortnight)|(?P<full>full|maximum|max)"
    r"(?=\s+(?:brightness|volume|power|blast)))",
    re.I,
)
_PARTS = {"half": 50, "third": 33, "quarter": 25, "fifth": 20, "tenth": 10}

# clock times: "07:30", "9:15", "10pm", "8 in the morning", "half past five", "noon"
_HOUR_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CLOCK = re.compile(
    rf"(?<![\w:])(?:(?P<h>\d{{1,2}}):(?P<m>\d{{2}})\s*(?P<ap1>am|pm|a\.m\.|p\.m\.)?"
    rf"|(?P<h2>\d{{1,2}}|{_HOUR_WORD})\s*(?P<ap2>am|pm|a\.m\.|p\.m\.|o'clock)"
    rf"|(?P<half>half past|quarter past|quarter to)\s+(?P<h3>\d{{1,2}}|{_HOUR_WORD})"
    rf"|(?P<h4>\d{{1,2}}|{_HOUR_WORD})\s+in the\s+(?P<part>morning|afternoon|evening)"
    rf"|(?P<h5>\d{{1,2}}|{_HOUR_WORD})\s+at night"
    rf"|(?P<noon>noon|midday|midnight)"
    rf"|(?:at|from|until|till|to|after|before|by)\s+(?P<h6>1[0-2]|[1-9]|{_HOUR_WORD})(?![\w:%]|[.,]\d|\s*(?:minutes|mins"
    rf"|percent|%|degrees|days|hours|people|dollars|bucks|am\b|pm\b|a\.m\.|p\.m\.|o'clock)))",
    re.I,
)
_CODE = re.compile(r"(?<![\w/])(?P<code>[A-Z]{2,}[-_]?\d+[A-Z0-9-]*|[a-z][\w.-]*/[\w.-]*\d[\w.-]*)(?![\w/])")
_PROPER = re.compile(r"(?<![\w'])(?P<name>[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)?)")
_TELL = re.compile(
    r"\b(?:tell|let|inform|remind|ask)\s+(?:the|my|our)\s+\w+(?:\s+know)?\s+(?:that\s+|to\s+)?(?P<note>[^,;.!?]+)",
    re.I,
)


@dataclass(frozen=True)
class Mention:
    """A value found by its form in a text: its character span, canonical value and unit family."""

    start: int
    end: int
    value: str  # canonical: "30", "17:30", "true", "ENG-204"
    unit: str = ""  # a quantity's unit family ("minute", "percent", ...) or ""


def _number(word: str) -> float | None:
    w = word.lower().replace(",", "").strip()
    try:
        return float(w)
    except ValueError:
        pass
    if w in _WORD_NUMBER:
        return float(_WORD_NUMBER[w])
    parts = [p for p in re.split(r"[- ]", w) if p != "and"]
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _WORD_NUMBER:
        return float(_TENS[parts[0]] + _WORD_NUMBER[parts[1]])
    if any(p in _SCALES for p in parts):
        # "eight hundred" = 800; "two thousand five hundred" = 2500; "a thousand" = 1000
        total, group = 0.0, 0.0
        for p in parts:
            if p in _SCALES:
                group = (group or 1.0) * _SCALES[p]
                if _SCALES[p] >= 1000:
                    total, group = total + group, 0.0
            else:
                x = 1.0 if p == "a" else _number(p)
                if x is None:
                    return None
                group += x
        return total + group
    return None


def _unit_family(word: str) -> str:
    w = (word or "").lower()
    return next((fam for fam, us in _UNITS.items() if w in us), "")


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def arg_unit(name: str, description: str) -> str:
    """The unit an argument takes, from its name and description ("" when none is said)."""
    text = f" {name.replace('_', ' ')} {description} ".lower()
    for fam, words in _ARG_UNIT_WORDS.items():
        if any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", text) for w in words):
            return fam
    return ""


def quantities(text: str) -> list[Mention]:
    """Every number the text states, with its unit when one follows ("15-minute" -> 15 minute)."""
    out: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for m in _FRACTION.finditer(text):
        if m.group("h90"):
            out.append(Mention(m.start(), m.end(), "90", "minute"))
        elif m.group("hh"):
            out.append(Mention(m.start(), m.end(), "30", "minute"))
        elif m.group("qh") or m.group("tqh"):
            out.append(Mention(m.start(), m.end(), "15" if m.group("qh") else "45", "minute"))
        elif m.group("hour"):
            out.append(Mention(m.start(), m.end(), "1", "hour"))
        elif m.group("day"):
            out.append(Mention(m.start(), m.end(), "1", "day"))
        elif m.group("fortnight"):
            out.append(Mention(m.start(), m.end(), "2", "week"))
        elif m.group("part"):
            out.append(Mention(m.start(), m.end(), str(_PARTS[m.group("part").lower()]), "percent"))
        elif m.group("halfway"):
            out.append(Mention(m.start(), m.end(), "50", "percent"))
        else:
            out.append(Mention(m.start(), m.end(), "100", "percent"))
        taken.append((m.start(), m.end()))
    for m in _QUANTITY.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        x = _number(m.group("num"))
        if x is None:
            continue
        bare = not (m.group("unit") or m.group("cur") or m.group("k"))
        if bare and text[m.end() : m.end() + 1] == "-":
            continue  # part of a compound word: "one-line", "two-column"
        if bare and 1900 <= x <= 2099 and m.group("num").isdigit():
            continue  # a year
        if bare and m.group("num").lower() == "one" and _PRONOUN_ONE_BEFORE.search(text[: m.start()]):
            continue  # "a short one", "this one", "the blue one": a pronoun, not the number 1
        if m.group("k"):
            x *= 1000
        unit = "money" if m.group("cur") else _unit_family(m.group("unit") or "")
        if bare and (_AGE_BEFORE.search(text[: m.start()]) or _AGE_AFTER.match(text, m.end())):
            unit = "age"  # "she's 14", "my son is 9", "a 12 year old": how old someone is, no amount
        out.append(Mention(m.start(), m.end(), _fmt(x), unit))
    return sorted(out, key=lambda q: q.start)


_MINUTES = {"minute": 1, "hour": 60, "day": 1440, "week": 10080}
_AGE_BEFORE = re.compile(
    r"\b(?:(?:he|she|they|son|daughter|kid|kids|child|children|boy|girl|baby)(?:'s| is| are)"
    r"|(?:is|are) now|aged?)\s+$",
    re.I,
)
_AGE_AFTER = re.compile(r"[\s-]*(?:years?|yrs?)[\s-]*old\b", re.I)
# what makes "one" a pronoun: a determiner right before it, or before one describing word
_PRONOUN_ONE_BEFORE = re.compile(
    r"\b(?:a|an|the|this|that|which|each|every|another|any|no|my|your|our|their|his|her|its)\s+"
    r"(?:[a-z]+(?:-[a-z]+)?\s+)?$",
    re.I,
)


def same_amount(a: Mention, b: Mention) -> bool:
    """The same amount: equal numbers where a unit is missing or shared, or equal spans of time
    ("72 hours" is "three days")."""
    if a.unit in _MINUTES and b.unit in _MINUTES:
        return float(a.value) * _MINUTES[a.unit] == float(b.value) * _MINUTES[b.unit]
    return a.value == b.value and (not a.unit or not b.unit or a.unit == b.unit)


def compound_numbers(text: str) -> set[str]:
    """Numbers inside compound words ("4-space", "two-column"), which `quantities` leaves out because
    they describe a thing rather than state an amount."""
    out = set()
    for m in re.finditer(rf"(?<![\w.])({_DIGITS}|{_BELOW_100})-[a-z]", text, re.I):
        x = _number(m.group(1))
        if x is not None:
            out.add(_fmt(x))
    return out


def in_unit(q: Mention, unit: str) -> str | None:
    """`q`'s value in an argument's unit: hours become minutes; a clash ("minutes" for a percentage,
    or for an argument that names no unit) is None; a bare number fits any unit."""
    if not q.unit or q.unit == unit:
        return q.value
    if q.unit == "hour" and unit == "minute":
        return _fmt(float(q.value) * 60)
    if q.unit == "day" and unit == "hour":
        return _fmt(float(q.value) * 24)
    return None


def clock_times(text: str) -> list[Mention]:
    """Clock times as HH:MM (24h). A bare hour from 1 to 6 is read as afternoon (people say "after
    five" for 17:00), 7 to 11 as morning, unless am/pm or the part of the day says otherwise."""
    out = []
    for m in _CLOCK.finditer(text):
        g = m.groupdict()
        if g["noon"]:
            hh, mm = (0 if g["noon"].lower() == "midnight" else 12), 0
        else:
            raw = g["h"] or g["h2"] or g["h3"] or g["h4"] or g["h5"] or g["h6"]
            n = _number(raw)
            if n is None or not 0 <= n <= 24:
                continue
            hh, mm = int(n), int(g["m"] or 0)
            if g["half"]:
                half = g["half"].lower()
                hh, mm = (hh - 1, 45) if half == "quarter to" else (hh, 30 if half == "half past" else 15)
            ap = (g["ap1"] or g["ap2"] or "").lower().replace(".", "")
            part = (g["part"] or "").lower()
            if ap == "pm" or part in ("afternoon", "evening") or g["h5"]:
                hh = hh + 12 if hh < 12 else hh
            elif ap == "am" or part == "morning":
                hh = 0 if hh == 12 else hh
            elif not g["h"] and 1 <= hh <= 6:
                hh += 12
            if not (0 <= hh < 24 and 0 <= mm < 60):
                continue
        start = m.start("h6") if g["h6"] else m.start()  # "from nine": the time, not the preposition
        out.append(Mention(start, m.end(), f"{hh:02d}:{mm:02d}"))
    return out


# the parts of the day a clock hour falls in, most specific first (the words enum values use for them)
_DAY_PARTS = (
    (range(5, 8), ("early morning", "morning")),
    (range(8, 12), ("morning",)),
    (range(12, 14), ("lunchtime", "lunch", "midday", "noon")),
    (range(14, 17), ("afternoon",)),
    (range(17, 21), ("evening",)),
    (range(21, 24), ("late evening", "night", "evening")),
    (range(0, 5), ("night", "late night")),
)


def day_parts(clock: str) -> tuple[str, ...]:
    """The words for the part of the day a clock time ("18:00") falls in ("evening",)."""
    hour = int(clock.split(":")[0])
    return next((words for hours, words in _DAY_PARTS if hour in hours), ())


def codes(text: str) -> list[Mention]:
    """Identifiers written as codes or paths: "ENG-204", "release/2.4"."""
    return [Mention(m.start(), m.end(), m.group("code")) for m in _CODE.finditer(text)]


def proper_names(text: str, skip: frozenset[str]) -> list[Mention]:
    """Capitalised words inside a sentence (not its first word): brands, venues, programmes."""
    out = []
    for m in _PROPER.finditer(text):
        name = m.group("name")
        first = name.split()[0]
        at_start = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1:] in ".!?:;\"'("
        if at_start or first in skip:
            continue
        out.append(Mention(m.start(), m.end(), name))
    return out


def notes(text: str) -> list[Mention]:
    """What the user asks to be told to someone: "tell the airline that I travel with a hearing aid"."""
    out = []
    for m in _TELL.finditer(text):
        note = m.group("note").strip()
        if len(note.split()) >= 2:
            out.append(Mention(m.start("note"), m.start("note") + len(note), note))
    return out


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """City or region name (lowercase, spaces) -> IANA zone, from the system's zone list."""
    try:
        from zoneinfo import available_timezones

        names = available_timezones()
    except Exception:  # no tz database on this system: no zone is read
        return {}
    out: dict[str, str] = {}
    for z in sorted(names):
        if "/" not in z or z.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            continue
        out.setdefault(z.rsplit("/", 1)[1].replace("_", " ").lower(), z)
    return out


def time_zones(text: str) -> list[Mention]:
    """IANA zones named by their city ("I'm based in Singapore" -> Asia/Singapore) or by name."""
    out = []
    zones = _zones()
    for m in re.finditer(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\b|\b[A-Z][a-z]+/[A-Z][A-Za-z_]+\b", text):
        word = m.group(0)
        if "/" in word:
            out.append(Mention(m.start(), m.end(), word))
            continue
        zone = zones.get(word.lower()) or zones.get(word.split()[0].lower())
        if zone:
            out.append(Mention(m.start(), m.end(), zone))
    return out


__all__ = [
    "Mention",
    "arg_unit",
    "clock_times",
    "codes",
    "in_unit",
    "notes",
    "proper_names",
    "quantities",
    "time_zones",
]
