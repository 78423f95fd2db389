"""`pulse serve`: an MCP gateway that puts Pulse's memory and pre-commit gate in front of any MCP tools.

- `gateway.py`: the MCP server (official SDK, stdio or streamable HTTP) relaying to the upstreams;
  its parts: `tool_routes.py` / `tool_calls.py` (tools, gated calls), `memory_tools.py` (the
  `pulse_*` tools), `listings.py` (prompts, resources), `client_requests.py` (an upstream's requests
  of the client), `session_pool.py` (one session per MCP session), `names.py` (what a client sees);
- `upstream.py`: one upstream connection, restarted after a crash;
- `session.py`: every relayed call as an event for one `PulseAgent`; `pulse_remember`; preferences;
- `config.py`: the typed config (configs/serve.yaml); the hydra entry is `pulse/cli/serve.py`.

An upstream to try it with: τ² retail tools as a stdio MCP server (`eval/real/tau2_retail/mcp_server.py`).
"""
