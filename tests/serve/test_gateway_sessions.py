"""`pulse serve` sessions, holds and the user's memory, driven by the official MCP client over stdio and
streamable HTTP in front of a small upstream (fixtures/files_server.py): separate holds per session,
an unchanged retry held again until the user confirms, gating keyed by tool and argument (nested
arguments too), concurrent calls, `pulse_forget` / `pulse_memories`, the statement size cap, and
configuration errors as one line with exit status 2."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
FIXTURE = REPO / "tests" / "serve" / "fixtures" / "files_server.py"
HTML = "Export my reports as HTML."
PDF = {"title": "Q3", "options": {"format": "pdf", "pages": 3}}


def serve_args(mem: Path, *extra: str) -> list[str]:
    return [
        "-m",
        "pulse.cli.serve",
        "user_id=ada",
        f"memory.root={mem}",
        f"+upstreams.files.command={PY}",
        f"+upstreams.files.args=[{FIXTURE}]",
        *extra,
    ]


def stdio(mem: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=PY, cwd=str(REPO), args=serve_args(mem, *extra))


def text(res) -> str:
    return res.content[0].text


def held(res) -> bool:
    return res.is_error and text(res).startswith(("NOT EXECUTED", "STILL HELD"))


def echoed(res) -> dict:
    assert not res.is_error, text(res)
    return json.loads(text(res))["arguments"]


class HttpGateway:
    def __init__(self, mem: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = subprocess.Popen(
            [PY, *serve_args(mem, "transport=http", f"port={self.port}")],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.close()
                    raise RuntimeError(f"gateway did not start: {self.proc.stderr.read()[-2000:]}") from None
                time.sleep(0.2)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


@pytest.fixture
def http_gateway(tmp_path):
    gw = HttpGateway(tmp_path / "mem")
    yield gw
    gw.close()


def test_two_http_clients_get_separate_holds_and_confirmations(http_gateway):
    async def go():
        url = http_gateway.url
        async with Client(url, cache=None, mode="legacy") as a, Client(url, cache=None, mode="legacy") as b:
            said = await a.call_tool("pulse_remember", {"statement": HTML})
            a1 = await a.call_tool("export_report", PDF)
            b1 = await b.call_tool("export_report", PDF)  # its own first hold, not A's retry
            a2 = await a.call_tool("export_report", {**PDF, "_pulse_confirm": True})
            b2 = await b.call_tool("export_report", PDF)  # A's confirmation is A's alone
            b3 = await b.call_tool("export_report", {**PDF, "_pulse_confirm": True})
            return said, a1, b1, a2, b2, b3

    said, a1, b1, a2, b2, b3 = anyio.run(go)
    assert not said.is_error and "options.format" in text(said)
    assert held(a1) and text(a1).startswith("NOT EXECUTED")
    assert held(b1) and text(b1).startswith("NOT EXECUTED")  # B never saw A's hold
    assert echoed(a2) == PDF  # confirmed: relayed without the confirmation argument
    assert held(b2) and text(b2).startswith("STILL HELD")
    assert echoed(b3) == PDF


def test_sessionless_http_request_confirms_with_the_hold_token(http_gateway):
    async def go():
        async with Client(http_gateway.url, cache=None) as c:  # protocol 2026-07-28: no session
            await c.call_tool("pulse_remember", {"statement": HTML})
            first = await c.call_tool("export_report", PDF)
            token = first.meta["pulse/hold"]
            wrong = await c.call_tool("export_report", {**PDF, "title": "Q4", "_pulse_confirm": token})
            ok = await c.call_tool("export_report", {**PDF, "_pulse_confirm": token})
            return first, wrong, ok

    first, wrong, ok = anyio.run(go)
    assert held(first) and first.meta["pulse/hold"].startswith("hold-")
    assert held(wrong)  # a token confirms the call it was given for, no other
    assert echoed(ok) == PDF


def test_an_unchanged_retry_is_held_again_until_the_user_confirms_once(tmp_path):
    async def session(*steps):
        async with Client(stdio(tmp_path / "mem"), cache=None) as c:
            return [await c.call_tool(tool, args) for tool, args in steps]

    said, first, again, changed, confirmed, later = anyio.run(
        session,
        ("pulse_remember", {"statement": HTML}),
        ("export_report", PDF),
        ("export_report", PDF),
        ("export_report", {**PDF, "options": {"format": "html", "pages": 3}}),
        ("export_report", {**PDF, "_pulse_confirm": True}),
        ("export_report", PDF),  # the confirmation holds for this session
    )
    assert text(first).startswith("NOT EXECUTED") and "_pulse_confirm" in text(first)
    evidence = [e["id"] for e in first.meta["pulse/evidence"]]
    assert text(again).startswith("STILL HELD") and evidence[0] in text(again)
    assert again.meta["pulse/evidence"] == first.meta["pulse/evidence"]
    assert echoed(changed)["options"] == {"format": "html", "pages": 3}  # nested argument followed
    assert echoed(confirmed) == PDF and echoed(later) == PDF
    # a one-off: the next session holds it again, and a confirmation of a call never held is none
    (fresh, early) = anyio.run(
        session, ("export_report", PDF), ("export_report", {**PDF, "title": "Q9", "_pulse_confirm": True})
    )
    assert text(fresh).startswith("NOT EXECUTED") and text(early).startswith("NOT EXECUTED")


def test_a_preference_about_one_tools_argument_never_holds_another_tool(tmp_path):
    async def session():
        async with Client(stdio(tmp_path / "mem"), cache=None) as c:
            out = [
                await c.call_tool(
                    "pulse_remember", {"statement": "When saving notes, always use latin-1 encoding."}
                )
            ]
            out.append(
                await c.call_tool(
                    "pulse_remember",
                    {
                        "statement": "Save my notes only under /home/ada/notes.",
                        "slot": "path",
                        "value": "/home/ada/notes",
                        "tool": "save_note",
                    },
                )
            )
            for tool, args in [
                ("save_note", {"path": "/home/ada/notes", "text": "x", "encoding": "ascii"}),
                ("archive_logs", {"path": "/var/log", "encoding": "ascii"}),
                ("save_note", {"path": "/tmp/x", "text": "x", "encoding": "latin-1"}),
                ("create_directory", {"path": "/tmp/x"}),
                ("archive_logs", {"path": "/tmp/x", "encoding": "utf-8"}),
            ]:
                out.append(await c.call_tool(tool, args))
            return out

    said_enc, said_path, note_enc, logs_enc, note_path, mkdir, logs_path = anyio.run(session)
    assert "(about save_note)" in text(said_enc) and "(about save_note)" in text(said_path)
    assert held(note_enc) and held(note_path)
    assert not held(logs_enc) and not held(mkdir) and not held(logs_path)


def test_a_general_preference_holds_every_tool_with_that_argument(tmp_path):
    async def session():
        async with Client(stdio(tmp_path / "mem"), cache=None) as c:
            said = await c.call_tool("pulse_remember", {"statement": "Always use latin-1 encoding."})
            a = await c.call_tool("save_note", {"path": "/n", "text": "x", "encoding": "ascii"})
            b = await c.call_tool("archive_logs", {"path": "/l", "encoding": "ascii"})
            return said, a, b

    said, a, b = anyio.run(session)
    assert "(about" not in text(said) and held(a) and held(b)


def test_a_slow_call_of_one_client_does_not_delay_another_clients_fast_call(http_gateway):
    done: dict[str, float] = {}

    async def slow(url):
        async with Client(url, cache=None, mode="legacy") as c:
            await c.call_tool("echo", {"label": "warm"})
            await c.call_tool("wait", {"seconds": 4, "label": "slow"})
            done["slow"] = time.monotonic()

    async def fast(url):
        async with Client(url, cache=None, mode="legacy") as c:
            await c.call_tool("echo", {"label": "warm"})
            await anyio.sleep(1.0)
            t0 = time.monotonic()
            await c.call_tool("echo", {"label": "fast"})
            done["fast"] = time.monotonic()
            done["fast_s"] = done["fast"] - t0

    async def go():
        async with anyio.create_task_group() as tg:
            tg.start_soon(slow, http_gateway.url)
            tg.start_soon(fast, http_gateway.url)

    anyio.run(go)
    assert done["fast"] < done["slow"] and done["fast_s"] < 2.0, done


def test_forget_removes_a_memory_and_the_listing_shows_it_gone(tmp_path):
    async def session():
        async with Client(stdio(tmp_path / "mem"), cache=None) as c:
            said = await c.call_tool("pulse_remember", {"statement": HTML})
            await c.call_tool(
                "pulse_remember",
                {
                    "statement": "Use ascii encoding when archiving logs.",
                    "slot": "encoding",
                    "value": "ascii",
                },
            )
            before = await c.call_tool("pulse_memories", {})
            resource = await c.read_resource("pulse://memories")
            pid = said.structured_content["stored"][0]["id"]
            gone = await c.call_tool("pulse_forget", {"id": pid})
            again = await c.call_tool("pulse_forget", {"id": pid})
            by_words = await c.call_tool("pulse_forget", {"matching": "ascii encoding"})
            after = await c.call_tool("pulse_memories", {})
            call = await c.call_tool("export_report", PDF)  # the forgotten preference holds nothing
            return pid, before, resource, gone, again, by_words, after, call

    pid, before, resource, gone, again, by_words, after, call = anyio.run(session)
    listed = before.structured_content["memories"]
    assert pid in {m["id"] for m in listed} and pid in text(before) and len(listed) == 2
    assert {m["id"] for m in json.loads(resource.contents[0].text)} == {m["id"] for m in listed}
    assert not gone.is_error and gone.structured_content["forgotten"][0]["id"] == pid
    assert again.is_error and "no current memory" in text(again)
    assert not by_words.is_error and "ascii" in text(by_words)
    assert after.structured_content["memories"] == [] and "Nothing is stored" in text(after)
    assert echoed(call) == PDF


def test_an_oversize_statement_is_refused_with_a_clear_error_and_nothing_is_stored(tmp_path):
    async def session():
        async with Client(stdio(tmp_path / "mem"), cache=None) as c:
            big = await c.call_tool("pulse_remember", {"statement": "I prefer html. " * 70_000})  # ~1 MB
            listing = await c.call_tool("pulse_memories", {})
            return big, listing

    big, listing = anyio.run(session)
    assert big.is_error and "1,049,999 characters; nothing was stored" in text(big)
    assert "at most 4,000" in text(big) and len(text(big)) < 400  # not echoed back
    assert listing.structured_content["memories"] == []


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "-m", "pulse.cli.serve", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "args,needle",
    [
        (["polcy.backend=rule"], "polcy"),
        (["user_id=a", "memory.rooot=/tmp/x"], "memory.rooot"),
        (["+trasport=http"], "trasport"),
        (["user_id=a", "+upstreams.r.args=[a,--db=x]"], "upstreams.r.args"),
        (["user_id=a", "upstreams.r.command=x"], "+upstreams.r.command=x"),
        (["user_id=a", "+upstreams.r.comand=x"], "did you mean 'command'"),
        (["user_id=a", "memory.root=/m", "+upstreams.r.command=x", "+upstreams.r.prefix=a:b"], "'a:b'"),
    ],
)
def test_a_config_typo_exits_2_with_one_line(args, needle):
    r = _cli(*args)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], r.stderr


def test_upstream_args_with_commas_and_equals_signs_and_the_yaml_route(tmp_path):
    """Quoted list items keep commas and `=`; a YAML file (`-cd DIR -cn NAME`) needs no quoting."""
    weird = tmp_path / "a,b=c"
    weird.mkdir()
    pid = weird / "up.pid"
    (tmp_path / "gw.yaml").write_text(
        "defaults:\n  - serve\n  - _self_\n"
        f"user_id: ada\nmemory:\n  root: {tmp_path / 'mem2'}\n"
        f"upstreams:\n  files:\n    command: {PY}\n    args: [{FIXTURE}, --pid-file, '{pid}']\n"
    )

    async def listing(server):
        async with Client(server, cache=None) as c:
            return [t.name for t in (await c.list_tools()).tools]

    quoted = StdioServerParameters(
        command=PY,
        cwd=str(REPO),
        args=[
            "-m",
            "pulse.cli.serve",
            "user_id=ada",
            f"memory.root={tmp_path / 'mem'}",
            f"+upstreams.files.command={PY}",
            f"+upstreams.files.args=['{FIXTURE}','--pid-file','{pid}']",
        ],
    )
    assert "export_report" in anyio.run(listing, quoted) and pid.exists()
    pid.unlink()
    yaml_route = StdioServerParameters(
        command=PY, cwd=str(REPO), args=["-m", "pulse.cli.serve", "-cd", str(tmp_path), "-cn", "gw"]
    )
    assert "export_report" in anyio.run(listing, yaml_route) and pid.exists()
