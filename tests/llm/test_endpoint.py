"""The one endpoint client (pulse/llm/endpoint.py) against a real local HTTP server (the repository's
JSON handler): retries with backoff then one EndpointError naming the URL and model, no retry on a
client error, JSON replies parsed (first object) or reported (None), the key from an environment
variable, typos and bad ranges in the config refused, and its users built on it."""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from eval.serving.json_handler import JSONHandler
from pulse.config.schema import ConfigError, to_typed
from pulse.llm.endpoint import ChatConfig, EndpointClient, EndpointConfig, EndpointError, json_reply

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


class _Scripted(JSONHandler):
    """Answers POSTs from `script` (status, reply text) in order, then the last entry forever."""

    script: list[tuple[int, str]] = []
    seen: list[dict] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        i = min(len(type(self).seen), len(self.script)) - 1
        status, text = self.script[i]
        if status != 200:
            return self._send(status, {"error": {"message": f"scripted {status}"}})
        if self.path.endswith("/embeddings"):
            data = [
                {"object": "embedding", "index": i, "embedding": [1.0, float(i)]}
                for i in range(len(body["input"]))
            ]
            return self._send(200, {"object": "list", "data": data, "model": body["model"], "usage": {}})
        self._send(
            200,
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
            },
        )


@pytest.fixture
def server():
    def start(*script: tuple[int, str]) -> str:
        _Scripted.script, _Scripted.seen = list(script), []
        srv = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return f"http://127.0.0.1:{srv.server_address[1]}/v1"

    servers: list[ThreadingHTTPServer] = []
    yield start
    for s in servers:
        s.shutdown()


def _cfg(url, **kw) -> ChatConfig:
    return ChatConfig(model="m", base_url=url, backoff_s=0.01, **kw)


def test_retries_then_succeeds(server):
    url = server((500, ""), (503, ""), (200, "hello"))
    client = EndpointClient(_cfg(url, retries=2), role="judge")
    assert client.chat([{"role": "user", "content": "hi"}]) == "hello"
    assert len(_Scripted.seen) == 3 and client.calls == 1 and client.label == f"m@{url}"


def test_retries_exhausted_raise_one_endpoint_error_naming_url_and_model(server):
    url = server((500, ""))
    client = EndpointClient(_cfg(url, retries=2), role="user simulator")
    with pytest.raises(
        EndpointError, match=r"user simulator endpoint .*127\.0\.0\.1.* \(model m\) failed after 3"
    ):
        client.chat([{"role": "user", "content": "hi"}])
    assert len(_Scripted.seen) == 3


def test_unreachable_endpoint_names_the_url():
    client = EndpointClient(_cfg("http://127.0.0.1:9/v1", retries=1, timeout_s=2), role="task-agent")
    with pytest.raises(EndpointError, match=r"task-agent endpoint http://127\.0\.0\.1:9/v1 \(model m\)"):
        client.chat([{"role": "user", "content": "hi"}])


def test_a_client_error_is_not_retried(server):
    url = server((404, ""))
    with pytest.raises(EndpointError, match="failed after 1 attempt: NotFoundError"):
        EndpointClient(_cfg(url, retries=3)).chat([{"role": "user", "content": "hi"}])
    assert len(_Scripted.seen) == 1


def test_sampling_comes_from_the_config_and_calls_can_override_it(server):
    url = server((200, "ok"))
    client = EndpointClient(_cfg(url, temperature=0.3, max_tokens=7))
    client.chat([{"role": "user", "content": "a"}])
    client.complete(
        [{"role": "user", "content": "b"}],
        max_tokens=3,
        tools=[{"type": "function", "function": {"name": "f"}}],
    )
    first, second = (s["body"] for s in _Scripted.seen)
    assert (first["temperature"], first["max_tokens"], "tools" in first) == (0.3, 7, False)
    assert (second["max_tokens"], second["tools"][0]["function"]["name"]) == (3, "f")


@pytest.mark.parametrize(
    "reply,parsed",
    [
        ('{"results": [1]}', {"results": [1]}),
        ('Sure! ```json\n{"a": {"b": 2}}\n``` and {"c": 3}', {"a": {"b": 2}}),  # the first object
        ('{not json} then {"ok": true}', {"ok": True}),
        ("[1, 2]", None),  # a list is not an object
        ("no json here", None),  # reported, never guessed
    ],
)
def test_json_reply_takes_the_first_object_or_reports_none(server, reply, parsed):
    assert json_reply(reply) == parsed
    url = server((200, reply))
    assert EndpointClient(_cfg(url)).chat_json([{"role": "user", "content": "x"}]) == parsed


def test_api_key_from_an_environment_variable(server, monkeypatch):
    url = server((200, "ok"))
    monkeypatch.setenv("PULSE_TEST_KEY", "sk-test")
    EndpointClient(_cfg(url, api_key="ignored", api_key_env="PULSE_TEST_KEY")).chat(
        [{"role": "user", "content": "x"}]
    )
    assert _Scripted.seen[0]["auth"] == "Bearer sk-test"
    monkeypatch.delenv("PULSE_TEST_KEY")
    with pytest.raises(ConfigError, match=r"api_key_env names \$PULSE_TEST_KEY, which is not set"):
        EndpointClient(_cfg(url, api_key_env="PULSE_TEST_KEY"))


def test_embeddings_in_input_order(server):
    url = server((500, ""), (200, ""))
    client = EndpointClient(EndpointConfig(model="e", base_url=url, backoff_s=0.01), role="embeddings")
    assert client.embed(["a", "b", "c"], dimensions=2) == [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    assert _Scripted.seen[-1]["path"] == "/v1/embeddings" and _Scripted.seen[-1]["body"]["dimensions"] == 2


@pytest.mark.parametrize(
    "data,match",
    [
        ({"base_urll": "http://x"}, r"'ep\.base_urll': unknown key; did you mean 'base_url'"),
        ({"retries": -1}, r"'ep\.retries': -1 is out of range \(must be >= 0\)"),
        ({"timeout_s": 0}, r"'ep\.timeout_s': 0\.0 is out of range \(must be > 0\)"),
        ({"max_tokens": "many"}, r"'ep\.max_tokens': expected an integer"),
    ],
)
def test_config_typos_and_bad_ranges_are_refused(data, match):
    with pytest.raises(ConfigError, match=match):
        to_typed(data, ChatConfig, "ep")


def _eval(overrides):
    from hydra import compose, initialize_config_dir

    from eval.config import EvalConfig

    with initialize_config_dir(str(CONFIGS), version_base="1.3"):
        return to_typed(compose("eval", overrides=overrides), EvalConfig)


def test_one_endpoint_override_moves_every_caller_and_each_caller_can_differ():
    c = _eval(
        [
            "benchmark=pibench",
            "agent=openai",
            "llm=openai",
            "endpoint=vllm",
            "endpoint.model=M",
            "benchmark.judge.model=J",
        ]
    )
    callers = {"agent": c.agent, "user": c.benchmark.user, "judge": c.benchmark.judge, "llm": c.llm}
    assert {k: v.base_url for k, v in callers.items()} == dict.fromkeys(callers, "http://localhost:8000/v1")
    assert {k: v.model for k, v in callers.items()} == {"agent": "M", "user": "M", "judge": "J", "llm": "M"}
    default = _eval(["benchmark=pibench"])  # endpoint=none: no simulator, the offline judge
    assert not default.benchmark.user.configured and not default.benchmark.judge.configured
    with pytest.raises(ConfigError, match=r"'endpoint\.retries': -2 is out of range"):
        _eval(["endpoint.retries=-2"])


def test_the_endpoint_preset_is_not_part_of_the_config_hash():
    from eval.provenance import config_hash

    a, b = _eval(["endpoint=local"]), _eval([])
    assert config_hash(a) == config_hash(b)  # nothing reads it here (agent=simulated, llm=offline)
    assert config_hash(_eval(["agent=openai", "endpoint=local"])) != config_hash(_eval(["agent=openai"]))


def test_policy_backend_and_memory_llm_use_the_client(server):
    from eval.config import LLMConfig
    from eval.methods.memory_llm import build_llm
    from pulse.config.schema import PolicyBackendConfig
    from pulse.core.policy_io import PolicyInput
    from pulse.core.records import Event
    from pulse.policy.factory import build_policy

    url = server((500, ""), (200, 'x {"action": "silent"}'))
    policy = build_policy(
        PolicyBackendConfig(backend="openai", name_or_path="pol", base_url=url, prompt_style="rich")
    )
    (out,) = policy.decide_batch([PolicyInput((Event("request", 0, text="hi"),), ())])
    assert out.decision.action == "silent" and policy.name == f"openai:pol@{url}"

    llm = build_llm(LLMConfig(name="openai", model="mem", base_url=url, retries=0))
    got, call = llm.json_call("p", "sys", "user", standin=lambda: {"never": "used"})
    assert got == {"action": "silent"} and call.ok
    assert _Scripted.seen[-1]["body"]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    "preset",
    sorted(p.stem for p in (CONFIGS / "endpoint").glob("*.yaml")),
)
def test_every_endpoint_preset_composes_with_every_caller(preset):
    c = _eval([f"endpoint={preset}", "agent=openai", "llm=openai", "benchmark=tau2_retail"])
    assert c.agent.base_url == c.llm.base_url == c.benchmark.user.base_url == c.endpoint.base_url
