"""JSON that a user hands the tools: memory snapshots, dataset rows, suite files, run logs, configs.

Every failure is one error that names the file (and line or row) and what is wrong, raised as the
caller's own error class (a `PulseUserError` subclass such as `SnapshotError`, `RecordError`,
`TraceError`, `SuiteError`, `RowsError`), which the command-line entry points print as one line
with exit status 2, never a traceback:

- not UTF-8: the byte offset (and line) of the first bad byte;
- not JSON: line and column, and the parser's message;
- nested deeper than `MAX_DEPTH` arrays/objects (a `"[" * 100000` file would otherwise end in a
  RecursionError inside the parser, or later in code that walks the value): the depth and where
  it is passed.

    data = read_json_file(path, error=SnapshotError)
    rows = read_jsonl_file(path, error=TraceError)             # [(line number, value), ...]
    value = parse_json(text, f"{path} row 3 column 'prefix_json'", error=RecordError)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulse.core.errors import PulseUserError

# Deeper than any file the tools write (snapshots, rows and run logs nest a few levels), and shallow
# enough that code walking a value recursively stays far from Python's recursion limit.
MAX_DEPTH = 200

_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)  # a string (skipped) or a bracket


class JsonInputError(PulseUserError, ValueError):
    """A JSON input (file, line or field) cannot be read; the message names it and what is wrong."""


ErrorClass = Callable[[str], Exception]


def _where_in(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _too_deep(text: str, max_depth: int) -> tuple[int, int] | None:
    """(deepest nesting, offset where `max_depth` is first passed) when the text nests deeper than
    `max_depth` arrays/objects outside strings, else None."""
    depth = deepest = 0
    passed = -1
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth > max_depth and passed < 0:
                    passed = m.start()
        elif tok in "]}":
            depth -= 1
    return (deepest, passed) if passed >= 0 else None


def _decode(data: bytes, where: str, error: ErrorClass) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        n = data.count(b"\n", 0, e.start) + 1
        line = f", line {n}" if b"\n" in data else ""
        raise error(
            f"{where}: not UTF-8 text (byte 0x{data[e.start]:02x} at byte offset {e.start}{line}: "
            f"{e.reason}); save it as UTF-8"
        ) from None


def parse_json(
    text: str | bytes, where: str, error: ErrorClass = JsonInputError, max_depth: int = MAX_DEPTH
) -> Any:
    """The JSON value in `text` (bytes must be UTF-8); any problem is `error(message)`, the message
    starting with `where` (a file path, "path: line 3", "path row 3 column 'prefix_json'")."""
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text), where, error)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{where}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:  # the parser's own limit (about sys.getrecursionlimit() levels)
        raise error(_nesting_message(text, where, max_depth)) from None
    # deeper than max_depth needs more than max_depth opening brackets: count them in C first
    if text.count("[") + text.count("{") > max_depth and _too_deep(text, max_depth):
        raise error(_nesting_message(text, where, max_depth))
    return value


def _nesting_message(text: str, where: str, max_depth: int) -> str:
    deep = _too_deep(text, max_depth)
    if deep is None:  # only when max_depth is above the parser's own limit
        return f"{where}: JSON nested deeper than the parser can read"
    return (
        f"{where}: JSON nested {deep[0]} levels deep (passes {max_depth} at {_where_in(text, deep[1])}); "
        f"this reader accepts at most {max_depth}"
    )


def read_json_file(path: str | Path, error: ErrorClass = JsonInputError, what: str = "file") -> Any:
    """The JSON value in the file at `path`; a missing or unreadable file, bytes that are not UTF-8,
    text that is not JSON or nests too deeply is `error(message)` naming the file. `what` names the
    kind of file in the cannot-read message ("snapshot", "suite file")."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise error(f"{path}: cannot read {what} ({e.strerror or e})") from None
    return parse_json(data, str(path), error)


def parse_json_line(
    line: str | bytes, path: str | Path, line_no: int, error: ErrorClass = JsonInputError
) -> Any:
    """One line of a JSONL file; errors name the file and the line (1-based)."""
    return parse_json(line, f"{path}: line {line_no}", error)


def read_jsonl_file(
    path: str | Path, error: ErrorClass = JsonInputError, what: str = "file"
) -> list[tuple[int, Any]]:
    """(line number, value) of every non-blank line of a JSONL file; errors name the file and line."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise error(f"{path}: cannot read {what} ({e.strerror or e})") from None
    return [
        (i, parse_json_line(raw, path, i, error)) for i, raw in enumerate(data.split(b"\n"), 1) if raw.strip()
    ]
