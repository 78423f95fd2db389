"""π-Bench as a Pulse benchmark: 5 personas × 20 tasks in episode order, one workspace per persona.

Score (π-Bench's COMP, `checklist_evaluator.py`): per scored task COMP_t = Σ w·v / Σ w over its
checklist criteria, v = the judge's verdict; per persona Σ |group_t|·COMP_t / Σ |group_t|; the
average over personas (`eval.metrics.suite_comp`). Departures, stated in every manifest:
- each turn's trace is the conversation up to the end of that turn (π-Bench renders the session
  history the agent had, up to 100 messages, with selected tool arguments); verdicts are ORed over
  turns as in π-Bench;
- the 27 rule scripts (`tools_evaluation_path`) are not distributed with the data, so their
  "[tools] <key>" criteria are not scored; a task whose only objective is a rule script scores 0
  and is marked `rule_script_only`;
- without a judge endpoint the verdicts come from an offline *proxy* (a criterion is met when most
  of its content words occur in the agent's replies or the files it read/wrote); the manifest, the
  rows and the tables say "proxy, not comparable to π-Bench".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
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
from eval.real.judge import Verdicts
from eval.real.pibench.env import Workspace
from eval.real.pibench.loader import appworld_tools, load_all

NAME = "pibench"
VERSION = "pibench-d1d1ed3"
PROXY_LABEL = "proxy, not comparable to π-Bench"
_WORD = re.compile(r"[a-z0-9][a-z0-9.%-]*")
_STOP = set(
    "the a an and or of to in on for with by is are be that this it as at from should must each all any "
    "its their your not no into than then also which who whom what when where how more most least".split()
)


class ProxyJudge:
    """Offline stand-in for the checklist judge: a criterion is met when ≥ `threshold` of its content
    words occur in the agent's text. Its numbers are labelled "proxy, not comparable to π-Bench"."""

    label = f"offline lexical judge ({PROXY_LABEL})"

    def __init__(self, threshold: float = 0.6):
        self.threshold = threshold

    def judge(
        self,
        criteria: Sequence[str],
        transcript: Sequence[dict[str, Any]],
        context: str = "",
        outputs: str = "",
    ) -> Verdicts:
        # only what the agent produced: its replies and the files_read artifacts (never the hidden
        # intents in `context`, nor tool results, which would hand it the criteria's words)
        said = " ".join(str(m.get("content") or "") for m in transcript if m.get("role") == "assistant")
        have = set(_WORD.findall((said + " " + outputs).lower()))
        met = []
        for c in criteria:
            words = [w for w in _WORD.findall(c.lower()) if w not in _STOP and len(w) > 2]
            met.append(bool(words) and sum(w in have for w in words) / len(words) >= self.threshold)
        return Verdicts(met, 0)


@dataclass
class PiBench(RealBenchmarkBase):
    """π-Bench as a `Benchmark` (the module docstring): five personas' tasks in episode order, one workspace
    per persona, the hidden-intent user simulator (with a user endpoint), and the COMP checklist score by the
    LLM judge, else the offline proxy (labelled). Built by `load(cfg)`."""

    root: Path
    tasks: tuple[RealTask, ...]
    judge: Any
    user_endpoint: Any = None
    name: str = NAME
    version: str = VERSION
    seed: int = 0
    metric: str = "comp"

    @property
    def proxy(self) -> bool:
        return isinstance(self.judge, ProxyJudge)

    @property
    def judge_label(self) -> str:
        how = "whole transcript" if self.proxy else "per turn, ORed over turns"
        return (
            f"checklist by {self.judge.label} ({how}); "
            "rule-script criteria not scored (scripts not distributed)"
        )

    nonstandard = ""

    # the file look-ups and the (offline) web reads only read; writes, edits, shell and AppWorld are gated
    read_only_tools: frozenset = frozenset({"list_dir", "read_file", "web_search", "web_fetch"})

    def chains(self) -> dict[str, list[RealTask]]:
        return chains_of(self.tasks)

    def seed_memory(self, user_id: str) -> tuple:
        return ()

    def open_env(self, user_id: str, transport: str = "direct"):
        from eval.mcp_bridge import serve_env

        return serve_env(
            Workspace(user_id, appworld_tools(self.root / user_id)), transport, "pibench-workspace"
        )

    def scripted_calls(self, task: RealTask, script: str) -> list[tuple[str, dict[str, Any]]]:
        if script == "noop":
            return []
        raise BenchmarkDataError(
            f"agent.script: {script!r} is not a {NAME} script (noop); π-Bench has no gold actions"
        )

    def user_simulator(self, task: RealTask):
        if self.user_endpoint is None:
            return None
        from eval.real.pibench.user_sim import PiBenchUser

        return PiBenchUser(self.user_endpoint, task.request_text, task.data.hidden_intents)

    def score(self, task: RealTask, env: Workspace, outcome: Any) -> Score:
        extra = getattr(outcome, "extra", {}) or {}
        detail: dict[str, Any] = {"judge": "proxy" if self.proxy else "llm"}
        if self.proxy:
            detail["label"] = PROXY_LABEL
        if "user_state" in extra:
            detail["proc"] = extra[
                "user_state"
            ]  # covered / intents of this task (PROC numerator / denominator)
        if not task.scored:
            return Score(0.0, {}, {**detail, "note": "prerequisite: no checklist (not in COMP)"})
        crit = [c for c, _ in task.data.checklist]
        if not crit:
            return Score(0.0, {}, {**detail, "rule_script_only": True})
        files = []
        for rel in task.data.files_read:
            text = env.text(rel)
            files.append(f'<file name="{rel}">{text if text is not None else "[file missing]"}</file>')
        intents = "\n".join(f"- {h}" for h in task.data.hidden_intents)
        context = f"Full hidden intent:\n{intents}\n\n" + "\n".join(files)
        transcript = extra.get("transcript", [])
        if self.proxy:
            v = self.judge.judge(crit, transcript, context, outputs="\n".join(files))
        else:
            v = judge_per_turn(self.judge, crit, transcript, context)
        w = [wt for _, wt in task.data.checklist]
        comp = sum(wi for wi, m in zip(w, v.met) if m) / sum(w)  # COMP_t = Σ w·v / Σ w
        detail.update(
            criteria_met=sum(v.met),
            criteria=len(crit),
            judge_unparsed=v.unparsed,
            rule_script_not_scored=bool(task.data.rule_script),
        )
        return Score(comp, {"comp": comp}, detail)


def turn_ends(transcript: Sequence[dict[str, Any]]) -> list[int]:
    """End index (exclusive) of each turn: a turn is a user message and everything up to the next one."""
    starts = [i for i, m in enumerate(transcript) if m.get("role") == "user"] or [0]
    return [*starts[1:], len(transcript)]


def judge_per_turn(
    judge, criteria: Sequence[str], transcript: Sequence[dict[str, Any]], context: str
) -> Verdicts:
    """π-Bench's checklist verdicts: the judge reads each turn's trace (the history up to the end of that
    turn, plus the files_read artifacts from the final workspace) and a criterion is met when it is met
    in any turn (OR over turns)."""
    met = [False] * len(criteria)
    unparsed = 0
    for end in turn_ends(transcript):
        v = judge.judge(criteria, transcript[:end], context)
        met = [a or b for a, b in zip(met, v.met)]
        unparsed += v.unparsed
    return Verdicts(met, unparsed)


@dataclass(frozen=True)
class Options:
    """π-Bench's own `benchmark.*` knobs (eval/config.py BenchmarkConfig documents each)."""

    data_dir: str
    user: Any
    judge: Any
    task_ids: list


def load(cfg) -> PiBench:
    own_options(cfg, Options, NAME)  # a knob of another benchmark is refused, named
    from eval.real.judge import LLMJudge
    from pulse.llm.endpoint import optional_client

    root = Path(cfg.path) if cfg.path else dataset_dir("pibench", cfg.data_dir)
    by_persona = load_all(root)
    tasks = [t for ts in by_persona.values() for t in ts]
    judge_ep = optional_client(cfg.judge, "judge")
    return PiBench(
        root=root,
        tasks=select(tasks, cfg),
        judge=LLMJudge(judge_ep) if judge_ep else ProxyJudge(),
        user_endpoint=optional_client(cfg.user, "user simulator"),
    )
