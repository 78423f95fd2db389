"""`gold_facts`: the upper bound of any memory on a generated suite (a reference row, never ranked).

Before each step's decision it delivers, as plain sentences the suite's reader reads, the step's
true value of every argument whose value comes from the user's memory (preference, revised,
project, conditional: `eval.agents.simulated.MEMORY_SOURCES`), dated at the task; and it holds a
candidate call exactly when one of those arguments is wrong (once per step: a second hold makes the
agent give up), citing the true values. Nothing missed, nothing stale, no needless hold: what a
perfect memory agent could do at the right moments. The agent still takes each value through the
one uptake model (`p_use_delivered`, the load penalty, what the user said, what a hold makes it do),
so this row is what memory can buy in this world, not 100 %.

It is the one method that reads the benchmark's gold: the harness hands it the suite's task
(`reads_gold = True`) instead of the `TaskView` every other method gets, and it runs only on the
generated suites with the simulated agent (its step counter follows that agent's one
`take_supplements` per step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eval.methods.none import NoMemorySession
from pulse.agent.gate import GateDecision
from pulse.agent.runtime import Delivery
from pulse.core.errors import PulseUserError
from pulse.core.records import Decision, MemoryItem


def _sentence(slot: str, value: str) -> str:
    return f"For this step, use {slot.replace('_', ' ')} {value}."


class _GoldSession(NoMemorySession):
    """A session that starts with nothing and observes nothing: it hands out the task's gold."""

    def __init__(self, task):
        from eval.agents.simulated import MEMORY_SOURCES

        super().__init__()
        self.user = task.user_id
        self.held: set[int] = set()
        self.steps = [
            {a.slot: a.gold for a in step.args if a.source in MEMORY_SOURCES} for step in task.steps
        ]
        self.next_step = 0

    def decide_call(self, event):
        """Hold the call when an argument memory should set is wrong (once per step)."""
        step = self.next_step - 1
        if step < 0 or step in self.held:
            return None
        wrong = {s: v for s, v in self.steps[step].items() if str(event.args.get(s, v)) != v}
        if not wrong:
            return None
        self.held.add(step)
        items = tuple(
            MemoryItem(f"gold_{slot}", "preference", f"user:{self.user}", _sentence(slot, v), slot, v)
            for slot, v in wrong.items()
        )
        text = " ".join(m.text for m in items)
        self.stats.interventions += 1
        self.stats.retrieve_tokens += Delivery(items, text, event.step, "intervene").tokens
        return GateDecision(Decision("intervene", tuple(m.item_id for m in items)), items, text)

    def take_supplements(self, wait=False):
        """Called once before each step's decision: that step's true memory values."""
        if self.next_step >= len(self.steps):
            return []
        values = self.steps[self.next_step]
        self.next_step += 1
        if not values:
            return []
        text = " ".join(_sentence(slot, v) for slot, v in values.items())
        d = Delivery((), text, self.next_step, "supplement")
        self.stats.supplements += 1
        self.stats.retrievals += 1
        self.stats.retrieve_tokens += d.tokens
        self.stats.deliveries.append(d)
        return [d]


@dataclass
class GoldFacts:
    """`method=gold_facts` (the module docstring): the upper bound of the generated suites. `check(bench)`
    refuses a benchmark without step gold; `open_session(task, ...)` needs the suite's own task (`reads_gold`)
    and raises PulseUserError otherwise."""

    name: str = "gold_facts"
    uses_memory: bool = False
    memory_kind: str = ""
    reads_gold: bool = True  # the harness hands it the benchmark's task, not a TaskView

    def check(self, bench) -> None:
        """Refused before any episode on a benchmark without step gold (the real benchmarks)."""
        from eval.suites.schema import SimTask

        if not bench.tasks or not isinstance(bench.tasks[0], SimTask):
            from pulse.config.schema import ConfigError

            raise ConfigError(
                f"method=gold_facts is the upper bound of the generated suites (their steps' gold); "
                f"{bench.name!r} has no step gold"
            )

    def open_chain(self, seed):
        return None

    def open_session(self, task: Any, memory: Any, concurrent: bool, tools=()):
        if not hasattr(task, "steps"):
            raise PulseUserError(
                f"method=gold_facts needs a generated suite's task (its steps' gold); "
                f"{type(task).__name__} has none"
            )
        return _GoldSession(task)


def build(cfg, ctx) -> GoldFacts:
    return GoldFacts(name=cfg.name)
