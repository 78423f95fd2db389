"""The template benchmark (TEMPLATE, not a result): the class implementing eval/benchmark.py's protocol.

Copy this folder to start a benchmark; each method below is one thing the harness asks of a benchmark.
Score: 0 without a booking; otherwise the share of the gold booking's three checks (the flight the
request names, the cabin, the seat) that the task's last booking passes; each check is a component.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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
from eval.real.mock.env import CABINS, FLIGHTS, SEATS, MockEnv
from eval.real.mock.loader import Gold, load_tasks

NAME = "mock"
VERSION = "template-1"
SCRIPTS = ("gold", "noop", "request_only")


@dataclass
class MockBenchmark(RealBenchmarkBase):
    """The template (`benchmark=mock`): three flight bookings of one user with two remembered
    preferences. Built by `load(cfg)`; `chains()` groups the tasks per user, `open_env(user)` gives the
    chain's tools, `score(task, env, outcome)` the task's `Score`, `seed_history(user)` the user's past,
    `scripted_calls(task, script)` the calls of the offline scripted agent (agent=scripted)."""

    tasks: tuple[RealTask, ...]
    name: str = NAME
    version: str = VERSION
    seed: int = 0
    metric: str = "mean"
    judge_label: str = "TEMPLATE benchmark (eval/real/mock/): deterministic checks, not a result"
    nonstandard: str = "template: not a benchmark result (eval/real/mock/)"
    read_only_tools: frozenset = frozenset({"find_flights"})

    def chains(self) -> dict[str, list[RealTask]]:
        return chains_of(self.tasks)

    def open_env(self, user_id: str, transport: str = "direct"):
        from eval.mcp_bridge import serve_env

        return serve_env(MockEnv(), transport, "mock")  # transport=mcp serves the same tools over MCP

    def seed_memory(self, user_id: str) -> tuple:
        return ()  # the past is in the seed history, as conversations

    def seed_history(self, user_id: str):
        from eval.real.mock.seed_history import mock_history

        return mock_history(user_id)

    def user_simulator(self, task: RealTask):
        return None  # one request per task; a benchmark with a user simulator returns it here (user_sim.py)

    def scripted_calls(self, task: RealTask, script: str) -> list[tuple[str, dict[str, Any]]]:
        """gold: the gold booking; noop: no call; request_only: what the request states, the first
        allowed value for the rest (what a task agent without memory books)."""
        g: Gold = task.data
        find = ("find_flights", {"destination": g.destination})
        if script == "gold":
            return [
                find,
                ("book_flight", {"flight_id": FLIGHTS[g.destination], "cabin": g.cabin, "seat": g.seat}),
            ]
        if script == "noop":
            return []
        if script == "request_only":
            args = {
                "flight_id": FLIGHTS[g.destination],
                "cabin": g.cabin if "cabin" in g.stated else CABINS[0],
                "seat": g.seat if "seat" in g.stated else SEATS[0],
            }
            return [find, ("book_flight", args)]
        raise BenchmarkDataError(f"agent.script: {script!r} is not a {NAME} script ({', '.join(SCRIPTS)})")

    def score(self, task: RealTask, env: MockEnv, outcome: Any) -> Score:
        g: Gold = task.data
        if not env.bookings:
            return Score(0.0, {"flight": 0.0, "cabin": 0.0, "seat": 0.0}, {"note": "no booking"})
        b = env.bookings[-1]
        comps = {
            "flight": float(b["flight_id"] == FLIGHTS[g.destination]),
            "cabin": float(b["cabin"] == g.cabin),
            "seat": float(b["seat"] == g.seat),
        }
        return Score(sum(comps.values()) / len(comps), comps, {"booking": b})

    def intervention_correct(self, task: RealTask, tool: str, args: Mapping[str, Any], evidence) -> bool:
        """Right when the held booking differs from the gold one on the cabin or the seat and the
        evidence names the gold value of such an argument."""
        g: Gold = task.data
        if tool != "book_flight":
            return False
        said = " ".join(f"{getattr(m, 'value', '')} {getattr(m, 'text', '')}" for m in evidence).lower()
        wrong = [v for k, v in (("cabin", g.cabin), ("seat", g.seat)) if args.get(k) != v]
        return any(v in said for v in wrong)


@dataclass(frozen=True)
class Options:
    """The template's own `benchmark.*` knobs beyond the keys every benchmark has (eval/config.py
    BenchmarkConfig documents each). A benchmark's own knob (a data folder, a split) is a field here
    and a key in configs/benchmark/<name>.yaml; any other knob set for it is refused, named."""

    task_ids: list


def load(cfg) -> MockBenchmark:
    """The benchmark of `benchmark=mock`; raises ConfigError on an option of another benchmark and
    BenchmarkDataError on a selection naming no task (`benchmark.personas`, `benchmark.task_ids`)."""
    own_options(cfg, Options, NAME)
    return MockBenchmark(tasks=select(load_tasks(), cfg))
