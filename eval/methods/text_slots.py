"""The memory side's text -> (slot, value) reading: how the offline stand-ins compare facts.

The simulated task agent does *not* use it: every delivery reaches the agent as text, read by the
suite's own reader (eval/suites/reader.py). Here a text memory's deliveries get the items a
method itself would see in them (`Delivery.items`: shown by `pulse trace`) and the stand-ins'
update decisions compare facts (`eval/methods/standins.py`). `text_items` reads text the same way
for every method:

1. the text is split into lines, each line into sentences;
2. a line that starts with a date (ISO `YYYY-MM-DD`, optionally with a time) dates its sentences
   (`valid_from`; the simulated agent prefers the newest of two values for one slot), otherwise
   the delivery time (`default_time`) does;
3. each sentence is read by `pulse.core.statements.parse_statement` with the tools' published
   vocabulary (`eval.methods.pulse_method.tools_vocab`), the parser Pulse's listener reads request
   and message text with; every slot it states with a value becomes one item (an implicit mention,
   "my usual size", states nothing);
4. a sentence that withdraws a value ("no longer", "does not prefer", "instead of", "was ... until")
   states nothing: a reader would not act on it;
5. the item's kind is `project_state` when the sentence names a project, else `preference`
   (both are binding for the simulated agent: kind only matters to intervention scoring, and
   no text method intervenes).
Item ids are `<method>:<hash of the sentence>`, so the same sentence delivered twice is one item.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from pulse.core.records import MemoryItem, Provenance
from pulse.core.statements import IMPLICIT, SlotTerms, parse_statement

_DATE = re.compile(r"^\W*(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)")
_SENT = re.compile(r"(?<=[.!?;])\s+")
_WITHDRAWN = re.compile(
    r"\b(no longer|not prefer|not anymore|stop using|does not|doesn't|don't|do not|instead of|until)\b", re.I
)
_PROJECT = re.compile(r"\bproject\s+([\w][\w\-]*)", re.I)


def withdrawn(text: str) -> bool:
    """A sentence that withdraws a value (step 4); also the extraction stand-in's cue for a DELETE."""
    return bool(_WITHDRAWN.search(text or ""))


def text_items(
    text: str,
    vocab: Mapping[str, SlotTerms],
    method: str,
    user_id: str,
    default_time: str = "",
    include_withdrawn: bool = False,
) -> tuple[MemoryItem, ...]:
    """`include_withdrawn` (update decisions only): also read what a withdrawing sentence names."""
    out: dict[str, MemoryItem] = {}
    for line in (text or "").splitlines():
        m = _DATE.match(line)
        when = m.group(1).replace(" ", "T") if m else default_time
        for sent in _SENT.split(line.strip()):
            if not sent or (_WITHDRAWN.search(sent) and not include_withdrawn):
                continue
            stated = {k: v for k, v in parse_statement(sent, vocab).items() if v != IMPLICIT}
            if not stated:
                continue
            proj = _PROJECT.search(sent)
            scope = f"project:{proj.group(1).rstrip('.,;:')}" if proj else f"user:{user_id}"
            kind = "project_state" if proj else "preference"
            for slot, value in stated.items():
                iid = f"{method}:{hashlib.blake2b(f'{sent}|{slot}'.encode(), digest_size=6).hexdigest()}"
                out[iid] = MemoryItem(
                    iid,
                    kind,
                    scope,
                    sent.strip(),
                    slot=slot,
                    value=value,
                    provenance=Provenance("history", "", sent.strip()[:200]),
                    valid_from=when,
                )
    return tuple(out.values())
