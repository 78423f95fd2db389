"""The GGUF endpoint's tool-call parsing and message rendering (no model needed)."""

from __future__ import annotations

import json

from eval.serving.gguf_server import parse_tool_calls, render_messages

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "open_website",
            "description": "Open a site",
            "parameters": {"type": "object", "properties": {"site": {"type": "string"}}},
        },
    }
]


def test_tool_calls_from_bare_json_or_a_code_block_only_for_known_tools():
    calls = parse_tool_calls(
        '```json\n{"name": "open_website", "arguments": {"site": "kayak.com"}}\n```', {"open_website"}
    )
    assert len(calls) == 1 and json.loads(calls[0]["function"]["arguments"]) == {"site": "kayak.com"}
    assert parse_tool_calls('{"name": "made_up", "arguments": {}}', {"open_website"}) == []
    assert parse_tool_calls("I found it on kayak.com.", {"open_website"}) == []
    two = parse_tool_calls(
        '{"name": "open_website", "arguments": "{\\"site\\": \\"a.com\\"}"} {"name": "open_website", '
        '"arguments": {"site": "b.com"}}',
        {"open_website"},
    )
    assert len(two) == 1 and json.loads(two[0]["function"]["arguments"]) == {"site": "a.com"}


def test_messages_render_tools_into_the_system_turn_and_results_as_user_turns():
    msgs = render_messages(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "open_website", "arguments": '{"site": "a.com"}'}}],
            },
            {"role": "tool", "content": "ok"},
            {"role": "user", "content": "thanks"},
        ],
        TOOLS,
    )
    assert msgs[0]["role"] == "system" and "open_website" in msgs[0]["content"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert "Tool result: ok" in msgs[-1]["content"] and "thanks" in msgs[-1]["content"]
