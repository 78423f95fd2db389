"""Persona2Web gold and its normalisation (the data have typos, odd domains and two city spellings).

Gold per task group (`task_groups.jsonl`): the level-2 bold values (the user's preferences), the
level-3 website (possibly "a.com or b.com") and location. Normalisation:
- site: lower case, no scheme / "www." / path / spaces; a doubled TLD such as "coursera.org.com",
  "recreation.gov.com", "last.fm.com" loses its trailing ".com"; "Google Flights.com" is google.com.
  An opened site matches a gold site when it is the same domain or a subdomain of it.
- value: lower case, no markdown bold, unicode dashes and ≥/≤ spelled in ASCII, thousands separators
  dropped, whitespace collapsed. A gold value is satisfied when it occurs in the agent's normalised
  text (so the truncated typo "Beyonc" is satisfied by "Beyonce").
- location: its 5-digit zip code when it has one ("New York, New York 10001" = "New York, NY 10001"),
  else the city.
"""

from __future__ import annotations

import re

_ALIASES = {"googleflights.com": "google.com"}
_DOUBLE_TLD = re.compile(r"\.(org|gov|fm|net)\.com$")


def normalise_site(site: str) -> str:
    s = site.strip().lower()
    s = re.sub(r"^[a-z]+://", "", s)
    s = s.removeprefix("www.")
    s = s.split("/")[0].replace(" ", "")
    s = _DOUBLE_TLD.sub(r".\1", s)
    return _ALIASES.get(s, s)


def gold_sites(site: str) -> tuple[str, ...]:
    """The acceptable sites of a level-3 website string ("a.com or b.com" -> both)."""
    return tuple(normalise_site(p) for p in re.split(r"\s+or\s+", site.strip(), flags=re.I) if p.strip())


def site_matches(opened: str, gold: tuple[str, ...]) -> bool:
    o = normalise_site(opened)
    return any(o == g or o.endswith("." + g) for g in gold)


def normalise_text(text: str) -> str:
    t = text.lower().replace("**", "")
    for a, b in (
        ("–", "-"),
        ("—", "-"),
        ("≥", ">="),
        ("≤", "<="),
        ("’", "'"),
        ("‘", "'"),
        ("“", '"'),
        ("”", '"'),
    ):
        t = t.replace(a, b)
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    return re.sub(r"\s+", " ", t).strip(" .;:")


def value_satisfied(value: str, text_norm: str) -> bool:
    v = normalise_text(value)
    return bool(v) and v in text_norm


def location_key(location: str) -> str:
    m = re.search(r"\b\d{5}\b", location or "")
    return m.group(0) if m else normalise_text((location or "").split(",")[0])


_DOMAIN = re.compile(r"\b([a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|gov|net|fm|io))\b", re.I)


def sites_in(text: str) -> list[str]:
    """Domains a request names (what a request-only agent could open)."""
    return [m.group(1) for m in _DOMAIN.finditer(text.replace("**", ""))]
