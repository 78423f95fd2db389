"""The one benchmark protocol, and the task record every method may read.

Every benchmark, generated (eval/suites/<name>/) or real (eval/real/<name>/), implements it; it lives
here, above both, so neither imports the other. A benchmark (`load(cfg) -> Benchmark`) gives:
  tasks            `RealTask`s in execution order; one user's tasks form a chain (shared memory)
  open_env(user)   a `ToolEnv` for that chain; `env.begin(task)` before each task (τ² resets its
                   database there, π-Bench keeps the persona's workspace)
  score(task, env, outcome) -> `Score` (score in [0, 1] and named components)
  user_simulator(task) -> a `UserSimulator` or None (single-request benchmarks)
  scripted_calls(task, script) -> the tool calls an offline scripted agent makes ("gold", "noop", ...)
  seed_memory(user) -> memory items the chain starts with (none for these benchmarks today)
  seed_history(user) -> the chain's past as sessions (eval/methods/seed.py), what every method's
                   `open_chain` builds its memory from
  tools(user)    -> what a memory agent may read about the tools: for the real benchmarks their JSON
                   schemas as `pulse.agent.schema.SchemaTool`s (arguments, types, enums, and whether
                   a call is read-only: `read_only_tools`, or MCP annotations, pulse.agent.call_kinds)
The generated suites implement it in eval/suites/benchmark.py; the harness has one run path for all.
Adding a benchmark: copy the template eval/real/mock/ (one folder: `__init__.py` exporting
`load(cfg)`, `benchmark.py` with the class; docs/benchmarks.md "Adding a benchmark"), one
`configs/benchmark/<name>.yaml`, one line in eval/registry.py.
The methods see only `RealTask`'s documented attributes (eval/methods/base.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pulse.core.errors import PulseUserError


class BenchmarkDataError(PulseUserError, ValueError):
    """A benchmark file failed validation; the message names the file, the record and the key."""


@dataclass(frozen=True)
class RealTask:
    """One task of a benchmark: what a method may read (ids, the request, the time) and what only the task
    agent and the harness use (system prompt, category, level, dependencies, whether it is scored, and the
    benchmark's own record in `data`)."""

    # -- what a method may read (eval/methods/base.py) --
    task_id: str
    user_id: str
    project_id: str
    request_text: str  # the user's first message / instruction, as the task agent receives it
    time: str  # ISO date the task happens at ("" when the benchmark has none)
    # -- for the task agent and the harness --
    system_prompt: str = ""  # benchmark policy / domain rules for the task agent ("" = the agent's default)
    category: str = ""
    level: int = 0
    depends_on: tuple[str, ...] = ()
    scored: bool = True  # False: a prerequisite task that π-Bench leaves out of COMP
    data: Any = field(
        default=None, compare=False, repr=False
    )  # the benchmark's own record (never read by methods)


@dataclass(frozen=True)
class Score:
    """A task's score in [0, 1], with its named components, how it was reached (`detail`) and further fields
    the benchmark adds to the episode row (`row`)."""

    score: float
    components: dict[str, float] | None = None  # named score components (rows: `components`)
    detail: dict[str, Any] | None = None  # how the score was reached (rows: `score_detail`)
    row: dict[str, Any] = field(
        default_factory=dict
    )  # further fields of the benchmark's own, top level in the row


class ToolEnv(Protocol):
    """The tools of one persona chain (`Benchmark.open_env`): `tool_schemas()` lists them, `begin(task)` runs
    before each task, `env(tool, args)` executes one call (a `ToolCallError` for a bad call), `close()`
    releases it. `transport` is "direct" or "mcp"."""

    transport: str

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas ({"type": "function", "function": {...}})."""
        ...

    def begin(self, task: RealTask) -> None: ...

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any: ...

    def close(self) -> None: ...


def string_tool(name: str, description: str, params: Mapping[str, str]) -> dict[str, Any]:
    """An OpenAI function-tool schema whose arguments are all required strings (`params`: argument name ->
    its description), the shape `ToolEnv.tool_schemas` returns."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
                "required": list(params),
            },
        },
    }


class UserSimulator(Protocol):
    """A benchmark's simulated user for multi-turn tasks: `first_message()` opens the conversation,
    `reply(transcript)` answers the assistant, and `is_stop(text)` says whether a reply ends it."""

    def first_message(self) -> str: ...

    def reply(self, transcript: Sequence[dict[str, Any]]) -> str:
        """The user's next message given the conversation so far (role/content dicts, user view)."""
        ...

    def is_stop(self, text: str) -> bool: ...


class Benchmark(Protocol):
    """The benchmark protocol the harness runs (the module docstring lists each member): its identity (`name`,
    `version`, `seed`, `metric`, `judge_label`), its `tasks`, `chains()` (tasks per user, in order),
    `open_env`, `score`, `user_simulator`, `scripted_calls`, `seed_memory`, `seed_history` and `tools`. A
    benchmark module's `load(cfg)` returns one."""

    name: str
    version: str
    seed: int
    metric: str
    tasks: tuple[RealTask, ...]
    judge_label: str  # what the manifest and the tables say about the judge

    def chains(self) -> dict[str, list[RealTask]]: ...

    def open_env(self, user_id: str, transport: str = "direct") -> ToolEnv: ...

    def score(self, task: RealTask, env: ToolEnv, outcome: Any) -> Score: ...

    def user_simulator(self, task: RealTask) -> UserSimulator | None: ...

    def scripted_calls(self, task: RealTask, script: str) -> list[tuple[str, dict[str, Any]]]: ...

    def seed_memory(self, user_id: str) -> tuple: ...

    def seed_history(self, user_id: str) -> Any: ...

    def tools(self, user_id: str) -> tuple: ...


class RealBenchmarkBase:
    """What the real benchmarks share: the seed history rendered from their seed memory, and their
    tools as JSON schemas read into `SchemaTool`s (the benchmark's `read_only_tools` list says which
    calls only read, where the schemas carry no MCP annotations)."""

    read_only_tools: frozenset[str] = frozenset()

    def seed_history(self, user_id: str):
        from eval.methods.seed import seed_history

        return seed_history(user_id, self.seed_memory(user_id))  # type: ignore[attr-defined]

    def tool_schemas(self, user_id: str) -> list[dict[str, Any]]:
        """The OpenAI function-tool schemas the chain's environment publishes."""
        env = self.open_env(user_id)  # type: ignore[attr-defined]
        try:
            return env.tool_schemas()
        finally:
            env.close()

    def tools(self, user_id: str) -> tuple:
        from pulse.agent.schema import SchemaTool

        return tuple(SchemaTool.from_openai(s, self.read_only_tools) for s in self.tool_schemas(user_id))


# benchmarks that are templates for a new one, never a result: `pulse tables` leaves their runs out
TEMPLATE_BENCHMARKS = frozenset({"mock"})

# keys every benchmark takes (eval/config.py BenchmarkConfig); the rest belong to some benchmarks only
COMMON_KEYS = ("name", "seed", "path", "transport", "max_tasks", "personas")


def own_options(cfg, options_cls, name: str):
    """The benchmark's own knobs, typed by its `Options` dataclass: a knob of another benchmark never
    passes silently.

    Args:
        cfg: the run's `BenchmarkConfig`.
        options_cls: the benchmark's `Options` dataclass; its fields name the `benchmark.*` keys it
            reads beyond `COMMON_KEYS`.
        name: the benchmark's name, for the error.

    Returns:
        An `options_cls` with those keys' values.

    Raises:
        ConfigError: a key set to a non-default value that this benchmark does not read (names it and
            the benchmark's options).
    """
    from dataclasses import fields

    from eval.config import BenchmarkConfig
    from pulse.config.schema import ConfigError

    own = {f.name for f in fields(options_cls)}
    default = BenchmarkConfig()
    for f in fields(BenchmarkConfig):
        if f.name in COMMON_KEYS or f.name in own:
            continue
        if getattr(cfg, f.name) != getattr(default, f.name):
            raise ConfigError(
                f"benchmark.{f.name}: not an option of {name} (its own options: "
                f"{', '.join(sorted(own)) or 'none'}; every benchmark: {', '.join(COMMON_KEYS[2:])})"
            )
    return options_cls(**{k: getattr(cfg, k) for k in own})


def chains_of(tasks: Sequence[RealTask]) -> dict[str, list[RealTask]]:
    """Tasks grouped into chains by user, in task order (users in order of their first task).

    Args:
        tasks: the benchmark's tasks, in execution order.

    Returns:
        user_id -> that user's tasks.
    """
    out: dict[str, list[RealTask]] = {}
    for t in tasks:
        out.setdefault(t.user_id, []).append(t)
    return out


def select(tasks: Sequence[RealTask], cfg) -> tuple[RealTask, ...]:
    """The tasks a run keeps: `benchmark.task_ids` (a fixed subset), then `benchmark.personas` and
    `benchmark.max_tasks` (the first N tasks of each user), as for the generated suites.

    Args:
        tasks: the benchmark's tasks, in execution order.
        cfg: the run's `BenchmarkConfig` (or anything with `personas`, `max_tasks` and optionally
            `task_ids`).

    Returns:
        The kept tasks, in their order.

    Raises:
        BenchmarkDataError: a task id or persona that is not the benchmark's.
    """
    ids = list(getattr(cfg, "task_ids", None) or ())
    if ids:
        known = {t.task_id for t in tasks}
        unknown = sorted(set(ids) - known)
        if unknown:
            raise BenchmarkDataError(f"benchmark.task_ids: {unknown[:5]} not among the benchmark's task ids")
        tasks = [t for t in tasks if t.task_id in set(ids)]
    if cfg.personas:
        known = {t.user_id for t in tasks}
        unknown = sorted(set(cfg.personas) - known)
        if unknown:
            raise BenchmarkDataError(f"benchmark.personas: {unknown} not among the benchmark's users")
        tasks = [t for t in tasks if t.user_id in cfg.personas]
    if cfg.max_tasks > 0:
        count: dict[str, int] = {}
        kept = []
        for t in tasks:
            count[t.user_id] = count.get(t.user_id, 0) + 1
            if count[t.user_id] <= cfg.max_tasks:
                kept.append(t)
        tasks = kept
    return tuple(tasks)
