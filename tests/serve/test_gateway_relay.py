"""`pulse serve` relays the MCP surface beyond tool calls, driven by the official MCP client over stdio
in front of two copies of a small upstream (fixtures/relay_server.py, tags a and b): resources,
templates and prompts of every upstream beside Pulse's own; progress notifications to the caller;
cancellation of the upstream call; the tools' fields (title, annotations, outputSchema, execution,
_meta) intact and a task-requiring tool refused with the reason; elicitation and roots forwarded to
a client that declares them (else declined), a stdio client's roots change reaching a 2025-11-25
upstream; opt-in name prefixes for upstreams with the same
names, with gating and memory keyed by the prefixed name."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
FIXTURE = REPO / "tests" / "serve" / "fixtures" / "relay_server.py"


def upstream(name: str, *extra: str, events: Path | None = None) -> list[str]:
    args = f"[{FIXTURE},--tag,{name}" + (f",--events,{events}" if events else "") + "]"
    return [f"+upstreams.{name}.command={PY}", f"+upstreams.{name}.args={args}", *extra]


def gateway(mem: Path, *upstream_args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=PY,
        cwd=str(REPO),
        args=["-m", "pulse.cli.serve", "user_id=ada", f"memory.root={mem}", *upstream_args],
    )


def two(mem: Path, *extra: str, events: Path | None = None) -> StdioServerParameters:
    """Upstreams a and b (the same tools, prompt and resource names), both prefixed."""
    return gateway(
        mem,
        *upstream("a", "+upstreams.a.prefix=true", events=events),
        *upstream("b", "+upstreams.b.prefix=true"),
        *extra,
    )


def text(res) -> str:
    return res.content[0].text


def test_resources_templates_and_prompts_of_every_upstream_pass_through(tmp_path):
    async def session():
        async with Client(two(tmp_path / "mem"), cache=None) as c:
            resources = {str(r.uri): r.name for r in (await c.list_resources()).resources}
            templates = [
                (t.name, t.uri_template) for t in (await c.list_resource_templates()).resource_templates
            ]
            prompts = {p.name: p.description for p in (await c.list_prompts()).prompts}
            readme_b = await c.read_resource("relay://b/readme")
            note_a = await c.read_resource("relay://a/notes/groceries")
            mine = await c.read_resource("pulse://memories")
            greet_b = await c.get_prompt("b_greet", {"name": "Ada"})
            greet_a = await c.get_prompt("a_greet", {"name": "Ada"})
            return resources, templates, prompts, readme_b, note_a, mine, greet_b, greet_a

    resources, templates, prompts, readme_b, note_a, mine, greet_b, greet_a = anyio.run(session)
    assert resources["relay://a/readme"] == "a_readme" and resources["relay://b/readme"] == "b_readme"
    assert "pulse://memories" in resources and "pulse://preferences" in resources
    assert ("a_note", "relay://a/notes/{name}") in templates and (
        "b_note",
        "relay://b/notes/{name}",
    ) in templates
    assert prompts["a_greet"] == "greeting from a" and prompts["b_greet"] == "greeting from b"
    assert "pulse_preferences" in prompts
    assert readme_b.contents[0].text == "readme of upstream b"
    assert note_a.contents[0].text == "note groceries of upstream a"
    assert json.loads(mine.contents[0].text) == []
    assert greet_b.messages[0].content.text == "Hello Ada, from upstream b"
    assert greet_a.messages[0].content.text == "Hello Ada, from upstream a"


def test_progress_reaches_the_caller_and_cancelling_a_call_cancels_the_upstream_call(tmp_path):
    events = tmp_path / "events.txt"

    async def session():
        seen = []

        async def progress(p, total, message):
            seen.append((p, total, message))

        async with Client(two(tmp_path / "mem", events=events), cache=None) as c:
            counted = await c.call_tool("a_count", {"steps": 3}, progress_callback=progress)
            with anyio.move_on_after(3):
                await c.call_tool("a_sleep", {"seconds": 60})
            deadline = time.monotonic() + 20
            while "cancelled" not in (events.read_text() if events.exists() else ""):
                assert time.monotonic() < deadline, "the upstream call was not cancelled"
                await anyio.sleep(0.1)
            after = await c.call_tool("b_count", {"steps": 1})  # the gateway keeps serving
            return counted, seen, after

    counted, seen, after = anyio.run(session)
    assert text(counted) == "counted to 3"
    assert seen == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]
    assert events.read_text().split() == ["started", "cancelled"]
    assert text(after) == "counted to 1"


def test_tool_fields_pass_through_and_a_task_requiring_tool_is_refused_with_the_reason(tmp_path):
    async def session(mode):
        # `execution` exists in 2025-11-25 only: upstream a speaks it (as server-everything does)
        async with Client(two(tmp_path / "mem", "+upstreams.a.mode=legacy"), cache=None, mode=mode) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            return tools, await c.call_tool("a_background_job", {})

    (legacy, refused), (modern, _) = anyio.run(session, "legacy"), anyio.run(session, "auto")
    job = legacy["a_background_job"]  # a 2025-11-25 client: every field, execution included
    assert job.execution is not None and job.execution.task_support == "required"
    assert job.title == "A background job" and job.annotations.title == "Background job"
    assert job.annotations.open_world_hint is False
    assert job.output_schema["properties"] == {"done": {"type": "boolean"}}
    assert job.meta == {"example.com/owner": "a"}
    assert legacy["a_count"].annotations.read_only_hint is True
    # 2026-07-28 has no `execution` on the wire (tasks left the core spec); the rest is intact
    assert modern["b_background_job"].title == "A background job" and modern["b_background_job"].meta
    assert refused.is_error and "cannot relay tasks" in text(refused) and "taskSupport" in text(refused)


def test_elicitation_and_roots_reach_a_client_that_declares_them_and_are_declined_otherwise(tmp_path):
    async def elicit(ctx, params):
        assert params.message == "Which colour?"
        return types.ElicitResult(action="accept", content={"colour": "teal"})

    async def roots(ctx):
        return types.ListRootsResult(roots=[types.Root(uri="file:///home/ada/project", name="project")])

    async def session(mode, *callbacks_and_args):
        cb = {"elicitation_callback": elicit, "list_roots_callback": roots} if callbacks_and_args[0] else {}
        params = two(tmp_path / "mem", *callbacks_and_args[1:])
        async with Client(params, cache=None, mode=mode, **cb) as c:
            asked = json.loads(text(await c.call_tool("a_ask_colour", {})))
            listed = await c.call_tool("b_show_roots", {})
            return asked, listed

    # a 2026-07-28 client: the upstream's input requests pass through to it; its answers come back
    asked, listed = anyio.run(session, "auto", True)
    assert asked["action"] == "accept" and asked["content"] == {"colour": "teal"}
    assert asked["state"] == "colour-a"  # the upstream's request_state came back with the answer
    assert json.loads(text(listed)) == ["file:///home/ada/project"]
    # a 2025-11-25 client: the gateway asks it with elicitation/create and roots/list
    asked, listed = anyio.run(session, "legacy", True)
    assert asked["content"] == {"colour": "teal"} and json.loads(text(listed)) == ["file:///home/ada/project"]
    # a 2025-11-25 upstream asks the gateway during the call; forwarded to the caller
    asked, listed = anyio.run(session, "legacy", True, "+upstreams.a.mode=legacy", "+upstreams.b.mode=legacy")
    assert asked["content"] == {"colour": "teal"} and json.loads(text(listed)) == ["file:///home/ada/project"]
    # a client without the capabilities: the upstream gets a clear decline
    asked, listed = anyio.run(session, "auto", False)
    assert asked["action"] == "decline" and "does not support elicitation" in asked["meta"]["pulse/declined"]
    assert json.loads(text(listed)) == []


def test_prefixes_let_two_upstreams_with_the_same_names_share_one_gateway_and_memory_uses_them(tmp_path):
    clash = subprocess.run(
        [
            PY,
            "-m",
            "pulse.cli.serve",
            "user_id=ada",
            f"memory.root={tmp_path / 'm0'}",
            *upstream("a"),
            *upstream("b"),
        ],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert clash.returncode != 0 and "prefix" in clash.stderr and "write_note" in clash.stderr

    async def session():
        params = gateway(
            tmp_path / "mem",
            *upstream("a", "+upstreams.a.prefix=docs"),
            *upstream("b", "+upstreams.b.prefix=true"),
        )
        async with Client(params, cache=None) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            said = await c.call_tool(
                "pulse_remember",
                {
                    "statement": "Save my notes only under /home/ada/notes.",
                    "slot": "path",
                    "value": "/home/ada/notes",
                    "tool": "docs_write_note",
                },
            )
            a = await c.call_tool("docs_write_note", {"path": "/tmp/x", "text": "hi"})
            b = await c.call_tool("b_write_note", {"path": "/tmp/x", "text": "hi"})
            ok = await c.call_tool("docs_write_note", {"path": "/home/ada/notes", "text": "hi"})
            listed = await c.call_tool("pulse_memories", {})
            return names, said, a, b, ok, listed

    names, said, a, b, ok, listed = anyio.run(session)
    assert {"docs_write_note", "b_write_note", "docs_count", "b_count"} <= names and "write_note" not in names
    assert "(about docs_write_note)" in text(said)
    assert a.is_error and text(a).startswith("NOT EXECUTED") and "'docs_write_note'" in text(a)
    assert not b.is_error and json.loads(text(b)) == {
        "tag": "b",
        "arguments": {"path": "/tmp/x", "text": "hi"},
    }
    assert not ok.is_error and json.loads(text(ok))["tag"] == "a"  # relayed under the upstream's own name
    assert [m["tool"] for m in listed.structured_content["memories"]] == ["docs_write_note"]


def test_over_streamable_http_progress_elicitation_and_resources_pass_through(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = gateway(tmp_path / "mem", *upstream("a"), "transport=http", f"port={port}")
    proc = subprocess.Popen(
        [cmd.command, *cmd.args], cwd=REPO, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()[-2000:]
                time.sleep(0.2)

        async def elicit(ctx, params):
            return types.ElicitResult(action="accept", content={"colour": "ochre"})

        async def session(mode):
            seen = []

            async def progress(p, total, message):
                seen.append(p)

            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(url, cache=None, mode=mode, elicitation_callback=elicit) as c:
                counted = await c.call_tool("count", {"steps": 2}, progress_callback=progress)
                asked = json.loads(text(await c.call_tool("ask_colour", {})))
                readme = await c.read_resource("relay://a/readme")
                return text(counted), seen, asked["content"], readme.contents[0].text

        for mode in ("auto", "legacy"):
            assert anyio.run(session, mode) == (
                "counted to 2",
                [1.0, 2.0],
                {"colour": "ochre"},
                "readme of upstream a",
            ), mode
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
def test_a_stdio_clients_roots_change_reaches_a_handshake_era_upstream_which_gets_them(tmp_path):
    events = tmp_path / "events.txt"
    current = ["file:///home/ada/one"]

    async def roots(ctx):
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in current])

    async def session():
        params = gateway(tmp_path / "mem", *upstream("a", "+upstreams.a.mode=legacy", events=events))
        async with Client(params, cache=None, mode="legacy", list_roots_callback=roots) as c:
            current[:] = ["file:///home/ada/two", "file:///srv/data"]
            await c.session.send_roots_list_changed()
            deadline = time.monotonic() + 20
            while "roots" not in (events.read_text() if events.exists() else ""):
                assert time.monotonic() < deadline, "the upstream never got the client's roots"
                await anyio.sleep(0.1)

    anyio.run(session)
    assert events.read_text().split() == ["roots", "file:///home/ada/two", "file:///srv/data"]
