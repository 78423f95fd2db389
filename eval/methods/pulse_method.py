"""Pulse and its ablations: one `PulseAgent` per task, configured by the method config.

| config (configs/method/)      | memory       | policy  | mode        | interventions |
|-------------------------------|--------------|---------|-------------|---------------|
| pulse                         | structured   | trained | streaming   | yes           |
| pulse_no_rl                   | structured   | base    | streaming   | yes           |
| pulse_flat                    | flat         | trained | streaming   | yes           |
| pulse_flat_user (Flat + User) | flat_user    | trained | streaming   | yes           |
| pulse_flat_project (Flat + Project) | flat_project | trained | streaming | yes         |
| pulse_start_only              | structured   | -       | start_only  | no            |
| pulse_supplement_only         | structured   | trained | streaming   | turned into supplements |
| pulse_flat_no_rl              | flat         | base    | streaming   | yes           |
| pulse_rule (reference)        | structured   | rule    | streaming   | yes           |

`memory` is a `pulse.memory` kind (eval/memory_backends.py): flat_user = structured user memory +
flat project memory, flat_project = flat user memory + structured project memory, i.e. flat memory
plus the structured user (resp. project) part, as in the paper's "Flat + User" / "Flat + Project".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulse.agent.runtime import PulseAgent, PulseAgentConfig
from pulse.agent.schema import SchemaTool
from pulse.agent.speculation import call_specs_from
from pulse.core.statements import vocab_from_params


def write_seed_history(memory, history, user_id: str, vocab, scope_facts: bool = True, reading=None) -> int:
    """Replay each past session as one conversation through Pulse's run-time write path: user turns
    read by the listener (`read_statement`, the tools' vocabulary), tool receipts as `tool_result`
    events; the same candidate extraction, source validation, merge and supersession as at task end
    (`PulseAgent.end`, both through `pulse.agent.writeback.commit_events`). Returns the number of
    records committed."""
    from pulse.agent.listener import read_statement
    from pulse.agent.writeback import commit_events
    from pulse.core.records import Event

    committed = 0
    for i, session in enumerate(history.sessions):
        events = []
        for n, turn in enumerate(session.turns, 1):
            eid = f"seed-{i}#{n}"
            if turn.role == "tool":
                events.append(
                    Event(
                        "tool_result",
                        n,
                        tool=turn.tool,
                        text=turn.text,
                        args=dict(turn.args),
                        time=session.time,
                        event_id=eid,
                    )
                )
            else:
                role = "user" if turn.role == "user" else "agent"
                events.append(
                    read_statement(
                        Event("message", n, role=role, text=turn.text, time=session.time, event_id=eid), vocab
                    )
                )
        committed += len(
            commit_events(
                memory,
                events,
                user_id,
                session.project_id,
                f"seed-{user_id}-{i}",
                scope_facts=scope_facts,
                read=reading.read if reading is not None else None,
            )
        )
    return committed


def tools_vocab(tools):
    """Slot vocabulary from the tools a memory agent may read: every argument's enum values, named by
    its own words; for a real benchmark's JSON-schema tools (`pulse.agent.schema.SchemaTool`) also
    the typed arguments (a domain, an e-mail) recognised by their form (`pulse.agent.schema.slot_vocab`)."""
    from pulse.agent.schema import SchemaTool, slot_vocab

    if any(isinstance(t, SchemaTool) for t in tools):
        return slot_vocab(tools)
    params: dict[str, list[str]] = {}
    for t in tools:
        for p, values in t.params.items():
            params.setdefault(p, []).extend(values)
    return vocab_from_params(params)


@dataclass
class PulseMethod:
    """Pulse and its ablations (the module docstring's table): `open_chain(seed)` builds the chain's
    `pulse.memory` of `memory_kind` from the seed history through Pulse's own write path,
    `open_session(task, memory, concurrent, tools)` returns a `PulseAgent` configured from these fields."""

    name: str
    memory_kind: str
    policy: Any
    mode: str = "streaming"
    allow_intervene: bool = True
    initial_personalization: bool = True
    writeback: bool = True
    retrieve_k: int = 6
    precheck: bool = True
    uses_memory: bool = True
    reader: Any = None  # the run's reader (set by open_chain from the seed; None = cue rules alone)

    def open_chain(self, seed):
        """Pulse builds its memory from the rendered seed sessions through its own write path, as every
        baseline does through its own (`write_seed_history`)."""
        from eval.memory_backends import open_chain_memory

        projects = {*seed.project_ids, *(s.project_id for s in seed.history.sessions)}
        mem = open_chain_memory(
            self.memory_kind, seed.root, seed.user_id, sorted(projects), (), seed.embedder
        )
        self.reader = seed.reader
        try:
            write_seed_history(
                mem, seed.history, seed.user_id, tools_vocab(seed.tools), reading=self._reading(seed.tools)
            )
        except BaseException:
            mem.close()
            raise
        return mem

    def open_session(self, task, memory, concurrent: bool, tools=()) -> PulseAgent:
        # the memory agent reads request and message text with the tools' published vocabulary;
        # it gets no task label (level, topic) and no parse of the request from the suite
        cfg = PulseAgentConfig(
            user_id=task.user_id,
            project_id=task.project_id,
            mode=self.mode,
            allow_intervene=self.allow_intervene,
            initial_personalization=self.initial_personalization,
            retrieve_k=self.retrieve_k,
            concurrent=concurrent,
            writeback=self.writeback,
            as_of=task.time,
            precheck=self.precheck,
            slot_vocab=tools_vocab(tools),
            conversation_id=task.task_id,
            tool_schemas=tuple(t for t in tools if isinstance(t, SchemaTool)),
            # tool names, parameters and artifact parameter: plan-time speculation (concurrent runs only)
            call_specs=call_specs_from(tools),
            reading=self._reading(tools),
            tool_words={t.name: f"{t.description} {getattr(t, 'service', '')}".strip() for t in tools},
        )
        return PulseAgent(memory, self.policy, cfg)

    def _reading(self, tools):
        """The run's reader bound to these tools' schema (None: no reading layer)."""
        from pulse.reading import bind_reader

        return bind_reader(self.reader, tools)


def build(cfg, ctx) -> PulseMethod:
    policy = ctx.get_policy(cfg.policy) if cfg.mode != "start_only" else None
    return PulseMethod(
        name=cfg.name,
        memory_kind=cfg.memory,
        policy=policy,
        mode=cfg.mode,
        allow_intervene=cfg.allow_intervene,
        initial_personalization=cfg.initial_personalization,
        writeback=cfg.writeback,
        retrieve_k=cfg.retrieve_k,
        precheck=cfg.precheck,
    )
