"""`pulse serve` driven by the official MCP client over stdio, in front of a real upstream: τ²'s retail
tools served by `eval.real.tau2_retail.mcp_server` in a subprocess over a small synthetic database."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
DB = REPO / "tests" / "serve" / "fixtures" / "retail_db.json"
PY = sys.executable
RETURN_GIFT = {"order_id": "#W0000001", "item_ids": ["1000000001"], "payment_method_id": "gift_card_2222222"}
RETURN_CARD = {
    "order_id": "#W0000001",
    "item_ids": ["1000000001"],
    "payment_method_id": "credit_card_1111111",
}
CANCEL = {"order_id": "#W0000002", "reason": "no longer needed"}


def upstream_args(pid_file: Path | None = None) -> list[str]:
    return [
        "-m",
        "eval.real.tau2_retail.mcp_server",
        "--db",
        str(DB),
        *(["--pid-file", str(pid_file)] if pid_file else []),
    ]


def gateway(mem: Path, pid_file: Path | None = None, *extra: str) -> StdioServerParameters:
    args = ",".join(upstream_args(pid_file))
    return StdioServerParameters(
        command=PY,
        cwd=str(REPO),
        args=[
            "-m",
            "pulse.cli.serve",
            "user_id=ada",
            f"memory.root={mem}",
            f"+upstreams.retail.command={PY}",
            f"+upstreams.retail.args=[{args}]",
            *extra,
        ],
    )


def direct() -> StdioServerParameters:
    return StdioServerParameters(command=PY, cwd=str(REPO), args=upstream_args())


def dump(result) -> dict:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def calls(server, *steps):
    """[(tool, args)] -> results, one client session (a fresh upstream process and database)."""
    async with Client(server, cache=None) as c:
        return [await c.call_tool(tool, args) for tool, args in steps]


def run(fn, *args):
    return anyio.run(fn, *args)


def test_tools_listed_unchanged_and_calls_relayed_byte_for_byte_while_memory_is_silent(tmp_path):
    async def listing(server):
        async with Client(server, cache=None) as c:
            return [dump(t) for t in (await c.list_tools()).tools]

    via, up = run(listing, gateway(tmp_path / "mem")), run(listing, direct())
    assert via[:-3] == up and [t["name"] for t in via[-3:]] == [
        "pulse_remember",
        "pulse_forget",
        "pulse_memories",
    ]
    assert any(t["annotations"].get("readOnlyHint") for t in up)  # the upstream marks its look-ups read-only
    steps = [
        ("get_order_details", {"order_id": "#W0000001"}),
        ("return_delivered_order_items", RETURN_GIFT),
        ("get_order_details", {"order_id": "#W0000001"}),  # the write happened upstream
        ("get_order_details", {"order_id": "#nope"}),  # the upstream's own error
        ("cancel_pending_order", {"order_id": "#W0000001", "reason": "no longer needed"}),
    ]
    got = [dump(r) for r in run(calls, gateway(tmp_path / "mem"), *steps)]
    want = [dump(r) for r in run(calls, direct(), *steps)]
    assert got == want  # content, structuredContent, isError and the upstream's own _meta, unchanged
    assert '"status": "return requested"' in got[2]["content"][0]["text"]
    assert got[3]["isError"] and got[3]["content"][0]["text"] == "Order not found"
    assert got[4]["isError"] and "Non-pending order" in got[4]["content"][0]["text"]


SAID = "Always refund to my credit card credit_card_1111111, never to a gift card."


@pytest.fixture(scope="module")
def remembered(tmp_path_factory):
    """A memory root where an earlier session recorded two preferences through `pulse_remember`."""
    mem = tmp_path_factory.mktemp("remembered") / "mem"
    stored = run(
        calls,
        gateway(mem),
        ("pulse_remember", {"statement": SAID, "slot": "payment_method_id", "value": "credit_card_1111111"}),
        (
            "pulse_remember",
            {"statement": "Only ever touch my order #W0000001.", "slot": "order_id", "value": "#W0000001"},
        ),
    )
    assert all(not r.is_error and "Stored in the user's memory" in r.content[0].text for r in stored)
    return mem, [r.structured_content["stored"][0]["id"] for r in stored]


def copy_of(remembered, tmp_path) -> Path:
    shutil.copytree(remembered[0], tmp_path / "mem")
    return tmp_path / "mem"


def test_conflicting_call_is_held_with_evidence_from_an_earlier_session_and_read_only_calls_never(
    remembered, tmp_path
):
    pay_id, order_id = remembered[1]
    held, after, ok, read, write = run(
        calls,
        gateway(copy_of(remembered, tmp_path)),  # a new gateway process: memory from the earlier one
        ("return_delivered_order_items", RETURN_GIFT),
        ("get_order_details", {"order_id": "#W0000001"}),
        ("return_delivered_order_items", RETURN_CARD),
        ("get_order_details", {"order_id": "#W0000002"}),
        ("cancel_pending_order", CANCEL),
    )
    assert held.is_error and held.content[0].text.startswith("NOT EXECUTED")
    assert pay_id in held.content[0].text and "credit_card_1111111" in held.content[0].text
    (ev,) = held.meta["pulse/evidence"]
    assert (ev["id"], ev["slot"], ev["value"], ev["quote"]) == (
        pay_id,
        "payment_method_id",
        "credit_card_1111111",
        SAID,
    )
    assert '"status": "delivered"' in after.content[0].text  # the held call never reached the upstream
    assert not ok.is_error and '"return_payment_method_id": "credit_card_1111111"' in ok.content[0].text
    # order_id: a read-only look-up of another order is never held (and relayed unchanged), a write is
    (direct_read,) = run(calls, direct(), ("get_order_details", {"order_id": "#W0000002"}))
    assert dump(read) == dump(direct_read)
    assert write.is_error and "NOT EXECUTED" in write.content[0].text and order_id in write.content[0].text


def test_supplement_comes_back_as_an_extra_content_block_and_preferences_are_a_prompt_and_a_resource(
    remembered, tmp_path
):
    address = {
        "user_id": "ada_lovelace_1815",
        "address1": "1 Main St",
        "address2": "",
        "city": "Leeds",
        "state": "WYK",
        "country": "UK",
        "zip": "20002",
    }

    async def session():
        async with Client(gateway(copy_of(remembered, tmp_path)), cache=None) as c:
            note = await c.call_tool(
                "pulse_remember", {"statement": "Refund it to my usual payment method please."}
            )
            res = await c.call_tool("modify_user_address", address)
            prompt = await c.get_prompt("pulse_preferences")
            resource = await c.read_resource("pulse://preferences")
            return note, res, prompt, resource

    note, res, prompt, resource = run(session)
    assert "Nothing stored" in note.content[0].text and "payment_method_id=?" in note.content[0].text
    assert not res.is_error and len(res.content) == 2 and '"city": "Leeds"' in res.content[0].text
    assert (
        res.content[1].text.startswith("Pulse memory note") and "credit_card_1111111" in res.content[1].text
    )
    for text in (prompt.messages[0].content.text, resource.contents[0].text):
        assert "payment_method_id = credit_card_1111111" in text and "order_id = #W0000001" in text


def test_upstream_crash_gives_a_clear_error_and_the_gateway_keeps_serving(tmp_path):
    """A write whose upstream died gives a clear error (it may have run: never retried); a read-only
    call whose upstream died is retried once after the restart."""
    pid_file = tmp_path / "upstream.pid"

    async def session():
        async with Client(gateway(tmp_path / "mem", pid_file), cache=None) as c:
            first = int(pid_file.read_text())
            os.kill(first, signal.SIGKILL)
            await anyio.sleep(0.2)
            down = await c.call_tool("cancel_pending_order", CANCEL)
            remember = await c.call_tool("pulse_remember", {"statement": "I prefer short answers."})
            again = await c.call_tool("get_order_details", {"order_id": "#W0000001"})  # restarts the upstream
            second = int(pid_file.read_text())
            os.kill(second, signal.SIGKILL)
            await anyio.sleep(0.2)
            retried = await c.call_tool("get_order_details", {"order_id": "#W0000001"})  # read-only: retried
            return first, down, remember, again, second, retried, int(pid_file.read_text())

    first, down, remember, again, second, retried, third = run(session)
    assert down.is_error and "upstream 'retail' is unavailable" in down.content[0].text
    assert "Connection closed" in down.content[0].text
    assert not remember.is_error
    assert not again.is_error and '"order_id": "#W0000001"' in again.content[0].text and second != first
    assert not retried.is_error and '"order_id": "#W0000001"' in retried.content[0].text
    assert third not in (first, second)


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
    "overrides,needle",
    [
        (["memory.root=/tmp/x"], "'user_id': required"),
        (
            ["user_id=a", "memory.root=/tmp/x", "+upstreams.r.command=x", "+upstreams.r.url=http://h/mcp"],
            "'upstreams.r'",
        ),
        (
            ["user_id=a", "memory.root=/tmp/x", "+upstreams.r.command=x", "+upstreams.r.comand=y"],
            "upstreams.r.comand",
        ),
        (
            ["user_id=a", "memory.root=/tmp/x", "+upstreams.r.command=x", "policy.backend=openia"],
            "policy.backend",
        ),
        (
            ["user_id=a", "memory.root=/tmp/x", "+upstreams.r.command=x", "policy.backend=openai"],
            "policy.name_or_path",
        ),
        (
            ["user_id=a", "memory.root=/tmp/x", "+upstreams.r.command=x", "memory.sync=fsync"],
            "memory.sync",
        ),
    ],
)
def test_config_errors_name_the_key(overrides, needle):
    from hydra import compose, initialize_config_dir

    from pulse.cli.support import CONFIG_DIR
    from pulse.config.schema import ConfigError, to_typed
    from pulse.serve.config import ServeConfig, check

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="serve", overrides=overrides)
    with pytest.raises(ConfigError, match=needle.replace(".", r"\.")):
        check(to_typed(cfg, ServeConfig))


def test_an_upstream_that_cannot_start_or_two_upstreams_sharing_a_tool_stop_the_gateway_with_one_line(
    tmp_path,
):
    r = _cli("polcy.backend=rule")  # hydra's own refusal of an unknown key
    assert r.returncode != 0 and "polcy" in r.stderr and "Traceback" not in r.stderr
    r = _cli("user_id=a", f"memory.root={tmp_path}", "+upstreams.bad.command=/nonexistent/server")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "upstream 'bad': could not start (/nonexistent/server)" in r.stderr
    up = ",".join(upstream_args())
    r = _cli(
        "user_id=a",
        f"memory.root={tmp_path}",
        f"+upstreams.a.command={PY}",
        f"+upstreams.a.args=[{up}]",
        f"+upstreams.b.command={PY}",
        f"+upstreams.b.args=[{up}]",
    )
    assert r.returncode == 2 and "is listed by upstreams 'a' and 'b'" in r.stderr


def test_streamable_http_transport(tmp_path):
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    up = ",".join(upstream_args())
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "pulse.cli.serve",
            "user_id=ada",
            f"memory.root={tmp_path / 'mem'}",
            "transport=http",
            f"port={port}",
            f"+upstreams.retail.command={PY}",
            f"+upstreams.retail.args=[{up}]",
        ],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        async def session():
            async with Client(f"http://127.0.0.1:{port}/mcp", cache=None) as c:
                tools = [t.name for t in (await c.list_tools()).tools]
                kept = await c.call_tool(
                    "pulse_remember",
                    {"statement": SAID, "slot": "payment_method_id", "value": "credit_card_1111111"},
                )
                return tools, kept, await c.call_tool("return_delivered_order_items", RETURN_GIFT)

        deadline = time.monotonic() + 30
        while True:
            try:
                tools, kept, held = run(session)
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.3)
        assert len(tools) == 19 and tools[-3] == "pulse_remember"
        assert not kept.is_error and held.is_error and "NOT EXECUTED" in held.content[0].text
    finally:
        proc.terminate()
        proc.wait(timeout=20)
