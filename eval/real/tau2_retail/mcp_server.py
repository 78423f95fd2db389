"""τ²-bench retail tools as a stand-alone MCP server over stdio: an upstream for `pulse serve`.

    python -m eval.real.tau2_retail.mcp_server --db tests/serve/fixtures/retail_db.json
    python -m eval.real.tau2_retail.mcp_server --db $PULSE_DATA_DIR/tau2/retail/db.json

The 16 tools of `eval/real/tau2_retail/tools.py` (τ²'s checks and state changes, MIT: see the NOTICE
there) over one database per process, listed with τ²'s JSON schemas. The look-up tools carry the MCP
`readOnlyHint` annotation (they change nothing), the others `destructiveHint`, so a gateway can tell
them apart without knowing the tools. A refusal (`RetailError`) is a tool error result whose text is
τ²'s message. `--pid-file` writes the process id (for supervisors and the gateway's crash tests).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

READ_ONLY = frozenset(
    {
        "calculate",
        "find_user_id_by_name_zip",
        "find_user_id_by_email",
        "get_order_details",
        "get_product_details",
        "get_item_details",
        "get_user_details",
        "list_all_product_types",
    }
)


def build_server(db_path: str):
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from eval.real.tau2_retail.db import load_db
    from eval.real.tau2_retail.tools import SCHEMAS, RetailTools

    tools = RetailTools(load_db(db_path))
    listed = [
        types.Tool(
            name=name,
            description=s["description"],
            input_schema=s["parameters"],
            annotations=types.ToolAnnotations(
                read_only_hint=name in READ_ONLY, destructive_hint=name not in READ_ONLY
            ),
        )
        for name, s in SCHEMAS.items()
    ]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            out = tools.call(params.name, dict(params.arguments or {}))
        except ValueError as e:  # RetailError: τ²'s refusal, shown to the agent as the tool's error
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(e))], is_error=True)
        text = out if isinstance(out, str) else json.dumps(out)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("tau2-retail", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m eval.real.tau2_retail.mcp_server", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--db", required=True, help="a τ² retail db.json")
    ap.add_argument("--pid-file", default="", help="write this process's id here")
    a = ap.parse_args(argv)
    if not Path(a.db).is_file():
        print(f"tau2 retail mcp_server: error: --db {a.db}: no such file", file=sys.stderr)
        return 2
    from eval.benchmark import BenchmarkDataError

    try:
        server = build_server(a.db)
    except BenchmarkDataError as e:
        print(f"tau2 retail mcp_server: error: {e}", file=sys.stderr)
        return 2
    if a.pid_file:
        Path(a.pid_file).write_text(str(os.getpid()))

    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
