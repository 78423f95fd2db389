"""The typed config of `pulse serve` (configs/serve.yaml), checked once by `to_typed` at start.

Unknown keys, values outside a Literal's choices and numbers outside their range stop the gateway
with one line naming the dotted key (exit 2), before any upstream is started.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pulse.config.schema import ConfigError, Dtype, PolicyBackendConfig, knob


@dataclass(frozen=True)
class UpstreamConfig:
    """One upstream MCP server (`upstreams.<name>`): a command started over stdio, or a streamable-HTTP
    URL."""

    command: str = ""  # executable started as a stdio MCP server ("" when `url` is set)
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # extra environment for the command
    cwd: str = ""  # working directory of the command ("" = the gateway's)
    url: str = ""  # streamable-HTTP endpoint, e.g. http://127.0.0.1:9000/mcp ("" when `command` is set)
    # tools of this upstream never held by the gate, beside those annotated readOnlyHint
    read_only_tools: list[str] = field(default_factory=list)
    # true: one call at a time to this upstream (for a server that cannot take concurrent requests);
    # false: calls from every session go out concurrently (MCP multiplexes them over one connection)
    serial: bool = False
    # false: tool, prompt and resource names as the upstream lists them | true: "<upstream name>_"
    # before each | a string: that prefix ("_" added after a letter or digit). Gating and memory use
    # the prefixed name, so a preference about one upstream's tool never holds another's.
    prefix: bool | str = False
    # auto: the 2026-07-28 protocol where the server speaks it, else the initialize handshake |
    # legacy: the initialize handshake always (for a server that mishandles server/discover)
    mode: Literal["auto", "legacy"] = "auto"


@dataclass(frozen=True)
class ServeMemoryConfig:
    """Where and how `pulse serve` keeps the user's memory: root folder, memory kind, embedder, sync mode and
    reader."""

    root: str = ""  # this user's memory root (a folder; created if missing)
    kind: Literal["structured", "flat", "flat_user", "flat_project"] = "structured"
    # bm25 (lexical, no model) | minilm (packaged weights) | openai (an /v1/embeddings endpoint)
    # | hash (tests)
    embedder: Literal["bm25", "minilm", "openai", "hash"] = "bm25"
    # background: a commit returns before its fsync (durable within ~0.5 s; a crash of the gateway
    # loses nothing) | commit: every commit fsyncs first (a power cut loses nothing; slower commits)
    sync: Literal["background", "commit"] = "background"
    # how `pulse_remember` and the session's end read what the user says (pulse/reading/): offline
    # (the deterministic reader: paraphrased values, whose preference, habits, conditions, one-offs) |
    # rule (none: only statements that spell an argument's value are tied to it)
    reader: Literal["offline", "rule"] = "offline"


@dataclass(frozen=True)
class ServePolicyConfig:
    """`rule`: the gold decision rule (no model); any other backend is a `pulse.policy` backend."""

    backend: Literal["rule", "transformers", "openai", "vllm"] = "rule"
    name_or_path: str = ""
    base_url: str = ""
    api_key: str = "EMPTY"
    api_key_env: str = ""  # name of an environment variable holding the key (replaces api_key)
    prompt_style: Literal["auto", "compact", "compact_marked", "rich"] = "auto"
    max_new_tokens: int = knob(32, ge=1)
    dtype: Dtype = "float32"

    def backend_config(self) -> PolicyBackendConfig:
        """The `PolicyBackendConfig` for these settings (one decision per batch)."""
        return PolicyBackendConfig(
            backend=self.backend,
            name_or_path=self.name_or_path,  # type: ignore[arg-type]
            base_url=self.base_url,
            api_key=self.api_key,
            api_key_env=self.api_key_env,
            prompt_style=self.prompt_style,
            max_new_tokens=self.max_new_tokens,
            batch_size=1,
            dtype=self.dtype,
        )


@dataclass(frozen=True)
class ServeAgentConfig:
    """The gateway's memory agent settings: interventions allowed, retrieval k, prompt prefix length,
    write-back at the end and the session's opening line."""

    # False: every intervene becomes a supplement (nothing is ever held)
    allow_intervene: bool = True
    retrieve_k: int = knob(6, ge=1)
    # events kept in the policy prompt besides the session's opening line
    max_prefix_events: int = knob(12, ge=1)
    # commit the session's tool receipts (project memory) and statements when the gateway stops
    writeback: bool = True
    # the opening line of the session the policy reads as the request
    request: str = "An MCP session through pulse serve."  # neutral: its words are part of the situation


@dataclass(frozen=True)
class ServeConfig:
    """The whole `pulse serve` configuration: user and project, transport, timeouts, upstream MCP servers, and
    the memory, policy and agent settings."""

    user_id: str = ""
    project_id: str = ""  # "" = user memory only
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"  # http only
    port: int = knob(8765, ge=1, le=65535)  # http only
    path: str = "/mcp"  # http only
    # seconds an upstream may take to start and list its tools, and to answer one call
    start_timeout_s: float = knob(30.0, gt=0.0)
    call_timeout_s: float = knob(120.0, gt=0.0)
    # name -> upstream; e.g. +upstreams.retail.command=python '+upstreams.retail.args=[-m,pkg.server]'
    upstreams: dict[str, UpstreamConfig] = field(default_factory=dict)
    memory: ServeMemoryConfig = field(default_factory=ServeMemoryConfig)
    policy: ServePolicyConfig = field(default_factory=ServePolicyConfig)
    agent: ServeAgentConfig = field(default_factory=ServeAgentConfig)


def up_prefix(name: str, up: UpstreamConfig) -> str:
    """The prefix `upstreams.<name>.prefix` puts before the upstream's tool, prompt and resource names."""
    if up.prefix is True:
        return f"{name}_"
    if not up.prefix:
        return ""
    pre = str(up.prefix)
    return pre + "_" if pre[-1].isalnum() else pre


def check(cfg: ServeConfig) -> ServeConfig:
    """What the schema cannot say: required values and the upstream list's consistency."""
    if not cfg.user_id:
        raise ConfigError("config key 'user_id': required (one gateway serves one user's memory)")
    if not cfg.memory.root:
        raise ConfigError("config key 'memory.root': required (this user's memory folder)")
    if not cfg.upstreams:
        raise ConfigError("config key 'upstreams': give at least one upstream MCP server (command or url)")
    for name, up in cfg.upstreams.items():
        key = f"upstreams.{name}"
        if bool(up.command) == bool(up.url):
            raise ConfigError(f"config key '{key}': set exactly one of 'command' (stdio) or 'url' (http)")
        pre = up_prefix(name, up)
        if pre and not all(c.isalnum() or c in "_-./" for c in pre):
            raise ConfigError(
                f"config key '{key}.prefix': {up.prefix!r} holds characters a tool name cannot "
                f"(letters, digits, _ - . /)"
            )
        if up.url and not up.url.startswith(("http://", "https://")):
            raise ConfigError(f"config key '{key}.url': {up.url!r} is not an http(s) URL")
    if cfg.policy.backend != "rule" and not cfg.policy.name_or_path:
        raise ConfigError(
            f"config key 'policy.name_or_path': required for policy.backend={cfg.policy.backend}"
        )
    return cfg


# hydra's command-line flags that take a value (the word after them is no override)
_VALUE_FLAGS = frozenset(
    {"-cd", "--config-dir", "-cn", "--config-name", "-cp", "--config-path", "-c", "--cfg", "-p", "--package"}
)
QUOTING = (
    "quote a value holding ',', '=', spaces or brackets inside the override, e.g. "
    "'+upstreams.fs.args=[-y,\"--root=/data/a,b\"]' or 'memory.root=\"/data/x=y\"', "
    "or put the config in a YAML file: pulse serve -cd DIR -cn NAME"
)


def _overrides(argv: list[str]) -> list[str]:
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a.startswith("-"):
            skip = a in _VALUE_FLAGS
        else:
            out.append(a)
    return out


def _known(cls: Any, path: list[str], done: int = 0) -> str:
    """ "" when `path[done:]` names a field of `cls` (a dict field takes any key below it; an
    upstream's name is any key), else one line naming the first unknown part and a close match."""
    import dataclasses
    import difflib
    import typing

    for i in range(done, len(path)):
        part, hints = path[i], typing.get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        if part not in names:
            close = difflib.get_close_matches(part, names, n=1, cutoff=0.6)
            where = ".".join(path[: i + 1])
            return f"config key {where!r}: unknown" + (f" (did you mean {close[0]!r}?)" if close else "")
        t = hints[part]
        if dataclasses.is_dataclass(t):
            cls = t
            continue
        if typing.get_origin(t) is dict:
            if part == "upstreams" and len(path) > i + 2:  # upstreams.<name>.<field>
                return _known(UpstreamConfig, path, i + 2)
            return ""
        if i + 1 < len(path):
            return f"config key {'.'.join(path[: i + 2])!r}: unknown ({'.'.join(path[: i + 1])!r} is a value)"
    return ""


def check_overrides(argv: list[str]) -> None:
    """The command line's overrides, checked before hydra reads them: one ConfigError line for a key
    the config does not have (with `+` too) or an override hydra cannot parse (module `QUOTING`)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import OverrideType

    parser = OverridesParser.create()
    own_file = any(a in ("-cn", "--config-name") or a.startswith("--config-name=") for a in argv)
    for arg in _overrides(argv):
        try:
            (o,) = parser.parse_overrides([arg])
        except Exception:
            key = arg.strip("'\"").lstrip("+~").split("=", 1)[0]
            raise ConfigError(f"config key {key!r}: cannot read {arg!r}; {QUOTING}") from None
        path = o.key_or_group.split(".")
        if path[0] == "hydra":
            continue
        why = _known(ServeConfig, path)
        if why:
            raise ConfigError(why)
        if o.type == OverrideType.CHANGE and path[0] == "upstreams" and len(path) > 1 and not own_file:
            raise ConfigError(
                f"config key {o.key_or_group!r}: configs/serve.yaml has no upstream {path[1]!r}; "
                f"add it with '+': +{arg}"
            )
        if o.type == OverrideType.ADD and path[0] != "upstreams" and len(path) <= 2:
            raise ConfigError(f"config key {o.key_or_group!r}: already in the config; set it without '+'")
