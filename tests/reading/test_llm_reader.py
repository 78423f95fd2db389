"""The llm reader against a real local HTTP endpoint (the repository's JSON handler, the real openai
client): the reply is brought onto the schema, replies are cached on disk, an unparsable reply reads
as no facts and is counted."""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer

import pytest

from eval.serving.json_handler import JSONHandler
from pulse.llm.endpoint import ChatConfig
from pulse.reading import Schema, make_reader

SCHEMA = Schema.from_json_tools(
    [
        {
            "name": "book_flight",
            "arguments": {
                "seat": {"type": "string", "enum": ["aisle", "window"]},
                "budget": {"type": "integer", "description": "dollars"},
            },
        }
    ]
)


class _Reply(JSONHandler):
    reply = ""
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        message = {"role": "assistant", "content": type(self).reply}
        self._send(
            200,
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )


@pytest.fixture
def endpoint():
    _Reply.requests = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Reply)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield ChatConfig(model="m", base_url=f"http://127.0.0.1:{srv.server_address[1]}/v1", backoff_s=0.01)
    srv.shutdown()


def test_reply_is_brought_onto_the_schema_and_cached(endpoint, tmp_path):
    _Reply.reply = json.dumps(
        {
            "facts": [
                {
                    "argument": "seat",
                    "value": "Window",
                    "holder": "user",
                    "kind": "preference",
                    "condition": "",
                },
                {"argument": "budget", "value": "300.0", "polarity": "avoid"},
                {"argument": "seat", "value": "bulkhead"},  # not one of the seat's values
                {"argument": "colour", "value": "red"},  # no tool has it
                {"argument": "seat", "value": "aisle", "holder": "person:Priya", "kind": "habit"},
            ]
        }
    )
    reader = make_reader("llm", endpoint=endpoint, cache=str(tmp_path))
    out = reader.read("I want a window seat; Priya usually sits by the aisle.", SCHEMA)
    assert [(f.argument, f.value, f.polarity, f.holder, f.kind) for f in out] == [
        ("seat", "window", "prefer", "user", "preference"),
        ("budget", "300", "avoid", "user", "preference"),
        ("seat", "aisle", "prefer", "person:Priya", "habit"),
    ]
    prompt = _Reply.requests[0]["messages"][1]["content"]
    assert "seat (tool book_flight; one of ['aisle', 'window'])" in prompt
    again = reader.read("I want a window seat; Priya usually sits by the aisle.", SCHEMA)
    assert again == out and len(_Reply.requests) == 1 and reader.cache_hits == 1


def test_an_unparsable_reply_reads_as_no_facts_and_is_counted(endpoint, tmp_path):
    _Reply.reply = "I think the user wants a window seat."
    reader = make_reader("llm", endpoint=endpoint, cache=str(tmp_path))
    assert reader.read("window please", SCHEMA) == []
    assert reader.parse_failures == 1
