"""The one definition of each reading metric.

A predicted fact matches a gold fact of the same statement when argument, value (folded; typed
values canonical) and polarity agree; matching is one-to-one, in gold order. Then, per field:

- `argument`: precision / recall of (argument) alone, one-to-one;
- `argument+value`: matched predictions / predictions, matched gold facts / gold facts;
- `holder`, `kind`, `lasting`, `withdrawal`, `revision`: a gold fact counts for recall when it is
  matched and the field agrees; a prediction counts for precision likewise. (Holder: class and, when
  both name one, the name, case-folded. Kind: equal. Withdrawal: equal `withdraws`. Revision: equal
  `revises` value.) For `withdrawal`, `revision` and `condition` only facts that have the field
  (gold for recall, predicted for precision) are counted, so a reader that never withdraws scores
  recall 0, not 1;
- `condition`: a gold condition is found when the matched prediction's condition shares at least
  half of its content words (token F1 >= 0.5); precision over predicted non-empty conditions;
- `holder_given_match`, `kind_given_match`: accuracy over matched pairs only;
- `other_as_user`: gold facts held by someone else that were read as the user's (matched pairs),
  over matched non-user gold facts: the error that makes a memory hold a call on a colleague's word.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pulse.core.values import fold
from pulse.reading.facts import ReadFact
from pulse.reading.lexicon import content_words

FIELDS = ("argument", "argument+value", "holder", "kind", "condition", "withdrawal", "revision", "lasting")


def _same_value(a: ReadFact, b: ReadFact) -> bool:
    return a.argument == b.argument and fold(a.value) == fold(b.value) and a.polarity == b.polarity


def same_holder(gold: str, pred: str) -> bool:
    g_cls, _, g_name = gold.partition(":")
    p_cls, _, p_name = pred.partition(":")
    if g_cls != p_cls:
        return False
    return not g_name or not p_name or _name(g_name) == _name(p_name)


def _name(name: str) -> str:
    return "".join(ch for ch in fold(name) if ch.isalnum())


def condition_found(gold: str, pred: str) -> bool:
    g, p = set(content_words(gold)), set(content_words(pred))
    if not g or not p:
        return False
    inter = len(g & p)
    if not inter:
        return False
    prec, rec = inter / len(p), inter / len(g)
    return 2 * prec * rec / (prec + rec) >= 0.5


def match(gold: Sequence[ReadFact], pred: Sequence[ReadFact]) -> list[tuple[ReadFact, ReadFact]]:
    free = list(pred)
    pairs = []
    for g in gold:
        hit = next((p for p in free if _same_value(g, p)), None)
        if hit is not None:
            free.remove(hit)
            pairs.append((g, hit))
    return pairs


@dataclass
class Counts:
    """Hits and totals per field (precision: hits_p / n_pred; recall: hits_r / n_gold)."""

    hits_p: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    hits_r: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    n_pred: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    n_gold: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    matched: int = 0
    holder_ok: int = 0
    kind_ok: int = 0
    other_gold_matched: int = 0
    other_as_user: int = 0
    statements: int = 0
    empty_statements: int = 0
    empty_with_facts: int = 0

    def add(self, gold: Sequence[ReadFact], pred: Sequence[ReadFact]) -> None:
        self.statements += 1
        if not gold:
            self.empty_statements += 1
            self.empty_with_facts += bool(pred)
        pairs = match(gold, pred)
        self.matched += len(pairs)
        # argument alone, one-to-one
        free = [p.argument for p in pred]
        arg_hits = 0
        for g in gold:
            if g.argument in free:
                free.remove(g.argument)
                arg_hits += 1
        self._count("argument", arg_hits, arg_hits, len(pred), len(gold))
        self._count("argument+value", len(pairs), len(pairs), len(pred), len(gold))
        for name, ok in (
            ("holder", lambda g, p: same_holder(g.holder, p.holder)),
            ("kind", lambda g, p: g.kind == p.kind),
            ("lasting", lambda g, p: g.lasting == p.lasting),
        ):
            hits = sum(1 for g, p in pairs if ok(g, p))
            self._count(name, hits, hits, len(pred), len(gold))
        cond_hits = sum(1 for g, p in pairs if g.condition and condition_found(g.condition, p.condition))
        cond_prec = sum(1 for g, p in pairs if p.condition and condition_found(g.condition, p.condition))
        self._count(
            "condition",
            cond_prec,
            cond_hits,
            sum(1 for p in pred if p.condition),
            sum(1 for g in gold if g.condition),
        )
        wd_r = sum(1 for g, p in pairs if g.withdraws and p.withdraws)
        self._count(
            "withdrawal", wd_r, wd_r, sum(1 for p in pred if p.withdraws), sum(1 for g in gold if g.withdraws)
        )
        rv_r = sum(1 for g, p in pairs if g.revises and fold(g.revises) == fold(p.revises))
        self._count(
            "revision", rv_r, rv_r, sum(1 for p in pred if p.revises), sum(1 for g in gold if g.revises)
        )
        self.holder_ok += sum(1 for g, p in pairs if same_holder(g.holder, p.holder))
        self.kind_ok += sum(1 for g, p in pairs if g.kind == p.kind)
        others = [(g, p) for g, p in pairs if g.holder_class != "user"]
        self.other_gold_matched += len(others)
        self.other_as_user += sum(1 for _, p in others if p.holder == "user")

    def _count(self, name: str, hp: int, hr: int, n_pred: int, n_gold: int) -> None:
        self.hits_p[name] += hp
        self.hits_r[name] += hr
        self.n_pred[name] += n_pred
        self.n_gold[name] += n_gold

    def table(self) -> dict[str, dict[str, float | int | None]]:
        out: dict[str, dict[str, float | int | None]] = {}
        for f in FIELDS:
            p = self.hits_p[f] / self.n_pred[f] if self.n_pred[f] else None
            r = self.hits_r[f] / self.n_gold[f] if self.n_gold[f] else None
            out[f] = {
                "precision": None if p is None else round(p, 4),
                "recall": None if r is None else round(r, 4),
                "n_pred": self.n_pred[f],
                "n_gold": self.n_gold[f],
            }
        return out

    def summary(self) -> dict[str, float | int | None]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "statements": self.statements,
            "gold_facts": self.n_gold["argument+value"],
            "predicted_facts": self.n_pred["argument+value"],
            "matched": self.matched,
            "holder_given_match": ratio(self.holder_ok, self.matched),
            "kind_given_match": ratio(self.kind_ok, self.matched),
            "other_as_user": ratio(self.other_as_user, self.other_gold_matched),
            "no_fact_statements": self.empty_statements,
            "no_fact_statements_read_as_facts": self.empty_with_facts,
        }


def score(examples: Iterable[tuple[Sequence[ReadFact], Sequence[ReadFact]]]) -> Counts:
    c = Counts()
    for gold, pred in examples:
        c.add(gold, pred)
    return c
