"""The HTTP handler both local OpenAI-compatible servers build on: quiet logs, JSON replies."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


class JSONHandler(BaseHTTPRequestHandler):
    """A `BaseHTTPRequestHandler` without request logging, with `_send(code, obj)` to reply with JSON."""

    def log_message(self, *a):  # quiet: the servers report through their own output
        pass

    def _send(self, code: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
