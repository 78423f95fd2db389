"""A small OpenAI-compatible chat server over a local transformers model, with tool calling.

    python -m eval.serving.local_server MODEL_DIR --port 8011
    # then: pulse eval agent=openai agent.model=local agent.base_url=http://127.0.0.1:8011/v1

Serves POST /v1/chat/completions (and GET /v1/models) on the standard library's HTTP server. Tool
calling uses *constrained decoding* (as guided decoding in vLLM does): when `tools` are given, the
model scores each tool name and a plain-text answer as continuations of a `<tool_call>` prefix and
picks the likeliest; for the chosen tool, each enum argument takes its likeliest allowed value and
each free string argument is greedily generated (a few tokens). So even a tiny random-init model
returns well-formed tool calls; a capable model returns sensible ones. Calls per conversation are
capped by `max_tool_calls` (after that the server answers in text), which keeps test episodes short.
For tests and offline demos, not for production serving.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from http.server import ThreadingHTTPServer
from typing import Any

from eval.serving.json_handler import JSONHandler


class ToolCallingLM:
    """A local transformers chat model with constrained tool calling (the module docstring): `complete(body)`
    answers an OpenAI chat-completions request body with a response dict; one forward at a time."""

    def __init__(self, model_dir: str, max_tool_calls: int = 8, max_text_tokens: int = 16):
        import torch

        from pulse.models.loading import load_model, load_tokenizer

        self.torch = torch
        self.tok = load_tokenizer(model_dir)
        self.model = load_model(model_dir, "float32").eval()
        self.max_tool_calls = max_tool_calls
        self.max_text_tokens = max_text_tokens
        self.lock = threading.Lock()  # one forward at a time (CPU)

    def _prompt(self, messages: list[dict[str, Any]]) -> str:
        flat = []
        for m in messages:
            content = m.get("content") or ""
            if m.get("tool_calls"):
                content += "".join(
                    f"<tool_call>{json.dumps(c.get('function', {}))}</tool_call>" for c in m["tool_calls"]
                )
            flat.append({"role": m.get("role", "user"), "content": content})
        return self.tok.apply_chat_template(flat, tokenize=False, add_generation_prompt=True)

    def _ids(self, text: str) -> list[int]:
        return self.tok(text, add_special_tokens=False)["input_ids"]

    def _logprob(self, prefix_ids: list[int], cont: str) -> float:
        cont_ids = self._ids(cont)
        if not cont_ids:
            return 0.0
        ids = self.torch.tensor([prefix_ids + cont_ids])
        with self.torch.inference_mode():
            logits = self.model(ids).logits[0, len(prefix_ids) - 1 : -1]
        lp = self.torch.log_softmax(logits.float(), -1)
        return float(lp[range(len(cont_ids)), cont_ids].sum()) / len(cont_ids)

    def _greedy(self, prefix_ids: list[int], n: int) -> tuple[str, int]:
        ids = self.torch.tensor([prefix_ids])
        with self.torch.inference_mode():
            out = self.model.generate(
                ids,
                max_new_tokens=n,
                do_sample=False,
                pad_token_id=self.tok.pad_token_id,
                eos_token_id=self.tok.eos_token_id,
            )
        new = out[0, len(prefix_ids) :].tolist()
        if self.tok.eos_token_id in new:
            new = new[: new.index(self.tok.eos_token_id)]
        return self.tok.decode(new, skip_special_tokens=True), len(new)

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        tools = body.get("tools") or []
        with self.lock:
            prompt_ids = self._ids(self._prompt(messages))
            n_calls = sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")
            choice: dict[str, Any]
            if tools and n_calls < self.max_tool_calls:
                head = prompt_ids + self._ids("<tool_call>")
                fns = [t["function"] for t in tools if t.get("type") == "function"]
                scores = {f["name"]: self._logprob(head, json.dumps({"name": f["name"]})[:-1]) for f in fns}
                text_score = self._logprob(prompt_ids, "Done.") if n_calls else float("-inf")
                best = max(scores, key=scores.get)
                if scores[best] >= text_score:
                    fn = next(f for f in fns if f["name"] == best)
                    args: dict[str, str] = {}
                    arg_head = head + self._ids(json.dumps({"name": best})[:-1] + ', "arguments": {')
                    for p, spec in (fn.get("parameters", {}).get("properties") or {}).items():
                        if spec.get("enum"):
                            args[p] = max(
                                spec["enum"], key=lambda v: self._logprob(arg_head, f'"{p}": "{v}"')
                            )
                        else:
                            gen, _ = self._greedy(arg_head + self._ids(f'"{p}": "'), 4)
                            args[p] = gen.split('"')[0].strip() or f"{p}-{n_calls + 1}"
                        arg_head = arg_head + self._ids(f'"{p}": "{args[p]}", ')
                    call = {
                        "id": f"call_{uuid.uuid4().hex[:12]}",
                        "type": "function",
                        "function": {"name": best, "arguments": json.dumps(args)},
                    }
                    choice = {
                        "index": 0,
                        "finish_reason": "tool_calls",
                        "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                    }
                    n_out = len(self._ids(json.dumps(call["function"])))
                    return self._response(body, choice, len(prompt_ids), n_out)
            text, n_out = self._greedy(prompt_ids, int(body.get("max_tokens") or self.max_text_tokens))
            choice = {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": text or "Done."},
            }
            return self._response(body, choice, len(prompt_ids), n_out)

    @staticmethod
    def _response(body, choice, n_in, n_out) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "local"),
            "choices": [choice],
            "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out},
        }


def make_server(lm: ToolCallingLM, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    class Handler(JSONHandler):
        """The HTTP routes: GET /v1/models, POST /v1/chat/completions (400 for bad JSON, 500 with the error
        when the model fails); any other path is 404."""

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                return self._send(200, {"object": "list", "data": [{"id": "local", "object": "model"}]})
            self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            except json.JSONDecodeError as e:
                return self._send(400, {"error": {"message": f"bad JSON: {e}"}})
            try:
                self._send(200, lm.complete(body))
            except Exception as e:
                self._send(500, {"error": {"message": f"{type(e).__name__}: {e}"}})

    return ThreadingHTTPServer((host, port), Handler)


def serve_in_thread(model_dir: str, **kw) -> tuple[ThreadingHTTPServer, str]:
    """Start a server on a free port in a daemon thread; returns (server, base_url)."""
    srv = make_server(ToolCallingLM(model_dir, **kw))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/v1"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_dir")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8011)
    p.add_argument("--max-tool-calls", type=int, default=8)
    a = p.parse_args(argv)
    srv = make_server(ToolCallingLM(a.model_dir, a.max_tool_calls), a.host, a.port)
    print(f"serving {a.model_dir} at http://{a.host}:{srv.server_address[1]}/v1", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
