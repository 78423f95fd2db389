"""Generate the labeled policy dataset: personas -> histories -> preferences -> tasks -> prefixes.

Run:
    .venv/bin/python -m data_gen.build --out artifacts/data/pulse_v1 [--seed 0] [--n-users 480]
or from Python:
    from data_gen.config import GenDataConfig
    from data_gen.build import generate_examples, build_dataset
    card = build_dataset(GenDataConfig(seed=0), "artifacts/data/pulse_v1")

Deterministic from the seed, no LLM, no network, no files read. The output directory is a
`datasets.DatasetDict` (train/validation/test, rows = `PolicyExample.to_row()`) plus
dataset_card.json and README.md; it is written to a temp directory beside the target and renamed
into place, so a failed run never leaves a half-written dataset.

How this differs from Persona2Web: Persona2Web releases tasks but no generator and no
silent/supplement/intervene labels; the preference derivation, trajectory prefixes and labels here
are Pulse's own.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from data_gen.card import card_markdown, make_card
from data_gen.cases import CASES, CaseType, Ev, GroupMemory, fillers, initial_plan
from data_gen.config import GenDataConfig
from data_gen.decision_memory import assemble_snapshot, snapshot_pool
from data_gen.splits import SPLITS, assign_splits
from data_gen.world.domains import DomainSpec
from data_gen.world.history import generate_history
from data_gen.world.personas import make_persona
from data_gen.world.preferences import UserFact, attribute_facts, derive_facts
from data_gen.world.tasks import TaskGroup, make_task_groups, request_text
from data_gen.world.tool_calls import call_event, message_event, request_event, result_event
from data_gen.world.vocab_web import WEB_DOMAINS
from pulse.core.examples import ROW_COLUMNS, PolicyExample
from pulse.core.gold import BINDING_KINDS, gold_decision
from pulse.core.policy_io import PolicyInput, render_compact
from pulse.core.records import Event
from pulse.core.statements import SlotVocab, parse_statement, vocab_from_params
from pulse.utils.atomic import atomic_dir


class GenerationError(RuntimeError):
    """A generated prefix did not get the label its case type promises (a generator bug)."""


def select_domains(
    cfg: GenDataConfig, domains: Mapping[str, DomainSpec] | None = None
) -> dict[str, DomainSpec]:
    pool = dict(domains if domains is not None else WEB_DOMAINS)
    if not cfg.domains:
        return pool
    unknown = [d for d in cfg.domains if d not in pool]
    if unknown:
        hints = {d: difflib.get_close_matches(d, list(pool), n=1) for d in unknown}
        raise ValueError(f"unknown domain(s) {hints} (name: closest); known: {sorted(pool)}")
    return {d: pool[d] for d in cfg.domains}


def _check_weights(cfg: GenDataConfig) -> None:
    unknown = [c for c in cfg.case_weights if c not in CASES]
    if unknown:
        hints = {c: difflib.get_close_matches(c, list(CASES), n=1) for c in unknown}
        raise ValueError(
            f"unknown case type(s) in case_weights {hints} (name: closest); known: {sorted(CASES)}"
        )


@dataclass(frozen=True)
class Generated:
    """What one generation made: labeled prefixes per split ("train", "validation", "test", in a
    deterministic order) and the anchored task groups left out (`source=persona2web` only: a real
    group whose gold values text cannot tell apart; the card counts them)."""

    splits: dict[str, list[PolicyExample]]
    skipped_groups: tuple[str, ...] = ()


def generate(cfg: GenDataConfig, *, domains: Mapping[str, DomainSpec] | None = None) -> Generated:
    """Labeled prefixes per split and the skipped anchored groups.

    `domains` replaces the built-in web vocabulary (e.g. professional or personal-app domains).
    """
    _check_weights(cfg)
    doms = select_domains(cfg, domains)
    out: dict[str, list[PolicyExample]] = {s: [] for s in SPLITS}
    n_synthetic = cfg.n_users
    skipped: list[str] = []
    if cfg.source == "persona2web":  # the real users first, split among themselves by the same fractions
        from eval.real.persona2web.loader import read_groups
        from eval.real.persona2web.synthetic_world import anchored_users

        anchored = anchored_users(read_groups(cfg.data_dir), cfg.seed, cfg.persona_params())
        split_real = assign_splits(
            [p.user_id for p, _, _ in anchored], cfg.val_user_fraction, cfg.test_user_fraction, cfg.seed
        )
        for persona, pdoms, groups in anchored:
            examples, left_out = anchored_examples(cfg, persona, pdoms, groups)
            out[split_real[persona.user_id]].extend(examples)
            skipped.extend(left_out)
        n_synthetic = max(0, cfg.n_users - len(anchored))
    user_ids = [f"u{i:04d}" for i in range(n_synthetic)]
    split_of = assign_splits(user_ids, cfg.val_user_fraction, cfg.test_user_fraction, cfg.seed)
    for i, uid in enumerate(user_ids):
        out[split_of[uid]].extend(user_examples(cfg, i, doms))
    return Generated(out, tuple(skipped))


def generate_examples(
    cfg: GenDataConfig, *, domains: Mapping[str, DomainSpec] | None = None
) -> dict[str, list[PolicyExample]]:
    """Labeled prefixes per split ("train", "validation", "test"), in a deterministic order
    (`generate(...).splits`)."""
    return generate(cfg, domains=domains).splits


def user_examples(cfg: GenDataConfig, index: int, domains: Mapping[str, DomainSpec]) -> list[PolicyExample]:
    """All examples of one user; its own random stream makes users independent of each other."""
    rng = random.Random(f"pulse-data:{cfg.seed}:{index}")
    persona = make_persona(index, rng, domains, cfg.persona_params())
    history = generate_history(persona, domains, rng, cfg.history_params())
    facts = derive_facts(history) + attribute_facts(persona)
    groups = make_task_groups(persona, facts, domains, cfg.tasks_per_user, rng, params=cfg.task_params())
    return group_examples(cfg, persona, facts, groups, domains, rng)


def anchored_examples(
    cfg: GenDataConfig, persona, domains: Mapping[str, DomainSpec], groups
) -> tuple[list[PolicyExample], list[str]]:
    """A Persona2Web-anchored user's examples (its history is synthesized from its gold preferences)
    and the ids of its task groups left out."""
    rng = random.Random(f"pulse-data:{cfg.seed}:{persona.user_id}")
    history = generate_history(persona, domains, rng, cfg.history_params())
    facts = derive_facts(history) + attribute_facts(persona)
    examples, skipped = [], []
    for group in groups:
        try:
            examples.extend(group_examples(cfg, persona, facts, [group], domains, rng))
        except GenerationError:
            # a real group whose gold values overlap so that text cannot tell its slots apart
            # (e.g. a value that contains its own location); counted in the card, never mislabelled
            skipped.append(group.group_id)
    return examples, skipped


def group_examples(
    cfg: GenDataConfig, persona, facts, groups, domains: Mapping[str, DomainSpec], rng: random.Random
) -> list[PolicyExample]:
    labels = {d.name: d.label for d in domains.values()}
    examples = []
    for group in groups:
        mem = group_memory(domains[group.domain], group, facts)
        pool = snapshot_pool(facts, group.domain, group.slots)
        feasible = {
            name: opts
            for name, c in CASES.items()
            if cfg.case_weights.get(name, 0) > 0 and (opts := c.options(mem))
        }
        if not feasible:
            continue
        names = list(feasible)
        weights = [cfg.case_weights[n] for n in names]
        for k in range(cfg.prefixes_per_task):
            case = CASES[rng.choices(names, weights)[0]]
            prefix, level = _prefix(cfg, case, feasible[case.name], mem, rng)
            snapshot = assemble_snapshot(
                pool, rng, f"user:{persona.user_id}", cfg.min_snapshot_items, cfg.max_snapshot_items, labels
            )
            inp = PolicyInput(prefix, snapshot)
            gold = gold_decision(prefix, snapshot)
            _check(case, inp, gold.action, gold.evidence, mem)
            examples.append(
                PolicyExample(
                    f"{group.group_id}_{k:02d}",
                    group.group_id,
                    persona.user_id,
                    case.name,
                    inp,
                    gold,
                    inp.last_event.time,
                    group.slots,
                    group.domain,
                    level,
                )
            )
    return examples


def group_memory(spec: DomainSpec, group: TaskGroup, facts: tuple[UserFact, ...]) -> GroupMemory:
    cur, old, habit = {}, {}, {}
    for f in facts:
        if f.topic != group.domain or f.slot not in group.slots:
            continue
        if f.kind == "preference":
            (cur if f.is_current else old)[f.slot] = f.value
        elif f.kind == "habit":
            habit[f.slot] = f.value
    return GroupMemory(spec, group, cur, old, habit)


def domain_vocab(spec: DomainSpec) -> SlotVocab:
    """What the domain's tools publish about each slot: its values and the words that name it
    (the slot name and the noun of its request phrase, "within my usual fare" -> "fare")."""
    return vocab_from_params(
        {s.name: s.values for s in spec.slots}, {s.name: (_phrase_noun(s.implicit),) for s in spec.slots}
    )


def _phrase_noun(phrase: str) -> str:
    return phrase.rstrip(".").split()[-1]


def _prefix(
    cfg: GenDataConfig, case: CaseType, options: list[tuple[int, str]], mem: GroupMemory, rng: random.Random
) -> tuple[tuple[Event, ...], int]:
    """The prefix's events (request and message args parsed from their text, as at run time)."""
    level = rng.choice(sorted({lv for lv, _ in options}))
    target = rng.choice([s for lv, s in options if lv == level])
    plan = initial_plan(mem, level, target, rng, cfg.p_absent_slot)
    tail = case.build(plan)  # may adjust plan.modes / plan.gold before the request is rendered
    n_total = 1 if not tail else rng.randint(1 + len(tail), cfg.max_prefix_events)
    body = fillers(plan, n_total - 1 - len(tail)) + tail
    t = datetime.fromisoformat(mem.group.start_time) + timedelta(minutes=rng.randrange(240))
    spec, obj = mem.spec, mem.group.obj
    vocab = domain_vocab(spec)
    text = request_text(spec, obj, plan.modes)
    events: list[Event] = [request_event(0, t.isoformat(), text, parse_statement(text, vocab))]
    for step, ev in enumerate(body, start=1):
        t += timedelta(seconds=rng.randint(5, 90))
        events.append(_event(ev, step, t.isoformat(), obj, rng, vocab))
    return tuple(events), level


def _event(ev: Ev, step: int, time: str, obj: str, rng: random.Random, vocab: SlotVocab) -> Event:
    if ev.kind == "call":
        return call_event(step, time, ev.tool, obj, ev.args)
    if ev.kind == "result":
        return result_event(step, time, ev.tool, rng.randint(1, 40), obj)
    return message_event(step, time, ev.role, ev.text, parse_statement(ev.text, vocab))


def _check(
    case: CaseType, inp: PolicyInput, action: str, evidence: tuple[str, ...], mem: GroupMemory
) -> None:
    """The case must produce its promised action, and a non-silent label must cite real evidence."""
    ok = action == case.action
    if ok and action != "silent":
        ids = {m.item_id for m in inp.snapshot if m.kind in BINDING_KINDS and m.is_current}
        ok = bool(evidence) and set(evidence) <= ids
    if not ok:
        raise GenerationError(
            f"case {case.name} expected {case.action}, labeller gave {action} {evidence}:\n"
            f"{render_compact(inp)}"
        )


# -- writing ------------------------------------------------------------------------------------
def row_features():
    from datasets import Features, Sequence, Value

    types = {
        "label_evidence": Sequence(Value("string")),
        "task_slots": Sequence(Value("string")),
        "task_level": Value("int64"),
    }
    return Features({c: types.get(c, Value("string")) for c in ROW_COLUMNS})


def build_dataset(cfg: GenDataConfig, out_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """Generate, then atomically write the DatasetDict + card to out_dir (default cfg.out_dir).

    An existing dataset at out_dir is replaced only after the new one is complete. Returns the card.
    """
    from datasets import Dataset, DatasetDict

    target = Path(out_dir if out_dir is not None else cfg.out_dir).resolve()
    generated = generate(cfg)
    splits = generated.splits
    card = make_card(cfg, splits, generated.skipped_groups)
    features = row_features()
    dd = DatasetDict(
        {
            name: Dataset.from_list([e.to_row() for e in exs], features=features)
            for name, exs in splits.items()
        }
    )
    with atomic_dir(target) as tmp:
        dd.save_to_disk(str(tmp))
        (tmp / "dataset_card.json").write_text(json.dumps(card, indent=2) + "\n")
        (tmp / "README.md").write_text(card_markdown(card))
    return card


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m data_gen.build", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=GenDataConfig.out_dir, help="output directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-users", type=int, default=GenDataConfig.n_users)
    ap.add_argument("--tasks-per-user", type=int, default=GenDataConfig.tasks_per_user)
    ap.add_argument("--prefixes-per-task", type=int, default=GenDataConfig.prefixes_per_task)
    a = ap.parse_args(argv)
    cfg = GenDataConfig(
        seed=a.seed,
        n_users=a.n_users,
        tasks_per_user=a.tasks_per_user,
        prefixes_per_task=a.prefixes_per_task,
        out_dir=a.out,
    )
    card = build_dataset(cfg, a.out)
    print(json.dumps({"out": str(Path(a.out).resolve()), **card["total"]}, indent=2))


if __name__ == "__main__":
    main()
