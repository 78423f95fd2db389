"""`pulse serve` in front of a third-party server from npm (`@modelcontextprotocol/server-filesystem`,
started with `npx -y`), driven by the official MCP client over stdio: the upstream's tools are listed
and a read-only call passes through; a preference about where `write_file` writes holds a
contradicting `write_file` and never `create_directory` or `edit_file` (the measured bug: a `path`
preference held every other tool with a `path`); `pulse_forget` removes it and the write then lands on
disk. Skipped (with the reason) when `npx` is missing or the package cannot be started within 60 s."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
PACKAGE = "@modelcontextprotocol/server-filesystem"


@pytest.fixture(scope="module")
def npx(tmp_path_factory) -> str:
    """The `npx` binary, once the package has been seen to start (it exits at the end of stdin)."""
    exe = shutil.which("npx")
    if exe is None:
        pytest.skip(f"npx is not installed: cannot start the npm server {PACKAGE}")
    root = tmp_path_factory.mktemp("npm-probe")
    try:
        r = subprocess.run(
            [exe, "-y", PACKAGE, str(root)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"`npx -y {PACKAGE}` did not start within 60 s (offline or no npm registry?)")
    if "running on stdio" not in r.stderr + r.stdout:
        pytest.skip(f"`npx -y {PACKAGE}` did not start (rc {r.returncode}): {r.stderr.strip()[-300:]}")
    return exe


@pytest.fixture
def root(tmp_path) -> Path:
    d = tmp_path / "files"
    d.mkdir()
    (d / "hello.txt").write_text("hello from disk\n")
    return d.resolve()


def gateway(npx: str, root: Path, mem: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=PY,
        cwd=str(REPO),
        args=[
            "-m",
            "pulse.cli.serve",
            "user_id=ada",
            f"memory.root={mem}",
            f"+upstreams.fs.command={npx}",
            f"+upstreams.fs.args=[-y,{PACKAGE},{root}]",
        ],
    )


def text(res) -> str:
    return res.content[0].text


def held(res) -> bool:
    return res.is_error and text(res).startswith(("NOT EXECUTED", "STILL HELD"))


def passed(res) -> bool:
    assert not res.is_error, text(res)
    return True


def remember_path(root: Path) -> dict:
    """The user's words about where `write_file` writes, bound to that tool's `path` argument."""
    notes = str(root / "notes.txt")
    return {"statement": f"Save files only to {notes}.", "slot": "path", "value": notes, "tool": "write_file"}


def test_the_npm_servers_tools_are_listed_and_a_read_only_call_passes_through(npx, root, tmp_path):
    async def session():
        async with Client(gateway(npx, root, tmp_path / "mem"), cache=None) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            read = await c.call_tool("read_text_file", {"path": str(root / "hello.txt")})
            listing = await c.call_tool("list_directory", {"path": str(root)})
            return tools, read, listing

    tools, read, listing = anyio.run(session)
    assert {"write_file", "read_text_file", "create_directory", "edit_file", "list_directory"} <= set(tools)
    assert {"pulse_remember", "pulse_forget", "pulse_memories"} <= set(tools)
    assert tools["edit_file"].input_schema["properties"].keys() >= {"path", "edits", "dryRun"}
    assert tools["read_text_file"].annotations.read_only_hint is True
    assert passed(read) and text(read) == "hello from disk\n"
    assert passed(listing) and "[FILE] hello.txt" in text(listing)


def test_a_write_file_path_preference_never_holds_create_directory_or_edit_file(npx, root, tmp_path):
    other = root / "other.txt"
    diff = [{"oldText": "hello", "newText": "bye"}]

    async def session():
        async with Client(gateway(npx, root, tmp_path / "mem"), cache=None) as c:
            said = await c.call_tool("pulse_remember", remember_path(root))
            out = [said]
            for tool, args in [
                ("write_file", {"path": str(other), "content": "x"}),
                ("write_file", {"path": str(root / "notes.txt"), "content": "kept"}),
                ("create_directory", {"path": str(root / "archive")}),
                ("edit_file", {"path": str(root / "hello.txt"), "edits": diff, "dryRun": True}),
                ("read_text_file", {"path": str(root / "hello.txt")}),
            ]:
                out.append(await c.call_tool(tool, args))
            return out

    said, write_other, write_notes, mkdir, dry_edit, read = anyio.run(session)
    assert passed(said) and "(about write_file)" in text(said) and said.structured_content["stored"]
    assert held(write_other) and write_other.meta["pulse/evidence"] and not other.exists()
    assert passed(write_notes) and (root / "notes.txt").read_text() == "kept"  # the preferred path passes
    assert passed(mkdir) and (root / "archive").is_dir()
    assert passed(dry_edit) and "+bye from disk" in text(dry_edit)
    assert (root / "hello.txt").read_text() == "hello from disk\n"  # a dry run changes nothing
    assert passed(read) and text(read) == "hello from disk\n"


def test_forgetting_the_preference_lets_the_same_write_through_to_disk(npx, root, tmp_path):
    other = root / "other.txt"
    call = {"path": str(other), "content": "written after forget\n"}

    async def session():
        async with Client(gateway(npx, root, tmp_path / "mem"), cache=None) as c:
            said = await c.call_tool("pulse_remember", remember_path(root))
            before = await c.call_tool("write_file", call)
            exists_while_held = other.exists()
            pid = said.structured_content["stored"][0]["id"]
            gone = await c.call_tool("pulse_forget", {"id": pid})
            memories = await c.call_tool("pulse_memories", {})
            after = await c.call_tool("write_file", call)
            return pid, before, exists_while_held, gone, memories, after

    pid, before, exists_while_held, gone, memories, after = anyio.run(session)
    assert held(before) and not exists_while_held
    assert passed(gone) and gone.structured_content["forgotten"][0]["id"] == pid
    assert memories.structured_content["memories"] == []
    assert passed(after) and other.read_text() == "written after forget\n"
