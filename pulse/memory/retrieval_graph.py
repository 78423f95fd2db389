"""Graph retrieval over the Topic graph and project memory (paper §3.2 / App. A.1).

For each scope (the user, then the project) at the information cutoff:
1. locate Topics: each Topic node is scored by the similarity of its centroid (mean of its facts'
   vectors; with the lexical BM25 embedder, its best fact) to the query — the subgoal plus the
   candidate call's tool and arguments — plus a bonus when the Topic's name occurs in the query or
   it holds an entity the query names; the top `topics_to_locate` nodes are located;
2. expand along relations: the located Topics' subtopics, their parent Topics, facts linked into
   them from other Topics (cross-topic links), every fact that shares an entity the query names,
   facts whose slot is a candidate-call argument, workflows that use the candidate tool;
3. select evidence among those facts only: step relevance (similarity + structural bonuses),
   temporal validity (records valid at the cutoff; superseded versions never count as current;
   task-scoped records only inside their task), information gain (nothing already delivered,
   nothing restating a selected or delivered slot value, no near-duplicate sentence). Information
   gain is measured against what the task agent acts on: a delivered fact whose slot the candidate
   call sets to a *different* value was evidently not taken up, so it counts as new again (it is
   the evidence a pre-commit intervention needs).
The steps are named stages of `GraphRetriever.candidates`: `_locate`, `_expand`, `_score_pool` and
`GraphRetriever._select`. Only the located slices of the embedding matrix are scored, so latency
grows with the located Topics' size, not the whole memory. Each item carries the reason it was
selected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from pulse.memory.candidates import Candidate, seen_at
from pulse.memory.query_features import QueryFeatures
from pulse.memory.scope_index import ScopeIndex
from pulse.utils.topk import top_k


@dataclass(frozen=True)
class GraphRetrievalConfig:
    """The graph retriever's knobs: how many Topics are located, the bonuses of each relation, and
    the relevance and duplicate thresholds of selection."""

    # How many Topic nodes are located per scope before expansion.
    topics_to_locate: int = 3
    # A Topic is located only if its score (centroid similarity + bonuses) reaches this.
    min_topic_score: float = 0.15
    # Topic-location bonus when a Topic's own name word occurs in the query.
    topic_name_bonus: float = 0.3
    # Topic-location bonus when the Topic holds an entity the query names.
    topic_entity_bonus: float = 0.2
    # Relevance bonus (added to similarity) for a fact of a located Topic (incl. cross-topic links).
    located_bonus: float = 0.25
    # Relevance bonus for a fact reached by expansion (subtopic, parent Topic).
    expanded_bonus: float = 0.2
    # Relevance bonus per query entity the fact mentions (capped at two).
    entity_bonus: float = 0.2
    # Relevance bonus when the fact's slot is an argument of the candidate call.
    slot_bonus: float = 0.35
    # Relevance bonus for a workflow / state record that uses the candidate call's tool.
    tool_bonus: float = 0.3
    # Selected evidence needs relevance (max(similarity, 0) + bonuses) >= this.
    min_score: float = 0.2
    # Two dense vectors this similar are the same statement: the second adds no information.
    duplicate_similarity: float = 0.97


class GraphRetriever:
    """Graph retrieval (the module docstring's three steps) over one scope's `ScopeIndex`.

    `candidates(ix, qrep, f, task_id, delivered, k)`: `qrep` is the query's representation from the
    index's embedder (a unit vector for a dense embedder, the embedder's lexical query otherwise),
    `f` the query's features (`QueryFeatures`: words, entities, the candidate call's argument slots,
    the cutoff), `delivered` the item ids already delivered this task. Returns at most
    `k + (delivered items that qualify)` `Candidate`s, best first, each with its score, its item
    (made on access) and the reason it was selected; [] for an empty scope or an empty pool.
    """

    name = "graph"

    def __init__(self, config: GraphRetrievalConfig | None = None):
        self.config = config or GraphRetrievalConfig()

    def candidates(
        self, ix: ScopeIndex, qrep: Any, f: QueryFeatures, task_id: str, delivered: set[str], k: int
    ) -> list[Candidate]:
        """The selected candidates of one scope: locate entry points, expand through the graph, score the pool
        and select (empty when nothing is reached)."""
        cfg = self.config
        if len(ix) == 0:
            return []
        dense = ix.vectors is not None
        full = None if dense else np.asarray(ix.scores.scores(qrep), np.float32)  # lexical: scores are cheap
        loc = _locate(cfg, ix, qrep, f, task_id, full)
        exp = _expand(cfg, ix, f, loc)
        if not exp.ranges and not exp.gathered:
            return []
        pool = _score_pool(ix, qrep, f, task_id, exp, full)
        if pool is None:
            return []
        return self._select(ix, f, delivered, k, loc, exp, pool)

    def _select(
        self,
        ix: ScopeIndex,
        f: QueryFeatures,
        delivered: set[str],
        k: int,
        loc: _Located,
        exp: _Expansion,
        pool: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> list[Candidate]:
        """Step 3's selection: the best-scoring valid facts with information gain (nothing delivered,
        nothing restating a known slot value, no near-duplicate), plus the delivered ones that qualify
        (marked `delivered`; a delivered fact the candidate call contradicts counts as new again)."""
        cfg = self.config
        pidx, raw, final = pool
        dense = ix.vectors is not None
        d_pos = {ix.pos[i] for i in delivered if i in ix.pos}
        reopened: set[int] = set()
        if f.arg_slots:  # delivered, but the candidate call contradicts it: not known to the agent
            reopened = {i for i in d_pos if self._contradicted(ix, i, f)}
            d_pos -= reopened
        keep = final >= cfg.min_score
        pidx, raw, final = pidx[keep], raw[keep], final[keep]
        top_n = min(len(pidx), 4 * k + len(d_pos))
        sel = top_k(final, top_n)

        known_values = {(ix.item_slot[i], ix.item_value[i]) for i in d_pos if ix.item_slot[i]}
        # similarities among the few facts in selection order, for the near-duplicate check
        gram = ix.vectors[pidx[sel]] @ ix.vectors[pidx[sel]].T if dense and len(sel) > 1 else None
        # rows with no near-duplicate before them in selection order can skip the check below (the
        # same outcome: only an earlier row can be among the chosen)
        may_dup = (
            np.triu(gram >= cfg.duplicate_similarity, 1).any(axis=0).tolist() if gram is not None else None
        )
        chosen: list[int] = []  # positions in `sel` of the facts taken
        out: list[Candidate] = []
        loc_set = set(loc.located)
        for r, j in enumerate(sel.tolist()):
            i = int(pidx[j])
            if len(out) >= k + len(d_pos):
                break
            is_delivered = i in d_pos
            sv = (ix.item_slot[i], ix.item_value[i])
            if not is_delivered:
                if sv[0] and sv in known_values:
                    continue  # restates a delivered/selected value: no information gain
                if may_dup and may_dup[r] and chosen:
                    if float(gram[r, chosen].max()) >= cfg.duplicate_similarity:
                        continue
                if sv[0]:
                    known_values.add(sv)
                chosen.append(r)
            reason = partial(
                self._reason,
                ix,
                i,
                float(raw[j]),
                loc_set,
                loc.how,
                exp.expanded_via,
                loc.ent_hits,
                exp.slot_hit,
                f,
                i in reopened,
            )
            out.append(
                Candidate(
                    score=float(final[j]),
                    item=partial(seen_at, ix.items, i, f.as_of),
                    reason=reason,
                    delivered=is_delivered,
                )
            )
        return out

    @staticmethod
    def _contradicted(ix: ScopeIndex, i: int, f: QueryFeatures) -> bool:
        sk = ix.item_slot[i]
        if not sk:
            return False
        value = ix.item_value[i]
        return any(
            c in f.arg_slots and f.arg_slots[c].strip().lower() != value for c in (sk, sk.split(":", 1)[-1])
        )

    @staticmethod
    def _reason(
        ix: ScopeIndex,
        i: int,
        sim: float,
        located: set[int],
        how: dict[int, list[str]],
        expanded_via: dict[int, str],
        ent_hits: list[str],
        slot_hit: dict[str, str],
        f: QueryFeatures,
        reopened: bool = False,
    ) -> str:
        parts: list[str] = []
        tids = ix.item_topic_ids[i]
        hit_topics = [t for t in tids if t in located]
        if hit_topics:
            t = hit_topics[0]
            why = "; ".join(how.get(t, [])) or "similar to the query"
            parts.append(f"Topic '{ix.topic_names[t]}' located ({why})")
            if t != tids[0]:
                parts.append(f"cross-topic link from '{ix.topic_names[tids[0]]}'")
        elif i in expanded_via:
            parts.append(f"expanded: {expanded_via[i]}")
        item_keys = ix.item_entity_keys[i]
        ents = [ix.entity_names[k] for k in ent_hits if k in item_keys]
        tools = [e for e in ents if e.startswith("tool:")]
        others = [e for e in ents if not e.startswith("tool:")]
        if others:
            parts.append("entity " + ", ".join(f"'{e}'" for e in others[:3]) + " named in the query")
        if tools:
            parts.append(f"uses the candidate tool '{f.tool}'")
        sk = ix.item_slot[i]
        for cand in (sk, sk.split(":", 1)[-1]):
            if cand in slot_hit:
                parts.append(f"slot '{ix.items[i].slot}' is an argument of {f.tool} (={slot_hit[cand]!r})")
                break
        parts.append(f"step relevance {sim:.2f}")
        parts.append("valid at the cutoff" if f.as_of is not None else "current")
        if ix.task_ids[i]:
            parts.append(f"task-scoped to {ix.task_ids[i]}")
        if reopened:
            parts.append("delivered before, but the candidate call sets another value")
        return "; ".join(parts)


@dataclass
class _Located:
    """Step 1's result: the located Topics, why each scored, the entity keys the query names."""

    located: list[int]
    how: dict[int, list[str]]
    ent_hits: list[str]


@dataclass
class _Expansion:
    """Step 2's result: the pool's contiguous slices and gathered members, their bonuses, and why
    each expanded fact was reached."""

    ranges: list[tuple[int, int, float]] = field(default_factory=list)
    gathered: list[np.ndarray] = field(default_factory=list)
    bonus: np.ndarray | None = None  # structural bonus per position: the best relation that reached it
    add_idx: list[np.ndarray] = field(default_factory=list)  # additive bonuses (entities, tools, slots)
    add_val: list[np.ndarray] = field(default_factory=list)
    expanded_via: dict[int, str] = field(default_factory=dict)
    slot_hit: dict[str, str] = field(default_factory=dict)


def _locate(
    cfg: GraphRetrievalConfig,
    ix: ScopeIndex,
    qrep: Any,
    f: QueryFeatures,
    task_id: str,
    full: np.ndarray | None,
) -> _Located:
    """Step 1: score every Topic (centroid similarity, or its best fact's lexical score, plus the
    name and entity bonuses) and keep the top `topics_to_locate` that reach `min_topic_score`."""
    if full is None:
        tscore = ix.centroids @ qrep
    else:
        tscore = ix.topic_best(np.where(ix.valid_mask(f.as_of, task_id), full, np.float32(-np.inf)))
    tscore = np.where(ix.has_members, tscore, -np.inf).astype(np.float32)
    named: set[int] = set()
    for t in sorted({t for w in f.content_words for t in ix.topic_by_word.get(w, ())}):
        if ix.topic_words[t] <= f.content_words and ix.has_members[t]:
            tscore[t] = max(tscore[t], 0.0) + cfg.topic_name_bonus
            named.add(t)
    ent_hits = ix.match_entities(f.words, f.entity_keys)
    for key in ent_hits:  # per Topic, the same float32 operations in the same order as one at a time
        ts = ix.entity_topic_array(key)
        tscore[ts] = np.maximum(tscore[ts], np.float32(0.0)) + np.float32(cfg.topic_entity_bonus)
    order = ix.topic_order(tscore)[: cfg.topics_to_locate]
    located = [int(t) for t in order if np.isfinite(tscore[t]) and tscore[t] >= cfg.min_topic_score]
    # why each located Topic scored (only these are ever shown): its name, then the entities in query
    # order
    how: dict[int, list[str]] = {}
    for t in located:
        parts = ["its name is in the query"] if t in named else []
        parts += [
            f"it holds entity '{ix.entity_names[key]}'" for key in ent_hits if t in ix.entity_topics[key]
        ]
        if parts:
            how[t] = parts
    return _Located(located, how, ent_hits)


def _expand(cfg: GraphRetrievalConfig, ix: ScopeIndex, f: QueryFeatures, loc: _Located) -> _Expansion:
    """Step 2: the located Topics' own facts, subtopics, parent Topic and linked facts (contiguous
    slices plus member lists), the tail's facts by the same relations, and the facts hit by the
    query's entities, the candidate tool and the call's argument slots."""
    exp = _Expansion()
    ranges, gathered, tails, expanded_via = exp.ranges, exp.gathered, [], exp.expanded_via
    for t in loc.located:
        lo, hi = (int(x) for x in ix.own_range[t])
        slo, shi = (int(x) for x in ix.subtree_range[t])
        for a, b in ((slo, lo), (hi, shi)):  # subtopics (own slice sits at the subtree's start)
            if b > a:
                ranges.append((a, b, cfg.expanded_bonus))
                for i in range(a, min(b, a + 256)):
                    expanded_via.setdefault(i, f"subtopic of '{ix.topic_names[t]}'")
        p = ix.topic_parent[t]
        if p >= 0:
            plo, phi = (int(x) for x in ix.own_range[p])
            if phi > plo:
                ranges.append((plo, phi, cfg.expanded_bonus))
                for i in range(plo, min(phi, plo + 256)):
                    expanded_via.setdefault(i, f"parent Topic of '{ix.topic_names[t]}'")
        if hi > lo:
            ranges.append((lo, hi, cfg.located_bonus))
        if len(ix.link_members[t]):
            gathered.append(ix.link_members[t])
        if ix.n_tail:  # facts appended since the last compaction: the same relations, by member list
            own_tail = ix.tail_of(t)
            below = ix.tail_of(t, below=True)
            parent_tail = ix.tail_of(p) if p >= 0 else below[:0]
            tails += [
                (own_tail, cfg.located_bonus),
                (below, cfg.expanded_bonus),
                (parent_tail, cfg.expanded_bonus),
            ]
            for m, via in ((below, "subtopic of"), (parent_tail, "parent Topic of")):
                for i in m[:256].tolist():
                    expanded_via.setdefault(i, f"{via} '{ix.topic_names[t]}'")
    bonus = exp.bonus = np.zeros(len(ix), np.float32)
    for a, b, v in ranges:
        np.maximum(bonus[a:b], v, out=bonus[a:b])
    for m, v in tails:
        if len(m):
            gathered.append(m)
            bonus[m] = np.maximum(bonus[m], v)
    for t in loc.located:
        m = ix.link_members[t]
        if len(m):
            bonus[m] = np.maximum(bonus[m], cfg.located_bonus)
    # additive bonuses of the few facts hit by entities (counted at most twice), tools and slots
    ent_arrays = []
    for key in loc.ent_hits:
        m = ix.entity_members[key]
        gathered.append(m)
        if key.startswith("tool:"):
            exp.add_idx.append(m)
            exp.add_val.append(np.full(len(m), cfg.tool_bonus, np.float32))
        else:
            ent_arrays.append(m)
    if ent_arrays:
        u, c = np.unique(np.concatenate(ent_arrays), return_counts=True)
        exp.add_idx.append(u)
        exp.add_val.append(cfg.entity_bonus * np.minimum(c, 2).astype(np.float32))
    for sk in f.arg_slots:
        m = ix.slot_members.get(sk)
        if m is not None:
            gathered.append(m)
            exp.add_idx.append(m)
            exp.add_val.append(np.full(len(m), cfg.slot_bonus, np.float32))
            exp.slot_hit[sk] = f.arg_slots[sk]
    return exp


def _score_pool(
    ix: ScopeIndex,
    qrep: Any,
    f: QueryFeatures,
    task_id: str,
    exp: _Expansion,
    full,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Step 3's scoring, over the pool only (matrix slices are views; only gathered rows are copied):
    the valid pool positions (ascending), their similarity and their relevance (similarity floored at
    0 plus bonuses); None when no pool fact is valid at the cutoff."""
    n = len(ix)
    in_pool = np.zeros(n, bool)
    for a, b, _ in exp.ranges:
        in_pool[a:b] = True
    for m in exp.gathered:
        in_pool[m] = True
    pidx = np.flatnonzero(in_pool)
    pidx = pidx[ix.valid_subset(pidx, f.as_of, task_id)]
    if not len(pidx):
        return None
    if full is None:
        buf = np.empty(n, np.float32)
        covered = np.zeros(n, bool)
        for a, b, _ in exp.ranges:
            if not covered[a:b].all():
                buf[a:b] = ix.vectors[a:b] @ qrep
                covered[a:b] = True
        rest = pidx[~covered[pidx]]
        if len(rest):
            buf[rest] = ix.vectors[rest] @ qrep
        raw = buf[pidx]
    else:
        raw = full[pidx]
    final = np.maximum(raw, 0) + exp.bonus[pidx]
    if exp.add_idx:  # pidx is sorted (np.unique): place the additive bonuses by binary search
        ai, av = np.concatenate(exp.add_idx), np.concatenate(exp.add_val)
        at = np.searchsorted(pidx, ai)
        ok = at < len(pidx)
        ok[ok] = pidx[at[ok]] == ai[ok]
        np.add.at(final, at[ok], av[ok])
    return pidx, raw, final
