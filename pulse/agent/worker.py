"""The memory agent's worker thread: non-gate events handled in order, off the task agent's thread."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from pulse.core.records import Event


class EventWorker:
    """One daemon thread that runs `handle(event)` for each `put` event, in order.

    `flush` waits until every queued event was handled and raises RuntimeError (from the worker's
    exception) if one failed: an error is surfaced at the next gate or flush, never silently lost.
    `stop` ends the thread (after the events already queued).
    """

    def __init__(self, handle: Callable[[Event], None], name: str = "pulse-memory-agent"):
        self._handle = handle
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, event: Event) -> None:
        """Queue an event for the worker thread."""
        self._queue.put(event)

    def flush(self) -> None:
        """Wait until every queued event was handled, then raise the worker's error if one failed."""
        self._queue.join()
        self.raise_error()

    def raise_error(self) -> None:
        """Raise RuntimeError from the worker's last exception, if any, and clear it."""
        if self._error is not None:
            err, self._error = self._error, None
            raise RuntimeError(f"memory agent worker failed: {type(err).__name__}: {err}") from err

    def stop(self) -> None:
        """Ask the thread to end after the queued events and wait up to 10 s for it."""
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            ev = self._queue.get()
            try:
                if ev is None:
                    return
                self._handle(ev)
            except BaseException as e:  # surfaced at the next gate / flush
                self._error = e
            finally:
                self._queue.task_done()
