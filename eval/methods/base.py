"""The method interface: what memory the task agent gets, and when.

A method opens one `MemorySession` per task. The task agent calls the session at the same points
for every method: `start` with the request (initial personalization), `observe` for every public
non-gate event, `decide_call` for every candidate tool call (return None = no gate), and
`take_supplements` before each decision; `end` at task end (memory writes). `PulseAgent` is one
such session; a memory baseline (Mem0, LightMem, A-MEM, ...) is another: add one file with a
`build(cfg, ctx) -> Method` and one `configs/method/<name>.yaml`, and register it in
`eval/registry.py`.

The task a method receives (`open_session(task, ...)`) is a `TaskView`: what a deployed memory
agent is told about a task before anything happens, whichever benchmark it comes from:
  task_id       unique id of the task (a conversation id for memory writes)
  user_id       the user whose memory the chain shares
  project_id    the project / workspace the task belongs to ("" = none)
  request_text  the user's request as the benchmark states it (the actual first message also
                arrives as the `request` event given to `start`)
  time          ISO date-time of the task ("" when the benchmark has none)
Everything else (the plan, subgoals, checkpoints, levels, gold) stays with the benchmark; what
happens during the task reaches the session only as public events. `tools`: ToolSpecs of a
generated suite; () for a real benchmark (its JSON-schema tools reach the session only as
`candidate_call` events).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from eval.benchmark import RealTask
from eval.suites.schema import SimTask, ToolSpec
from pulse.agent.gate import GateDecision
from pulse.agent.runtime import AgentStats, Delivery
from pulse.core.records import Event


@dataclass(frozen=True)
class TaskView:
    """What a method may know of a task (see the module docstring)."""

    task_id: str
    user_id: str
    project_id: str
    request_text: str
    time: str


def task_view(task: SimTask | RealTask) -> TaskView:
    """The method's view of a benchmark task: its identity, request and time, nothing of its plan."""
    return TaskView(task.task_id, task.user_id, task.project_id, task.request_text, task.time)


class MemorySession(Protocol):
    """One task's memory session, as every task agent calls it (the module docstring): `start(request)`,
    `observe(event)`, `decide_call(event)` (None: no gate), `take_supplements()` before each decision, and
    `end(completed)` returning the episode's stats."""

    def start(self, request: Event) -> Delivery | None: ...

    def observe(self, event: Event) -> None: ...

    def decide_call(self, event: Event) -> GateDecision | None: ...

    def take_supplements(self, wait: bool = False) -> list[Delivery]: ...

    def end(self, completed: bool = True) -> AgentStats: ...


class Method(Protocol):
    """A memory method, as the harness uses it: `open_chain(seed)` builds its memory for one persona chain
    (when `uses_memory`), `open_session(task, memory, concurrent, tools)` gives one task's `MemorySession`.
    `name` is its row name, `memory_kind` what its memory is. Built by its module's `build(cfg, ctx)`
    (eval/registry.py METHODS)."""

    name: str
    uses_memory: bool
    memory_kind: str

    def open_chain(self, seed: Any) -> Any:
        """The seed hook: build this method's own memory for one persona chain from the seed history
        (`eval.methods.seed.ChainSeed`: the user's and projects' past conversations with times, the
        run's embedder, a fresh folder). Called only when `uses_memory`; the result (which has
        `close()`) is the `memory` every `open_session` of the chain gets."""
        ...

    def open_session(
        self, task: TaskView, memory: Any, concurrent: bool, tools: Sequence[ToolSpec] = ()
    ) -> MemorySession:
        """`tools`: the schemas the task agent's environment publishes (what a memory agent may read)."""
        ...


@dataclass(frozen=True)
class MethodContext:
    """What the harness hands a method factory besides its own config: lazily built policies."""

    get_policy: Any  # callable(source: str) -> Policy; source in {trained, base, rule}
    # callable() -> the run's memory-side LLM client (eval/methods/memory_llm.py), built on first use
    llm: Any = None
