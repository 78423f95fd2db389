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


def _chat_with_slots(*caches):
    from eval.serving.gguf_server import GGUFChat, _Slot

    chat = GGUFChat.__new__(GGUFChat)  # no model: only the prompt-cache routing is under test
    chat.slots = []
    for used, toks in enumerate(caches):
        slot = _Slot(ctx=None)
        slot.tokens, slot.used = list(toks), float(used)
        chat.slots.append(slot)
    return chat


def test_prompt_cache_routes_a_growing_conversation_to_its_own_slot():
    agent, user = [1, 2, 3, 4, 5, 6], [1, 2, 9, 9]
    chat = _chat_with_slots(agent, user)
    slot, shared = chat._slot_for(agent + [7, 8])
    assert slot is chat.slots[0] and shared == 6
    slot, shared = chat._slot_for(user + [5])
    assert slot is chat.slots[1] and shared == 4


def test_prompt_cache_does_not_evict_another_callers_conversation_for_a_short_shared_prefix():
    # a new conversation sharing only the chat template's first tokens goes to the least recently used
    # slot, not to the slot it shares two tokens with
    chat = _chat_with_slots([1, 2, 3, 4, 5, 6], [7, 8, 9])
    slot, shared = chat._slot_for([1, 2, 40, 41])
    assert slot is chat.slots[0] and shared == 2  # slot 0 is the least recently used
    chat.slots[0].used = 10.0
    slot, shared = chat._slot_for([1, 2, 40, 41])
    assert slot is chat.slots[1] and shared == 0


def test_prompt_cache_reuses_most_of_a_slot_when_a_turn_is_edited():
    # the renderer merges a new user turn into the previous one: the shared prefix stops inside the
    # cache, and more than half of it is kept
    chat = _chat_with_slots([1, 2, 3, 4, 5, 6, 7, 8], [20, 21])
    slot, shared = chat._slot_for([1, 2, 3, 4, 5, 6, 99])
    assert slot is chat.slots[0] and shared == 6
