"""Annotated statements: the hand-written set in `eval/reading/data/` and the suites' seed statements.

An `Example` is one statement with the schema it is read against and its gold facts. The hand-written
files are validated on load (each fact's tool, argument and enum value exist; a condition is a span of
the text); an error names the file, the statement id and the key.

The suites' seed statements (`suite_examples`) come from a generated suite's personas: every memory
item whose provenance is a user statement of the seed history is that statement's gold fact (its
scope names the holder: the persona's own user scope is the user, another user scope a colleague),
read against the persona's tools.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulse.core.errors import PulseUserError
from pulse.core.values import fold
from pulse.reading.facts import KINDS, POLARITIES, ReadFact, Schema
from pulse.utils.json_input import read_json_file

DATA_DIR = Path(__file__).parent / "data"
_FACT_KEYS = (
    "tool",
    "argument",
    "value",
    "polarity",
    "holder",
    "kind",
    "condition",
    "lasting",
    "withdraws",
    "revises",
)


class DatasetError(PulseUserError, ValueError):
    """An annotated file that cannot be scored (the message names file, statement and key)."""


@dataclass(frozen=True)
class Example:
    """One statement to read: its text, the schema of its tools, its project and its gold facts."""

    id: str
    source: str  # a domain of the hand-written set, or "<suite>:s<seed>"
    text: str
    schema: Schema
    gold: tuple[ReadFact, ...]
    project: str = ""  # the project the statement was made in (seed sessions), "" otherwise


def load_annotated(data_dir: str | Path = DATA_DIR, domains: Iterable[str] = ()) -> list[Example]:
    root = Path(data_dir)
    files = sorted(root.glob("*.json"))
    if not files:
        raise DatasetError(f"{root}: no annotated *.json files")
    want = set(domains)
    out: list[Example] = []
    seen: set[str] = set()
    for path in files:
        doc = read_json_file(path, DatasetError)
        domain = str(doc.get("domain") or path.stem)
        if want and domain not in want:
            continue
        try:
            schema = Schema.from_json_tools(doc.get("tools") or [])
        except ValueError as e:
            raise DatasetError(f"{path}: tools: {e}") from None
        for i, st in enumerate(doc.get("statements") or []):
            where = f"{path}: statements[{i}] ({st.get('id', '?')})"
            sid, text = st.get("id"), st.get("text")
            if not sid or not isinstance(text, str) or not text.strip():
                raise DatasetError(f"{where}: needs a non-empty 'id' and 'text'")
            if sid in seen:
                raise DatasetError(f"{where}: duplicate id {sid!r}")
            seen.add(sid)
            gold = tuple(
                _fact(f, schema, text, f"{where}: facts[{j}]") for j, f in enumerate(st.get("facts") or [])
            )
            out.append(Example(sid, domain, text, schema, gold))
    return out


def _fact(d: Any, schema: Schema, text: str, where: str) -> ReadFact:
    if not isinstance(d, dict):
        raise DatasetError(f"{where}: a fact is an object")
    missing = [k for k in _FACT_KEYS if k not in d]
    if missing:
        raise DatasetError(f"{where}: missing key(s) {', '.join(missing)}")
    arg = str(d["argument"])
    if arg not in schema.by_name:
        raise DatasetError(f"{where}: argument {arg!r} is in no tool of this file")
    if d["tool"] and d["tool"] not in {a.tool for a in schema.by_name[arg]}:
        raise DatasetError(f"{where}: tool {d['tool']!r} has no argument {arg!r}")
    values = schema.values(arg)
    value = str(d["value"])
    if values and value not in values:
        raise DatasetError(f"{where}: value {value!r} is not one of {arg}'s values {list(values)}")
    if d["polarity"] not in POLARITIES or d["kind"] not in KINDS:
        raise DatasetError(f"{where}: polarity must be one of {POLARITIES}, kind one of {KINDS}")
    if not isinstance(d["lasting"], bool) or not isinstance(d["withdraws"], bool):
        raise DatasetError(f"{where}: lasting and withdraws are true or false")
    if d["kind"] == "decision" and d["holder"] == "user":
        raise DatasetError(f"{where}: a decision is a team's, a project's or a person's, not the user's")
    if d["kind"] == "requirement" and d["lasting"]:
        raise DatasetError(f"{where}: a requirement of the current task is not lasting")
    revises = str(d["revises"] or "")
    if revises and (revises == value or (values and revises not in values)):
        raise DatasetError(f"{where}: revises {revises!r} must be another of {arg}'s values")
    cond = str(d["condition"] or "")
    if cond and fold(cond) not in fold(text):
        raise DatasetError(f"{where}: condition {cond!r} is not a span of the text")
    try:
        return ReadFact(
            argument=arg,
            value=value,
            tool=str(d["tool"] or ""),
            polarity=d["polarity"],
            holder=str(d["holder"]),
            kind=d["kind"],
            condition=cond,
            lasting=bool(d["lasting"]),
            withdraws=bool(d["withdraws"]),
            revises=str(d["revises"] or ""),
        )
    except ValueError as e:
        raise DatasetError(f"{where}: {e}") from None


def suite_examples(suite: Any) -> list[Example]:
    """Seed statements of a generated suite with their gold facts (see the module docstring). A suite
    without a written history has its seed sessions rendered from its seed memory, one statement per
    fact (`eval.methods.seed.statement`), as every method sees them."""
    from eval.methods.seed import statement

    out: list[Example] = []
    for persona in suite.personas:
        if not persona.history:
            schema = Schema.from_schema_tools(persona.tools)
            for k, item in enumerate(persona.memory):
                if item.kind == "project_state" or not item.slot or item.slot not in schema.by_name:
                    continue
                kind = "habit" if item.kind == "habit" else "preference"
                gold = ReadFact(item.slot, item.value, kind=kind, condition=item.conditions)
                out.append(
                    Example(
                        f"{suite.name}:s{suite.seed}:{persona.user_id}:{k}",
                        f"{suite.name}:s{suite.seed}",
                        statement(item, revised=bool(item.supersedes)),
                        schema,
                        (gold,),
                    )
                )
            continue
        schema = Schema.from_schema_tools(persona.tools)
        own = f"user:{persona.user_id}"
        by_quote: dict[str, list[ReadFact]] = {}
        for item in persona.memory:
            prov = item.provenance
            if prov.source_kind != "user_statement" or not prov.quote or not item.slot:
                continue
            if item.slot not in schema.by_name:
                continue
            if item.scope.startswith("user:"):
                holder = "user" if item.scope == own else f"person:{item.scope[5:]}"
            else:
                holder = f"project:{item.scope[8:]}"
            kind = {"habit": "habit", "project_state": "decision"}.get(item.kind, "preference")
            by_quote.setdefault(prov.quote, []).append(
                ReadFact(
                    item.slot,
                    item.value,
                    polarity="prefer",
                    holder=holder,
                    kind=kind,
                    condition=item.conditions,
                )
            )
        projects = {t.text: s.project_id for s in persona.history for t in s.turns if t.role == "user"}
        for k, (quote, gold) in enumerate(by_quote.items()):
            out.append(
                Example(
                    f"{suite.name}:s{suite.seed}:{persona.user_id}:{k}",
                    f"{suite.name}:s{suite.seed}",
                    quote,
                    schema,
                    tuple(gold),
                    projects.get(quote, ""),
                )
            )
    return out
