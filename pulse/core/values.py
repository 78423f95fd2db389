"""Values compared by their type, not as strings: the one canonical form per kind of argument.

A tool argument's kind comes from its JSON schema (`pulse.agent.schema.arg_kind`); memory values
and call arguments are brought to the same canonical form before they are compared, so
`https://www.SeatGeek.com/events` and `seatgeek.com` are one site, `3.0` and `3` one number,
`["b", "a"]` and `a, b` one set, `2024-05-01T10:00` and `2024-05-01` one date, `New  York` and
`new york` one string.

Kinds: `domain` (a URL or domain), `email`, `number`, `date`, `set` (an array), `text` (free text:
a value is consistent with it when it occurs in it), `enum` / `string` (case and spacing folded).
`""` is treated as `string`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

VALUE_KINDS: tuple[str, ...] = ("domain", "email", "number", "date", "set", "text", "enum", "string")

# a domain ends in a common top-level domain, so "J.Crew" or "v2.5" is not read as one
_TLDS = (
    "com|org|net|gov|edu|io|co|fm|tv|us|uk|ca|de|fr|it|es|nl|au|jp|in|info|biz|app|dev|ai|me|ly|gg|travel|"
    "shop|store|online|site"
)
DOMAIN = re.compile(
    r"(?<![\w@.-])((?:https?://)?(?:www\.)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:"
    + _TLDS
    + r")(?![\w-])(?:/[^\s,;)]*)?)",
    re.I,
)
EMAIL = re.compile(r"(?<![\w.+-])([\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.I)
NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:,\d{3})*(?:\.\d+)?)(?![\w])")
DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2})?)?")
_SPACE = re.compile(r"\s+")
# the typed patterns a statement can state a value with (pulse.core.statements)
PATTERNS = {"domain": DOMAIN, "email": EMAIL, "number": NUMBER, "date": DATE}


def fold(text: str) -> str:
    """Case and spacing folded (unicode dashes as '-')."""
    t = str(text).replace("–", "-").replace("—", "-")
    return _SPACE.sub(" ", t).strip().lower()


def canonical_domain(value: str) -> str:
    s = fold(value)
    s = re.sub(r"^[a-z]+://", "", s).removeprefix("www.")
    return s.split("/")[0].replace(" ", "").rstrip(".")


def _number(value: str) -> str:
    s = fold(value).replace(",", "").lstrip("$")
    try:
        f = float(s)
    except ValueError:
        return fold(value)
    return str(int(f)) if f == int(f) else repr(f)


def _set(value: str) -> str:
    v = str(value).strip()
    items: list[str]
    try:
        parsed = json.loads(v)
        items = [str(x) for x in parsed] if isinstance(parsed, list) else [v]
    except (ValueError, RecursionError):  # not a JSON list (or nested past the parser): split the text
        items = re.split(r"\s*[,;]\s*|\s+and\s+", v)
    return ", ".join(sorted({fold(x) for x in items if fold(x)}))


def canonical(kind: str, value: str) -> str:
    """The canonical form of `value` for an argument of `kind` (see the module docstring)."""
    value = "" if value is None else str(value)
    if kind == "domain":
        return canonical_domain(value)
    if kind == "number":
        return _number(value)
    if kind == "date":
        m = DATE.search(value)
        return m.group(1) if m else fold(value)
    if kind == "set":
        return _set(value)
    if kind == "email":
        return fold(value)
    return fold(value)


def same_value(kind: str, a: str, b: str) -> bool:
    """Whether memory value `a` and argument value `b` are the same (text: `a` occurs in `b`)."""
    if kind == "text":
        ca, cb = fold(a), fold(b)
        return bool(ca) and ca in cb
    if kind == "domain":
        ca, cb = canonical_domain(a), canonical_domain(b)
        return ca == cb or cb.endswith("." + ca) or ca.endswith("." + cb)
    return canonical(kind, a) == canonical(kind, b)


# A memory value the user rejects: "not:gift_card" = anything but gift_card ("never refund to a gift
# card"); several rejected values of one slot are one record, "not:paypal|gift_card" ("never PayPal or a
# gift card"). Several values wanted in one breath are one record too, "any:zoom|teams" ("Zoom or Teams
# is fine"). One rule for every comparison of a memory value with a call's value: `allows`.
AVOID = "not:"
ONE_OF = "any:"
VALUE_SEP = "|"


def avoid_value(values: Iterable[str]) -> str:
    """The memory value that rejects each of `values` (in order, once each)."""
    return AVOID + VALUE_SEP.join(dict.fromkeys(values))


def one_of_value(values: Iterable[str]) -> str:
    """The memory value that accepts any of `values` (a single value stays itself)."""
    vals = list(dict.fromkeys(values))
    return vals[0] if len(vals) == 1 else ONE_OF + VALUE_SEP.join(vals)


def avoided(value: str) -> tuple[str, ...]:
    """The values a memory value rejects (() when it states a value)."""
    return tuple(str(value)[len(AVOID) :].split(VALUE_SEP)) if str(value).startswith(AVOID) else ()


def wanted(value: str) -> tuple[str, ...]:
    """The values a memory value accepts (() when it rejects values)."""
    value = str(value)
    if value.startswith(AVOID):
        return ()
    return tuple(value[len(ONE_OF) :].split(VALUE_SEP)) if value.startswith(ONE_OF) else (value,)


def allows(memory_value: str, call_value: str, kind: str = "") -> bool:
    """Whether a call's value agrees with a memory value: the same value (one of them, for `ONE_OF`),
    or, for rejected values (`AVOID`), any other. `kind` compares typed values canonically
    (`same_value`); "" = as strings."""
    rejected = avoided(memory_value)
    if rejected:
        return not any(same_value(kind, r, call_value) if kind else r == call_value for r in rejected)
    return any(same_value(kind, w, call_value) if kind else w == call_value for w in wanted(memory_value))


def find_typed(kind: str, text: str) -> list[tuple[int, str]]:
    """(position, canonical value) of every value of `kind` stated in `text` (typed kinds only)."""
    pat = PATTERNS.get(kind)
    if pat is None:
        return []
    out = []
    for m in pat.finditer(text or ""):
        raw = m.group(1)
        if kind == "domain" and "@" in (text or "")[max(0, m.start() - 1) : m.start()]:
            continue
        out.append((m.start(), canonical(kind, raw)))
    return out
