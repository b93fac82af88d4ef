"""Parsing a hostile trace file: every fault is a located problem, never a traceback and never a
silent reading. Repeated keys, numbers a double cannot hold, bytes that are not UTF-8 (also in
fields validation otherwise ignores), lone surrogates and deep nesting, on both the fast path
(typed records) and the full path (strict JSON)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trace_helpers import FIXTURES

from masrl.traces import strict_json
from masrl.traces.validate import fast_trace, validate_file

SMALL = (FIXTURES / "small.json").read_bytes()


def edited(old: bytes, new: bytes) -> bytes:
    assert SMALL.count(old) == 1, old
    return SMALL.replace(old, new)


def problems(tmp_path, data: bytes) -> list[tuple[str, str, str]]:
    path = tmp_path / "trace.json"
    path.write_bytes(data)
    found = [(p.code, p.pointer, p.message) for p in validate_file(path).problems]
    mapped = [(p.code, p.pointer, p.message)
              for p in validate_file(path, keep_document=False).problems]
    assert found == mapped
    return found


REPEATED = "JSON objects must not repeat a key (only the last value would be read)"


@pytest.mark.parametrize(("old", "new", "pointer", "key"), [
    # an invalid first value hidden by a valid last one, at every level
    (b'"costs": {"tokens": 250,', b'"costs": {"tokens": -1, "tokens": 250,', "/costs", "tokens"),
    (b'"trace_id": "small",', b'"trace_id": 7, "trace_id": "small",', "", "trace_id"),
    (b'"rewards": {"team": 1.0,', b'"rewards": {"team": "won", "team": 1.0,', "/rewards", "team"),
    (b'{"id": "e1", "t": 0,', b'{"id": "e1", "t": -5, "t": 0,', "/events/0", "t"),
    (b'{"src": "e1", "dst": "e2", "type": "spawn"', b'{"src": "e1", "dst": "e2", '
     b'"type": "loop", "type": "spawn"', "/edges/0", "type"),
    # repeated with two valid values: still refused where the fast path can see it
    (b'"task_id": "fixture",', b'"task_id": "fixture", "task_id": "other",', "", "task_id"),
    (b'"unit": "agent",', b'"unit": "agent", "unit": "role",', "/counterfactuals", "unit"),
])
def test_a_repeated_key_is_an_error(tmp_path, old, new, pointer, key):
    data = edited(old, new)
    assert fast_trace(data) is None
    assert problems(tmp_path, data) == [("duplicate-key", pointer, f'duplicate key "{key}": '
                                         + REPEATED)]


def test_a_repeated_top_level_member_is_seen_whatever_its_size(tmp_path):
    """The earlier of two ``events`` arrays lies between the members the fast path keeps."""
    data = edited(b'"events": [', b'"events": [{"id": "z", "t": 0, "type": "message", '
                  b'"agent": "a"}], "events": [')
    assert fast_trace(data) is None
    assert [p[0] for p in problems(tmp_path, data)] == ["duplicate-key"]


@pytest.mark.parametrize(("literal", "shown"), [
    (b"1" + b"0" * 5000, "100000000000...0000 (5001 characters)"),  # past Python's int-string limit
    (b"1" + b"0" * 400, "100000000000...0000 (401 characters)"),  # an int beyond any double
])
def test_an_integer_beyond_a_double_is_non_finite(tmp_path, literal, shown):
    data = edited(b'"tokens": 100,', b'"tokens": ' + literal + b",")
    assert problems(tmp_path, data) == [
        ("non-finite", "/events/0/tokens",
         f"{shown} is too large a number: a double holds at most about 1.8e308")]


def test_the_largest_integers_a_double_holds_are_kept(tmp_path):
    data = edited(b'"tokens": 100,', b'"tokens": 1' + b"0" * 308 + b",")
    assert problems(tmp_path, data) == []
    assert strict_json.loads(b"-1" + b"0" * 308) == -10**308
    with pytest.raises(strict_json.StrictJSONError, match="too large"):
        strict_json.loads(b"2" + b"0" * 308)  # 2e308: 309 digits, beyond the largest double


def test_an_overflowing_float_is_non_finite(tmp_path):
    data = edited(b'"usd": 0.75', b'"usd": 1e400')
    assert problems(tmp_path, data) == [("non-finite", "/costs/usd",
                                               "1e400 is too large a number: a double holds at "
                                               "most about 1.8e308")]


@pytest.mark.parametrize("where", [b'"tokens": 100,', b'"role": "lead",'])
def test_bytes_that_are_not_utf8_are_refused_even_in_ignored_fields(tmp_path, where):
    """msgspec skips unknown fields without checking their bytes; the fast path scans first."""
    data = edited(where, where + b' "x_note": "caf\xe9",')
    assert fast_trace(data) is None
    [(code, pointer, message)] = problems(tmp_path, data)
    assert (code, pointer, message) == ("not-json", "", "not UTF-8 text")


def test_non_ascii_utf8_still_takes_the_fast_path():
    data = edited(b'"role": "lead",', '"role": "lead", "x_note": "café 日本",'.encode())
    assert fast_trace(data) is not None


def test_a_lone_surrogate_is_not_text(tmp_path):
    data = edited(b'"role": "lead",', b'"role": "lead\\ud800",')
    assert problems(tmp_path, data) == [
        ("not-json", "/events/0/role", "a string holds a lone surrogate (\\ud800 to \\udfff "
         "without its pair), which is not Unicode text")]
    paired = edited(b'"role": "lead",', b'"role": "lead\\ud83d\\ude00",')
    assert problems(tmp_path, paired) == []


@pytest.mark.parametrize("data", [
    b"[" * 100_000 + b"]" * 100_000,
    edited(b'"tokens": 100,', b'"x_deep": ' + b"[" * 5000 + b"]" * 5000 + b', "tokens": 100,'),
    edited(b'"process": 0.6', b'"process": 0.6, "x": ' + b"{\"a\":" * 3000 + b"1" + b"}" * 3000),
], ids=["document", "ignored-event-field", "head"])
def test_deep_nesting_is_a_problem_not_a_crash(tmp_path, data):
    [(code, _, message)] = problems(tmp_path, data)
    assert code == "not-json" and "nested too deeply" in message


def test_every_finding_is_reported_in_document_order():
    document, found = strict_json.parse(b'{"a": {"b": 1, "b": NaN}, "c": [1e999, {"d": 0, "d": 1}]}')
    assert [(f.code, strict_json.pointer(f.parts)) for f in found] == [
        ("duplicate-key", "/a"), ("non-finite", "/a/b"), ("non-finite", "/c/0"),
        ("duplicate-key", "/c/1")]


def test_a_schema_message_never_quotes_a_large_value_whole(tmp_path):
    # A file that is one long array: the validator's message quotes it before "is not of type".
    path = tmp_path / "array.json"
    path.write_text("[" + ",".join(['{"name": "span"}'] * 20_000) + "]", encoding="utf-8")
    report = validate_file(path)
    (problem,) = report.errors
    assert len(problem.message) < 400
    assert "characters ..." in problem.message
    assert problem.message.endswith('is not of type "object"')
    assert problem.message.startswith('[{"name":"span"}')


@given(st.lists(st.tuples(st.integers(min_value=0, max_value=3), st.booleans(),
                          st.dictionaries(st.text(max_size=3), st.integers(), max_size=3)),
                min_size=1, max_size=12))
@settings(max_examples=200, deadline=None)
def test_a_sequence_of_values_gives_the_line_each_starts_on(values):
    """Values written one after another, after some blank lines, some indented over several
    lines: each is given with the line it starts on (counted on from the value before, not
    from the start of the text each time)."""
    text, expected = "", []
    for blank, indented, value in values:
        text += "\n" * blank + " "
        expected.append(text.count("\n") + 1)
        text += json.dumps(value, indent=1 if indented else None) + "\n"
    found = strict_json.parse_sequence(text)
    assert [line for line, _, _ in found] == expected
    assert [value for _, value, _ in found] == [value for _, _, value in values]
