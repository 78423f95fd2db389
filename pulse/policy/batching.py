"""One forward pass for the policy decisions of concurrent chains.

`BatchingPolicy` wraps any policy backend (transformers, vLLM, an OpenAI-compatible endpoint, the
rule). Each chain runs on its own thread and calls `decide_batch` as usual; the calls that are
waiting at the same moment are joined into one call of the wrapped policy (one `generate()` for
transformers: its `batch_size` still caps one forward pass; one request batch for vLLM) and each
caller gets its own outputs back. A batch is sent when every live chain is waiting (nobody else
can add to it), when it holds `max_batch` inputs, or after `max_wait_s`, whichever comes first.
Chains announce themselves with `with policy.chain(): ...` so the wrapper knows how many can wait.

Greedy decoding of a prompt does not depend on what else is in its batch, up to floating-point
differences of padded batches (left padding with an attention mask); the reproduction script's
numbers are therefore the same with or without batching except for such rare ties.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Request:
    inputs: list
    done: threading.Event = field(default_factory=threading.Event)
    out: list | None = None
    error: BaseException | None = None


class BatchingPolicy:
    """Wraps a policy so that the concurrent chains' waiting `decide_batch` calls become one call of it (the
    module docstring); other attributes are the wrapped policy's."""

    def __init__(self, inner: Any, max_batch: int = 64, max_wait_s: float = 0.02):
        self.inner = inner
        self.name = getattr(inner, "name", "policy")
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self._cv = threading.Condition()
        self._queue: list[_Request] = []
        self._live = 0
        self._busy = False
        self.forward_calls = 0  # calls of the wrapped policy
        self.inputs = 0  # decisions served

    def __getattr__(self, name: str) -> Any:  # prompt_style, batch_size, ...: the wrapped policy's
        return getattr(self.inner, name)

    @contextmanager
    def chain(self):
        """Count the calling thread as a live chain while it runs."""
        with self._cv:
            self._live += 1
        try:
            yield self
        finally:
            with self._cv:
                self._live -= 1
                self._cv.notify_all()

    def decide_batch(self, inputs: Sequence[Any]) -> list:
        """The wrapped policy's outputs for these inputs, sent together with the other chains' waiting inputs;
        re-raises the wrapped policy's error."""
        req = _Request(list(inputs))
        if not req.inputs:
            return []
        deadline = time.monotonic() + self.max_wait_s
        with self._cv:
            self._queue.append(req)
            self._cv.notify_all()
        while True:
            with self._cv:
                # a waiter that finds no batch in flight and a batch ready becomes its sender
                while True:
                    if req.done.is_set():
                        return self._result(req)
                    if not self._busy and self._queue and (self._ready() or time.monotonic() >= deadline):
                        batch = self._take()
                        self._busy = True
                        break
                    self._cv.wait(timeout=max(0.0005, deadline - time.monotonic()))
            self._send(batch)

    # -- internals ------------------------------------------------------------------------------
    def _ready(self) -> bool:
        waiting = len(self._queue)
        return waiting >= max(1, self._live) or sum(len(r.inputs) for r in self._queue) >= self.max_batch

    def _take(self) -> list[_Request]:
        batch, n = [], 0
        while self._queue and (not batch or n + len(self._queue[0].inputs) <= self.max_batch):
            r = self._queue.pop(0)
            batch.append(r)
            n += len(r.inputs)
        return batch

    def _send(self, batch: list[_Request]) -> None:
        flat = [x for r in batch for x in r.inputs]
        try:
            outs = self.inner.decide_batch(flat)
            if len(outs) != len(flat):
                raise RuntimeError(
                    f"policy {self.name!r} returned {len(outs)} outputs for {len(flat)} inputs"
                )
            i = 0
            for r in batch:
                r.out = list(outs[i : i + len(r.inputs)])
                i += len(r.inputs)
        except BaseException as e:  # every caller of this batch sees the failure
            for r in batch:
                r.error = e
        with self._cv:
            self.forward_calls += 1
            self.inputs += len(flat)
            self._busy = False
            for r in batch:
                r.done.set()
            self._cv.notify_all()

    @staticmethod
    def _result(req: _Request) -> list:
        if req.error is not None:
            raise req.error
        assert req.out is not None
        return req.out
