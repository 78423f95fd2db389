"""τ²-bench retail as a Pulse benchmark (MIT; see NOTICE): the benchmark class, its scorer and `load`.
Its parts, one file each: the tool environment (env.py), the LLM user simulator (user_sim.py), the
non-standard seed history from the retail database (seed_history.py), tasks.json (loader.py).

Standard setting: every task is its own chain (a fresh database and, for memory methods, a fresh
memory), as in τ². `benchmark.chain_users=true` is a *non-standard* Pulse variant: the tasks of one
retail customer run as sessions of one chain (shared memory, still a fresh database per task); its
rows and manifest say "non-standard".

Score (τ²'s evaluator): 0 unless the episode ended by the user's or the agent's stop; otherwise the
product over the task's `reward_basis` of
  DB            1 if the hash of the agent's final database equals the hash after replaying the gold
                actions on a fresh copy (gold-action errors ignored, as in τ²), else 0;
  COMMUNICATE   1 if each `communicate_info` string occurs (case-insensitive, commas removed) in an
                assistant message;
  NL_ASSERTION  1 if the LLM judge finds every assertion met (1 when the task has none); without a
                judge endpoint it is not evaluated and the basis recorded is "DB only".
pass^k over trials (seeds) is `eval.metrics.pass_hat_k`.
"""

from __future__ import annotations

import json
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
from eval.real.tau2_retail.db import load_db
from eval.real.tau2_retail.env import RetailEnv, same_db
from eval.real.tau2_retail.loader import customer_of, load_tasks, read_json, request_of
from eval.real.tau2_retail.tools import SCHEMAS, RetailTools
from eval.real.tau2_retail.user_sim import Tau2User

NAME = "tau2_retail"
VERSION = "tau2-a2c0247"


@dataclass
class Tau2Retail(RealBenchmarkBase):
    """τ²-bench's retail domain as a benchmark (`benchmark=tau2_retail`): its tasks, tools and
    database, an LLM-simulated user, and τ²'s own score over the task's reward basis (the final
    database against the gold actions' database, the required outputs said).

    Built by `load(cfg)` from the dataset folder (`data_dir`); raises BenchmarkDataError for a
    malformed dataset and ConfigError for an option of another benchmark. `chains()` groups tasks
    per user, `open_env(user)` gives the episode's tool environment, `score(task, env, outcome)` its
    `Score`; with a seed history (`seed_history`) a user's past is memory the methods start from.
    """

    root: Path
    raw: dict[str, dict[str, Any]]
    tasks: tuple[RealTask, ...]
    policy: str
    chain_users: bool
    user_endpoint: Any = None
    user_opening: str = "llm"  # benchmark.user_opening: llm (standard) | scenario (non-standard)
    judge: Any = None
    name: str = NAME
    version: str = VERSION
    seed: int = 0
    metric: str = "mean"
    gold: dict[str, RetailTools] = field(default_factory=dict)  # task id -> database after the gold actions
    # τ²'s read-only tools (look-ups and the calculator); every other call changes the database or
    # hands the user over, and is gated
    read_only_tools: frozenset = frozenset(
        {
            "find_user_id_by_email",
            "find_user_id_by_name_zip",
            "get_order_details",
            "get_product_details",
            "get_item_details",
            "get_user_details",
            "list_all_product_types",
            "calculate",
        }
    )
    history_kind: str = "none"  # benchmark.seed_history: none | retail_db (non-standard)
    customers: dict = field(default_factory=dict)  # chain user id -> retail user id (retail_db histories)

    @property
    def judge_label(self) -> str:
        if self.judge is None:
            return (
                "tau2 DB + COMMUNICATE checks; NL_ASSERTION not evaluated (no judge endpoint): "
                "basis 'DB only'"
            )
        return f"tau2 DB + COMMUNICATE checks; NL_ASSERTION by {self.judge.label}"

    @property
    def nonstandard(self) -> str:
        parts = (["non-standard: one customer's tasks chained as sessions"] if self.chain_users else []) + (
            ["non-standard: seed histories rendered from the retail database"]
            if self.history_kind == "retail_db"
            else []
        )
        if self.user_opening == "scenario":
            parts.append(
                "non-standard: the customer's opening message is the scenario's known info and reason"
            )
        return "; ".join(parts)

    def chains(self) -> dict[str, list[RealTask]]:
        return chains_of(self.tasks)

    def seed_memory(self, user_id: str) -> tuple:
        return ()

    def seed_history(self, user_id: str):
        """`benchmark.seed_history=retail_db` (non-standard): the customer's past as sessions rendered
        from the retail database, dated before the task: who they are (name, e-mail, zip), their
        address, the payment methods on file, and one session per earlier order (its items, where it
        shipped, how it was paid, its status; seed_history.py). Otherwise no history (τ²'s standard
        setting)."""
        customer = self.customers.get(user_id, "")
        if self.history_kind != "retail_db" or not customer:
            from eval.methods.seed import SeedHistory

            return SeedHistory(user_id, ())
        from eval.real.tau2_retail.seed_history import retail_db_history

        return retail_db_history(user_id, customer, self.root / "db.json")

    def intervention_correct(self, task: RealTask, tool: str, args: Mapping[str, Any], evidence) -> bool:
        """Right when the held call differs from every gold action of that tool on some argument and the
        evidence supports the gold value of such an argument (typed comparison, pulse.core.values)."""
        from pulse.core.values import fold

        golds = [
            dict(a.get("arguments") or {})
            for a in task.data["evaluation_criteria"].get("actions") or []
            if a.get("name") == tool
        ]
        said = " ".join(f"{getattr(m, 'value', '')} {getattr(m, 'text', '')}" for m in evidence).lower()
        for g in golds:
            diff = [
                k
                for k, v in g.items()
                if fold(json.dumps(v) if not isinstance(v, str) else v)
                != fold(json.dumps(args.get(k)) if not isinstance(args.get(k), str) else args.get(k))
            ]
            if not diff:
                return False  # the held call was a gold call
            if any(isinstance(g[k], str) and g[k].lower() in said for k in diff):
                return True
        return False

    def open_env(self, user_id: str, transport: str = "direct"):
        from eval.mcp_bridge import serve_env

        return serve_env(RetailEnv(self.root / "db.json"), transport, "tau2-retail")

    def tool_schemas(self, user_id: str) -> list[dict[str, Any]]:
        return [{"type": "function", "function": s} for s in SCHEMAS.values()]

    # -- offline scripted agents -------------------------------------------------------------------
    def scripted_calls(self, task: RealTask, script: str) -> list[tuple[str, dict[str, Any]]]:
        if script == "gold":
            return [
                (a["name"], dict(a.get("arguments") or {}))
                for a in task.data["evaluation_criteria"]["actions"] or []
            ]
        if script == "noop":
            return []
        raise BenchmarkDataError(f"agent.script: {script!r} is not a {NAME} script (gold, noop)")

    # -- user simulator --------------------------------------------------------------------------------
    def user_simulator(self, task: RealTask):
        if self.user_endpoint is None:
            return None
        opening = task.request_text if self.user_opening == "scenario" else None
        return Tau2User(self.user_endpoint, task.data["user_scenario"], opening)

    # -- scoring ----------------------------------------------------------------------------------------
    def gold_db(self, task: RealTask) -> RetailTools:
        """A fresh database after the gold actions (a failing gold action is ignored, as in τ²)."""
        if task.task_id not in self.gold:
            env = RetailEnv(self.root / "db.json")
            for name, args in self.scripted_calls(task, "gold"):
                try:
                    env(name, args)
                except Exception:
                    pass
            self.gold[task.task_id] = env.tools
        return self.gold[task.task_id]

    def score(self, task: RealTask, env: RetailEnv, outcome: Any) -> Score:
        crit = task.data["evaluation_criteria"]
        basis = list(crit.get("reward_basis") or ["DB", "COMMUNICATE"])
        extra = getattr(outcome, "extra", {}) or {}
        termination = extra.get("termination", "agent_stop")
        if termination not in ("agent_stop", "user_stop"):
            return Score(0.0, {}, {"reward_basis": basis, "note": f"terminated prematurely: {termination}"})
        gold = self.gold_db(task)
        comps: dict[str, float] = {}
        comps["DB"] = float(same_db(env.tools, gold))
        said = [
            str(m.get("content") or "").lower().replace(",", "")
            for m in extra.get("transcript", [])
            if m.get("role") == "assistant"
        ]
        info = crit.get("communicate_info") or []
        comps["COMMUNICATE"] = float(
            all(any(str(i).lower().replace(",", "") in s for s in said) for i in info)
        )
        evaluated = [b for b in basis if b in ("DB", "COMMUNICATE")]
        detail: dict[str, Any] = {
            "reward_basis": basis,
            "gold_changes_db": not same_db(gold, RetailTools(gold.base)),
        }
        if "NL_ASSERTION" in basis:
            nl = crit.get("nl_assertions") or []
            if not nl:  # τ²: no assertions to check is a pass (1); not a judged component
                detail["nl_assertions"] = "none: 1 by tau2's rule"
            elif self.judge is not None:
                v = self.judge.judge(nl, extra.get("transcript", []))
                comps["NL_ASSERTION"] = float(all(v.met))
                detail["judge_unparsed"] = v.unparsed
                evaluated.append("NL_ASSERTION")
        unknown = sorted(set(basis) - {"DB", "COMMUNICATE", "NL_ASSERTION"})
        if unknown:
            raise BenchmarkDataError(
                f"tasks.json task {task.task_id}: reward_basis {unknown} is not supported"
            )
        reward = 1.0
        for b in evaluated:
            reward *= comps[b]
        detail["communicate_met"] = comps["COMMUNICATE"]  # informative when COMMUNICATE is not in the basis
        comps = {b: comps[b] for b in evaluated}  # the components that make the reward
        detail["evaluated_basis"] = evaluated
        detail["basis_label"] = (
            "DB only"
            if evaluated == ["DB"] and "nl_assertions" not in detail
            else "+".join(evaluated + (["NL_ASSERTION(none)"] if "nl_assertions" in detail else []))
        )
        return Score(reward, comps, detail)


# gold databases per data folder, shared by every load in a process (the data are read-only)
_GOLD: dict[str, dict[str, RetailTools]] = {}


@dataclass(frozen=True)
class Options:
    """τ² retail's own `benchmark.*` knobs (eval/config.py BenchmarkConfig documents each)."""

    data_dir: str
    split: str
    chain_users: bool
    user: Any
    judge: Any
    seed_history: str
    user_opening: str
    task_ids: list


def load(cfg) -> Tau2Retail:
    """The benchmark of `benchmark=tau2_retail` (`cfg`: its options); raises ConfigError on an option
    of another benchmark, BenchmarkDataError on a malformed dataset."""
    own_options(cfg, Options, NAME)  # a knob of another benchmark is refused, named
    from eval.real.judge import LLMJudge
    from pulse.llm.endpoint import optional_client

    root = dataset_dir("tau2/retail", cfg.data_dir)
    raw = load_tasks(root)
    split = (
        read_json(root / "split_tasks.json")
        if (root / "split_tasks.json").exists()
        else {"base": [t["id"] for t in raw]}
    )
    if cfg.split not in split:
        raise BenchmarkDataError(
            f"benchmark.split: {cfg.split!r} not in {sorted(split)} ({root / 'split_tasks.json'})"
        )
    keep = set(map(str, split[cfg.split]))
    db = load_db(root / "db.json")
    policy = (root / "policy.md").read_text() if (root / "policy.md").exists() else ""
    tasks = []
    for t in raw:
        if str(t["id"]) not in keep:
            continue
        customer = customer_of(t, db)
        user = customer if (cfg.chain_users and customer) else f"task_{t['id']}"
        tasks.append(
            RealTask(
                task_id=f"tau2_retail_{t['id']}",
                user_id=user,
                project_id="retail",
                request_text=request_of(t["user_scenario"].get("instructions") or {}),
                time="",
                system_prompt=policy,
                category="retail",
                data=t,
            )
        )
    judge_ep = optional_client(cfg.judge, "judge")
    # the non-standard chained variant carries its own benchmark name, so rows and tables never mix it
    # with standard τ² numbers
    if cfg.seed_history not in ("none", "retail_db"):
        raise BenchmarkDataError(
            f"benchmark.seed_history: {cfg.seed_history!r} is not a {NAME} history (none, retail_db)"
        )
    seeded = cfg.seed_history == "retail_db"
    customers = {t.user_id: (t.user_id if cfg.chain_users else customer_of(t.data, db)) for t in tasks}
    return Tau2Retail(
        name=NAME
        + ("-chained-nonstandard" if cfg.chain_users else "")
        + ("-retail-db-history-nonstandard" if seeded else "")
        + ("-scripted-opening-nonstandard" if cfg.user_opening == "scenario" else ""),
        history_kind=cfg.seed_history,
        user_opening=cfg.user_opening,
        customers=customers,
        root=root,
        raw={t["id"]: t for t in raw},
        tasks=select(tasks, cfg),
        policy=policy,
        chain_users=cfg.chain_users,
        user_endpoint=optional_client(cfg.user, "user simulator"),
        judge=LLMJudge(judge_ep) if judge_ep else None,
        gold=_GOLD.setdefault(str(root.resolve()), {}),
    )
