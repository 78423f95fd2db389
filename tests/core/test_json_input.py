"""pulse/utils/json_input.py: every bad JSON input is one error naming the file (and line) and what
is wrong -- not UTF-8 (with the byte offset), not JSON (line and column), nested too deeply (a
`"[" * 100000` file, which would otherwise end in a RecursionError) -- raised as the caller's class."""

from __future__ import annotations

import json

import pytest

from pulse.core.errors import PulseUserError
from pulse.memory import SnapshotError
from pulse.utils.json_input import (
    MAX_DEPTH,
    JsonInputError,
    parse_json,
    parse_json_line,
    read_json_file,
    read_jsonl_file,
)

DEEP = "[" * 100000 + "]" * 100000


def test_a_good_file_reads_as_json(tmp_path):
    p = tmp_path / "ok.json"
    p.write_text(json.dumps({"a": [1, {"b": "ü"}], "deep": [[[[]]]]}, ensure_ascii=False))
    assert read_json_file(p) == {"a": [1, {"b": "ü"}], "deep": [[[[]]]]}


def test_the_default_error_is_a_user_error_and_a_value_error():
    assert issubclass(JsonInputError, PulseUserError) and issubclass(JsonInputError, ValueError)


def test_100k_deep_nesting_is_one_error_naming_the_file_not_a_recursion_error(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text(DEEP)
    with pytest.raises(JsonInputError) as e:
        read_json_file(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: ") and "nested 100000 levels deep" in msg
    assert f"passes {MAX_DEPTH} at line 1, column {MAX_DEPTH + 1}" in msg


def test_nesting_the_parser_could_read_but_past_the_limit_is_refused_too():
    depth = MAX_DEPTH + 50
    with pytest.raises(JsonInputError, match=f"w: JSON nested {depth} levels deep"):
        parse_json("[" * depth + "]" * depth, "w")
    ok = MAX_DEPTH
    assert parse_json("[" * ok + "]" * ok, "w") is not None


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps(["[" * 5000 + "{" * 5000, 'a "quoted" \\ [ string'])
    assert parse_json(text, "w")[0].startswith("[[[")
    # an object nested past the limit, after a string full of closing brackets
    deep = '{"k": ' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1)
    with pytest.raises(JsonInputError, match="nested 202 levels deep"):  # the list + 201 objects
        parse_json(json.dumps(["]]]]}}}}"])[:-1] + ", " + deep + "]", "w")


def test_bytes_that_are_not_utf8_name_the_byte_offset_and_line(tmp_path):
    p = tmp_path / "latin1.json"
    p.write_bytes(b'{"a": 1,\n "b": "caf\xe9"}')
    with pytest.raises(JsonInputError) as e:
        read_json_file(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: not UTF-8") and "byte 0xe9 at byte offset 19, line 2" in msg


def test_text_that_is_not_json_names_line_and_column(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"a": 1,\n "b": }')
    with pytest.raises(
        JsonInputError, match=r"bad\.json: not valid JSON \(line 2, column 7: Expecting value\)"
    ):
        read_json_file(p)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(JsonInputError, match=r"nope\.json: cannot read snapshot"):
        read_json_file(tmp_path / "nope.json", what="snapshot")


def test_the_callers_error_class_is_raised(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text(DEEP)
    with pytest.raises(SnapshotError, match="deep.json: JSON nested 100000 levels deep"):
        read_json_file(p, SnapshotError)


def test_jsonl_errors_name_file_and_line_and_blank_lines_are_skipped(tmp_path):
    p = tmp_path / "rows.jsonl"
    p.write_bytes(b'{"a": 1}\n\n{"b": 2}\n' + DEEP.encode() + b"\n")
    with pytest.raises(JsonInputError, match=r"rows\.jsonl: line 4: JSON nested 100000 levels deep"):
        read_jsonl_file(p)
    p.write_bytes(b'{"a": 1}\n\n{"b": 2}\n')
    assert read_jsonl_file(p) == [(1, {"a": 1}), (3, {"b": 2})]
    with pytest.raises(
        JsonInputError, match=r"rows\.jsonl: line 7: not UTF-8 text \(byte 0xff at byte offset 2: "
    ):
        parse_json_line(b'["\xff"]', p, 7)
    with pytest.raises(JsonInputError, match=r"rows\.jsonl: line 2: not valid JSON"):
        parse_json_line('{"a": ', p, 2)
