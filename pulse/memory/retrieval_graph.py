"""Graph retrieval over the Topic graph and project memory (paper §3.2 / App. A.1).

For each scope (the user, then the project) at the information cutoff:
1. locate Topics: each Topic node is scored by its best valid fact's similarity to the query (the
   subgoal + the candidate call's tool and arguments), plus a bonus when the Topic's name appears in
   the query or it holds an entity the query names; the top `topics_to_locate` are located;
2. expand along relations: subtopics of a located Topic, its parent Topic, cross-topic links (a fact
   linked into a located Topic is a member of it), every fact sharing an entity the query names,
   facts whose slot is a candidate-call argument, workflows that use the candidate tool;
3. select evidence: step relevance (similarity + structural bonuses), temporal validity (only
   records valid at the cutoff; superseded versions never count as current; task-scoped records
   only for their task), information gain (nothing already delivered, nothing that restates a
   selected or delivered fact's slot value, no near-duplicate text).
Each item carries the reason it was selected. Scores are comparable across scopes of one query.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pulse.memory import graph
from pulse.memory.candidates import Candidate, as_seen
from pulse.memory.query_features import QueryFeatures
from pulse.memory.scope_index import ScopeIndex


@dataclass(frozen=True)
class GraphRetrievalConfig:
    # How many Topic nodes are located per scope before expansion.
    topics_to_locate: int = 3
    # A Topic is located only if its score (best-member similarity + bonuses) reaches this.
    min_topic_score: float = 0.2
    # Topic-location bonus when a Topic's own name word occurs in the query.
    topic_name_bonus: float = 0.3
    # Topic-location bonus when the Topic holds an entity the query names.
    topic_entity_bonus: float = 0.2
    # Relevance bonus (added to similarity) for a member of a located Topic (incl. cross-topic links).
    located_bonus: float = 0.25
    # Relevance bonus for a fact reached by expansion (subtopic, parent Topic).
    expanded_bonus: float = 0.2
    # Relevance bonus per query entity the fact mentions (capped at two).
    entity_bonus: float = 0.2
    # Relevance bonus when the fact's slot is an argument of the candidate call.
    slot_bonus: float = 0.35
    # Relevance bonus for a workflow that uses the candidate call's tool.
    tool_bonus: float = 0.3
    # A fact outside every located Topic still enters the pool with raw similarity >= this.
    semantic_floor: float = 0.5
    # Selected evidence needs relevance (similarity + bonuses) >= this.
    min_score: float = 0.2
    # Two dense vectors this similar are the same statement: the second adds no information.
    duplicate_similarity: float = 0.97


class GraphRetriever:
    name = "graph"

    def __init__(self, config: GraphRetrievalConfig | None = None):
        self.config = config or GraphRetrievalConfig()

    def candidates(self, ix: ScopeIndex, qrep: Any, f: QueryFeatures, task_id: str, delivered: set[str],
                   k: int) -> list[Candidate]:
        cfg = self.config
        n = len(ix)
        if n == 0:
            return []
        valid = ix.valid_mask(f.as_of, task_id)
        if not valid.any():
            return []
        raw = np.asarray(ix.scores.scores(qrep), np.float32)
        masked = np.where(valid, raw, np.float32(-np.inf))

        # 1. locate Topics
        tscore = ix.topic_best(masked)
        how: dict[int, list[str]] = {}
        for t, ws in enumerate(ix.topic_words):
            if ws and ws <= f.content_words:
                tscore[t] = max(tscore[t], 0.0) + cfg.topic_name_bonus
                how.setdefault(t, []).append("its name is in the query")
        ent_hits = ix.match_entities(f.words, f.entity_keys)
        for key in ent_hits:
            for t in {ix.item_topic_ids[i][0] for i in ix.entity_members[key][:64].tolist()}:
                tscore[t] = max(tscore[t], 0.0) + cfg.topic_entity_bonus
                how.setdefault(t, []).append(f"it holds entity '{ix.entity_names[key]}'")
        order = np.argsort(-tscore)[:cfg.topics_to_locate]
        located = [int(t) for t in order if np.isfinite(tscore[t]) and tscore[t] >= cfg.min_topic_score]

        # 2. expand and 3. score relevance
        bonus = np.zeros(n, np.float32)
        pool = raw >= cfg.semantic_floor
        expanded_via: dict[int, str] = {}
        for t in located:
            for m, b, via in ((ix.subtree_members(t), cfg.expanded_bonus, f"subtopic of '{ix.topic_names[t]}'"),
                              (ix.exact_members[ix.topic_parent[t]] if ix.topic_parent[t] >= 0 else None,
                               cfg.expanded_bonus, f"parent Topic of '{ix.topic_names[t]}'"),
                              (ix.exact_members[t], cfg.located_bonus, "")):
                if m is None or not len(m):
                    continue
                np.maximum.at(bonus, m, b)
                pool[m] = True
                if via:
                    for i in m[:256].tolist():
                        expanded_via.setdefault(i, via)
        ent_count = np.zeros(n, np.int8)
        for key in ent_hits:
            m = ix.entity_members[key]
            pool[m] = True
            if key.startswith("tool:"):
                bonus[m] += cfg.tool_bonus
            else:
                ent_count[m] += 1
        bonus += cfg.entity_bonus * np.minimum(ent_count, 2)
        slot_hit: dict[str, str] = {}
        for sk in f.arg_slots:
            m = ix.slot_members.get(sk)
            if m is not None:
                bonus[m] += cfg.slot_bonus
                pool[m] = True
                slot_hit[sk] = f.arg_slots[sk]
        # negative similarity carries no evidence either way: structure alone can qualify a fact
        final = np.where(pool & valid, np.maximum(raw, 0) + bonus, np.float32(-np.inf))

        # information gain: rank delivered items last; `select` keeps them only if nothing new qualifies
        d_idx = [ix.pos[i] for i in delivered if i in ix.pos]
        is_delivered = np.zeros(n, bool)
        is_delivered[d_idx] = True
        qualifies = final >= cfg.min_score
        top_n = min(n, 4 * k + len(d_idx))
        cand_idx = np.argpartition(-final, top_n - 1)[:top_n] if top_n < n else np.arange(n)
        cand_idx = cand_idx[np.argsort(-final[cand_idx])]

        known_values = {(ix.item_slot[i], ix.items[i].value.strip().lower()) for i in d_idx if ix.item_slot[i]}
        chosen: list[int] = []
        out: list[Candidate] = []
        loc_set = set(located)
        for i in cand_idx.tolist():
            if not qualifies[i] or len(out) >= k + len(d_idx):
                break
            sv = (ix.item_slot[i], ix.items[i].value.strip().lower())
            if not is_delivered[i]:
                if sv[0] and sv in known_values:
                    continue  # restates a delivered/selected value: no information gain
                if ix.vectors is not None and chosen and \
                        float(np.max(ix.vectors[chosen] @ ix.vectors[i])) >= cfg.duplicate_similarity:
                    continue
                if sv[0]:
                    known_values.add(sv)
                chosen.append(i)
            out.append(Candidate(score=float(final[i]), item=as_seen(ix.items[i], f.as_of),
                                 reason=self._reason(ix, i, float(raw[i]), loc_set, how, expanded_via, ent_hits,
                                                     slot_hit, f),
                                 delivered=bool(is_delivered[i])))
        return out

    @staticmethod
    def _reason(ix: ScopeIndex, i: int, sim: float, located: set[int], how: dict[int, list[str]],
                expanded_via: dict[int, str], ent_hits: list[str], slot_hit: dict[str, str],
                f: QueryFeatures) -> str:
        parts: list[str] = []
        tids = ix.item_topic_ids[i]
        hit_topics = [t for t in tids if t in located]
        if hit_topics:
            t = hit_topics[0]
            why = "; ".join(how.get(t, [])) or "similar facts"
            parts.append(f"Topic '{ix.topic_names[t]}' located ({why})")
            if t != tids[0]:
                parts.append(f"cross-topic link from '{ix.topic_names[tids[0]]}'")
        elif i in expanded_via:
            parts.append(f"expanded: {expanded_via[i]}")
        item_keys = set(graph.item_entities(ix.items[i]))
        ents = [ix.entity_names[k] for k in ent_hits if k in item_keys]
        tools = [e for e in ents if e.startswith("tool:")]
        others = [e for e in ents if not e.startswith("tool:")]
        if others:
            parts.append("entity " + ", ".join(f"'{e}'" for e in others[:3]) + " named in the query")
        if tools:
            parts.append(f"workflow uses the candidate tool '{f.tool}'")
        sk = ix.item_slot[i]
        for cand in (sk, sk.split(":", 1)[-1]):
            if cand in slot_hit:
                parts.append(f"slot '{ix.items[i].slot}' is an argument of {f.tool} (={slot_hit[cand]!r})")
                break
        if not parts:
            parts.append("semantic match outside located Topics")
        parts.append(f"step relevance {sim:.2f}")
        parts.append("valid at the cutoff" if f.as_of is not None else "current")
        if ix.metas[i].task_id:
            parts.append(f"task-scoped to {ix.metas[i].task_id}")
        return "; ".join(parts)
