"""Persona2Web as a Pulse benchmark: 450 tasks (50 users × 3 task groups × 3 levels), offline web stub.

Tools (env.py, a stub: no live web offline, every result says so): `web_search(query)`, `open_website(site)`
(the site the agent chooses), `submit_answer(answer)`. Score (the Pulse paper's Table B3 metrics,
from the gold in gold.py):
  web_em  1 when the last site the agent opened matches the level-3 website (Web EM);
  pref_r  1 when every level-2 preference value occurs in the agent's tool arguments, answers or
          replies (Pref R: the share of tasks that satisfy all preferences);
  loc     1 when the level-3 location occurs there too (reported only, not in the score);
  score = web_em × pref_r (the task is done on the right site with every preference).
Chains: one per user, ordered level 1 (groups A, B, C), then level 2, then level 3, so whatever a
memory method writes from a more explicit task can never reach a less explicit one. The chains
start with no memory (the users' year-long histories are not published), or, with
`benchmark.seed_history=synthetic`, with memory derived from a history *generated from the gold
values* (synthetic_world.py; labelled non-standard: it states the answers the levels hide, as a
real history would, but it is synthetic). Users that `pulse gen-data source=persona2web` trained on
are listed in its card (`real_users_per_split.train`); evaluate on the others for a clean number.
Offline scripts: `gold` (the oracle: gold site and every value) and `request_only` (opens a site the
request names, else the start page, and answers with the request text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.benchmark import (
    BenchmarkDataError,
    RealBenchmarkBase,
    RealTask,
    Score,
    chains_of,
    own_options,
    select,
)
from eval.real.data_dir import dataset_dir
from eval.real.persona2web.env import SCHEMAS, WebStub
from eval.real.persona2web.gold import (
    location_key,
    normalise_text,
    site_matches,
    sites_in,
    value_satisfied,
)
from eval.real.persona2web.loader import P2WGold, load_groups, load_tasks

NAME = "persona2web"
VERSION = "persona2web-5dee4d5"


@dataclass
class Persona2Web(RealBenchmarkBase):
    """Persona2Web as a `Benchmark` (the module docstring): its tasks in chains per user, the offline web
    stub, the Web EM / Pref R score, the `gold` and `request_only` scripts, and (with
    `seed_history=synthetic`) seed memory derived from the gold values. Built by `load(cfg)`."""

    root: Path
    tasks: tuple[RealTask, ...]
    name: str = NAME
    version: str = VERSION
    seed: int = 0
    metric: str = "mean"
    judge_label: str = "deterministic Web EM / Pref R checks against normalised gold (no LLM judge)"
    nonstandard: str = ""
    user_endpoint: Any = field(default=None, repr=False)

    def chains(self) -> dict[str, list[RealTask]]:
        return chains_of(self.tasks)

    history_kind: str = "none"  # benchmark.seed_history: none | synthetic
    # a search only reads; opening a site commits the choice of site, submitting commits the answer
    read_only_tools: frozenset = frozenset({"web_search"})
    groups: list = field(default_factory=list, repr=False)

    def seed_memory(self, user_id: str) -> tuple:
        if self.history_kind != "synthetic":
            return ()
        from eval.real.persona2web.synthetic_world import synthetic_seed_memory

        return synthetic_seed_memory(self.groups, user_id, 0, self._anchored_users())

    def open_env(self, user_id: str, transport: str = "direct"):
        from eval.mcp_bridge import serve_env

        return serve_env(WebStub(), transport, "persona2web-web-stub")

    def tool_schemas(self, user_id: str) -> list[dict[str, Any]]:
        return SCHEMAS

    def user_simulator(self, task: RealTask):
        return None  # one request per task; the agent's reply ends the episode

    def scripted_calls(self, task: RealTask, script: str) -> list[tuple[str, dict[str, Any]]]:
        g: P2WGold = task.data
        if script == "gold":
            answer = "; ".join(g.values) + (f" ({g.location})" if g.location else "")
            return [("open_website", {"site": g.sites[0]}), ("submit_answer", {"answer": answer})]
        if script == "request_only":
            named = sites_in(task.request_text)
            return [
                ("web_search", {"query": task.request_text}),
                ("open_website", {"site": named[0] if named else g.start_url}),
                ("submit_answer", {"answer": task.request_text}),
            ]
        if script == "noop":
            return []
        raise BenchmarkDataError(
            f"agent.script: {script!r} is not a {NAME} script (gold, request_only, noop)"
        )

    def intervention_correct(self, task: RealTask, tool: str, args: Mapping[str, Any], evidence) -> bool:
        """Right when the held site or value was not gold and the evidence names the gold one:
        `open_website` held on a site that is not the level-3 site, with evidence naming that site;
        `submit_answer` held on an answer missing a level-2 value or the group's level-3 location (its city
        or zip code), with evidence naming that value or location."""
        g: P2WGold = task.data
        said = [f"{getattr(m, 'value', '')} {getattr(m, 'text', '')}" for m in evidence]
        if tool == "open_website":
            if site_matches(str(args.get("site", "")), g.sites):
                return False
            return any(site_matches(str(getattr(m, "value", "")), g.sites) for m in evidence)
        if tool == "submit_answer":
            text = normalise_text(str(args.get("answer", "")))
            missing = [v for v in g.values if not value_satisfied(v, text)]
            if g.location:
                city = normalise_text(g.location.split(",")[0])
                if location_key(g.location) not in text and city not in text:
                    missing.append(city)
            return bool(missing) and any(value_satisfied(v, normalise_text(e)) for v in missing for e in said)
        return False

    # -- what the memory-following offline agent reads (eval/agents/memory_following.py) ---------------
    def _anchored_users(self) -> list:
        """The synthetic world (synthetic_world.py `anchored_users`, seed 0), built once per benchmark: the
        seed histories and the memory-following agent's vocabulary both read it (building it per chain
        was most of a synthetic-history run's time)."""
        if getattr(self, "_anchored", None) is None:
            from eval.real.persona2web.synthetic_world import anchored_users

            self._anchored = anchored_users(self.groups or list(load_groups(self.root).values()), 0)
        return self._anchored

    def _world(self) -> dict[str, Any]:
        """The synthetic world's domains per user (synthetic_world.py: the same one the synthetic
        histories are rendered from): the vocabulary of values a delivered text can name."""
        return {persona.name: domains for persona, domains, _ in self._anchored_users()}

    def reader(self, user_id: str):
        """Persona2Web's own reader of delivered text: every value the user's synthetic world has
        for each slot (gold and distractors, sites also as www./https:// forms), and each task group's
        phrase as its condition (a sentence naming another group's task is out of context)."""
        from eval.suites.reader import ValueReader

        vocab: dict[str, dict[str, tuple[str, ...]]] = {}
        conditions: dict[str, tuple[str, ...]] = {}
        for dom in self._world().get(user_id, {}).values():
            group = dom.name.removeprefix("p2w_")
            conditions[
                next(t.project_id for t in self.tasks if t.project_id.lower() == group)
                if any(t.project_id.lower() == group for t in self.tasks)
                else group
            ] = (dom.label,)
            for slot in dom.slots:
                for v in slot.values:
                    forms = (v, normalise_text(v)) if slot.name != "site" else (v, f"www.{v}", f"https://{v}")
                    vocab.setdefault(slot.name, {})[v] = tuple(dict.fromkeys(f for f in forms if f))
        return ValueReader(vocab, conditions)

    def memory_slots(self, task: RealTask) -> list[tuple[str, str, str]]:
        """(slot, its value in this task's world, default) for every slot the task group's preferences
        fill: the level-2 values, the site (default: the task's start page) and the location."""
        dom = self._world().get(task.user_id, {}).get(f"p2w_{task.project_id.lower()}")
        if dom is None:
            raise BenchmarkDataError(
                f"{self.root}: task group {task.project_id} has no synthetic world entry"
            )
        return [(s.name, s.values[0], task.data.start_url if s.name == "site" else "") for s in dom.slots]

    def request_states(self, task: RealTask) -> dict[str, str]:
        """What the request itself says for each slot (the agent reads its request): a value of the
        slot's world that occurs in the request text, and a site the request names."""
        text = normalise_text(task.request_text)
        out = {}
        for slot, value, _ in self.memory_slots(task):
            if slot == "site":
                named = sites_in(task.request_text)
                if named:
                    out[slot] = named[0]
            elif value_satisfied(value, text):
                out[slot] = value
        return out

    def score(self, task: RealTask, env: WebStub, outcome: Any) -> Score:
        g: P2WGold = task.data
        extra = getattr(outcome, "extra", {}) or {}
        said = [m.get("content") or "" for m in extra.get("transcript", []) if m.get("role") == "assistant"]
        text = normalise_text(" ".join(env.texts + said))
        web = float(bool(env.opened) and site_matches(env.opened[-1], g.sites))
        pref = float(all(value_satisfied(v, text) for v in g.values))
        comps = {"web_em": web, "pref_r": pref}
        if g.location:
            comps["loc"] = float(location_key(g.location) in text)
        return Score(
            web * pref,
            comps,
            {
                "level": g.level,
                "opened": env.opened[-1] if env.opened else "",
                "values_met": [value_satisfied(v, text) for v in g.values],
            },
        )


@dataclass(frozen=True)
class Options:
    """Persona2Web's own `benchmark.*` knobs (eval/config.py BenchmarkConfig documents each)."""

    data_dir: str
    seed_history: str
    task_ids: list


def load(cfg) -> Persona2Web:
    own_options(cfg, Options, NAME)  # a knob of another benchmark is refused, named
    root = Path(cfg.path) if cfg.path else dataset_dir("persona2web", cfg.data_dir)
    if cfg.seed_history not in ("none", "synthetic"):
        raise BenchmarkDataError(
            f"benchmark.seed_history: {cfg.seed_history!r} is not a {NAME} history (none, synthetic)"
        )
    seeded = cfg.seed_history == "synthetic"
    return Persona2Web(
        name=NAME + ("-synthetic-history" if seeded else ""),
        root=root,
        tasks=select(load_tasks(root), cfg),
        history_kind=cfg.seed_history,
        groups=list(load_groups(root).values()) if seeded else [],
        nonstandard="synthetic seed histories (generated from the gold values)" if seeded else "",
    )
