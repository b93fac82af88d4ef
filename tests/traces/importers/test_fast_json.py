"""The importers' fast JSON reading (msgspec, trusted only when the text is certainly strict
JSON) gives what the strict hooks give: the same documents, the same findings, the same errors
in the same order; and what it doubts goes down the hooks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masrl import paths
from masrl.traces import strict_json
from masrl.traces.importers._kit import common
from masrl.traces.importers._kit.common import SourceError, read_jsonl

DEEP = 2000  # past the recursion limit: refused by both readers
TEXTS = [
    '{"a": 1}', "null", "3", '"s"', "[]", "{}", " \t\r\n{}\n",
    '{"a":1,"a":2}',  # repeated key
    '{"a":{"b":1,"b":1}}',  # repeated key below
    '{"a\\u0062":1,"ab":2}',  # one key spelled two ways
    '{"a" : 1, "b"\t:{"c" :2}}',  # whitespace before colons
    '{"x":":ok","y":"  :no"}',  # strings that begin with a colon look like keys
    '{"x":"\\": \\":", "k\\\\":1}',  # escaped quotes, a key ending in a backslash
    '{"n":' + "9" * 308 + "}", '{"n":' + "9" * 309 + "}", '{"n":' + "9" * 310 + "}",
    '{"n":-' + "1" * 400 + "}", '{"n":1e308}', '{"n":1e400}', '{"n":-1e400}', '{"n":1e-400}',
    '{"n":NaN}', '{"n":-Infinity}', '[1.7976931348623157e308, 1.7976931348623159e308]',
    '{"s":"\\ud800"}', '{"s":"\\udc00"}', '{"s":"\\ud83d\\ude00"}', '{"\\ud800":1}',
    '{"s":"\\\\ud800"}',  # an escaped backslash, then text: no surrogate
    "[" * 900 + "]" * 900, "[" * DEEP + "]" * DEEP,
    '{"a":1', '{"a":1}}', "", "nul", "\ufeff{}", '{"a":"tab\there"}', "01", "[1,]",
]


def _same(text: str | bytes) -> None:
    assert strict_json.parse_fast(text) == strict_json.parse(text)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_parse_fast_is_parse(text):
    _same(text)
    _same(text.encode("utf-8"))
    _same("[" + ",".join([text] * 2000) + "]")  # a long text: its keys counted in bytes


def test_parse_fast_of_bytes_not_utf8():
    _same(b'{"a":"\xff"}')
    _same(b'{"a":"\xed\xa0\x80"}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8), lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=20)


@given(json_values, st.integers(min_value=0, max_value=10**6), st.booleans())
@settings(max_examples=300, deadline=None)
def test_parse_fast_is_parse_on_any_document(value, seed, repeat):
    """Any document, written with whitespace or not, with one of its keys written twice."""
    text = json.dumps(value, ensure_ascii=seed % 2 == 0,
                      separators=(",", ":") if seed % 3 else (", ", " : "))
    if repeat and isinstance(value, dict) and value:
        text = "{" + json.dumps(next(iter(value))) + ":1," + text[1:]
    _same(text)


def _lines(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    return path


def _slow(path: Path) -> list | str:
    """read_jsonl as it reads a file line by line through the hooks (its records, or its
    error)."""
    text = path.read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        return [(n, common._record(path, n, line)) for n, line in enumerate(lines, start=1)
                if line.strip()]
    except SourceError as exc:
        return str(exc)


def _fast(path: Path) -> list | str:
    try:
        return read_jsonl(path, Counter())
    except SourceError as exc:
        return str(exc)


@pytest.mark.parametrize("data", [
    b'{"a":1}\n\n{"b":[1,2]}\r\n   \n{"c":":x"}\n',
    b'{"a":1}\n{"a":1,"a":2}\n{"b":1e400}\n',  # the first fault is the one said
    b'{"a":1}\n{"b":1e400}\n{"a":1,"a":2}\n',
    b'{"a":1}\n\x1c\n{"b":2}\n',  # blank to Python, not to bytes
    b'{"a":1}\n[1]\n', b'{"a":1}\n{"a":\n', b'{"a":"\\ud800"}\n',
    b'{"a":1}\n{"a":1,"a":2}\n{"b":"\xff"}\n',  # not UTF-8: the whole file, before the key
    b'{"a":"\xc3\xa9"}\n{"b":2}', b"", b"\n\n",
])
def test_read_jsonl_is_line_by_line(tmp_path, data):
    path = _lines(tmp_path, data)
    try:
        expected = _slow(path)
    except UnicodeDecodeError:
        with pytest.raises(SourceError, match="not UTF-8 text"):
            read_jsonl(path, Counter())
        return
    assert _fast(path) == expected


def test_read_jsonl_counts_blank_lines(tmp_path):
    skipped: Counter = Counter()
    read_jsonl(_lines(tmp_path, b'\n{"a":1}\n \n\x1c\n{"b":2}\n'), skipped)
    assert skipped["blank line"] == 3


def test_fast_values_doubts_only_the_lines_in_doubt():
    data = b'{"a":1}\n{"a":1,"a":2}\n{"x":":y"}\n{"n":' + b"9" * 400 + b"}\n"
    spans, begin = [], 0
    for line in data.split(b"\n")[:-1]:
        spans.append((begin, begin + len(line)))
        begin += len(line) + 1
    values = strict_json.fast_values(data, spans)
    assert values[0] == {"a": 1}
    assert values[1] is strict_json.UNSURE and values[3] is strict_json.UNSURE
    assert values[2] is strict_json.UNSURE  # a string that looks like a key: the hooks decide


REAL = sorted(paths.public_logs_dir().glob("claude-code/**/*.jsonl"))


@pytest.mark.skipif(not REAL, reason="the public logs (../shared/traces) are not at hand")
def test_read_jsonl_of_real_logs_is_line_by_line():
    """Cross-check on real sessions (skipped on a fresh clone without ../shared)."""
    for path in REAL:
        assert _fast(path) == _slow(path), path


@pytest.fixture
def given_back(monkeypatch):
    """Files from one byte up are read into anonymous memory and decoded 1 KB at a time, so
    that the pages of the first lines are given back before a fault further on is met; every
    map read is kept, to look at it afterwards."""
    monkeypatch.setattr(common, "RELEASED_FROM", 1)
    monkeypatch.setattr(common, "CHUNK_BYTES", 1024)
    maps = []
    read = common.read_releasable

    def keeping(path, limit=None, released_from=1 << 20):
        data = read(path, limit, released_from)
        if not isinstance(data, bytes):
            maps.append(data)
        return data

    monkeypatch.setattr(common, "read_releasable", keeping)
    return maps


def _whole(path: Path) -> list | str:
    """What read_jsonl said of a file read whole: :func:`_slow`, and a file that is not UTF-8
    refused as a whole (:func:`common.utf8_text` of all its bytes)."""
    try:
        common.utf8_text(path, path.read_bytes())
    except SourceError as exc:
        return str(exc)
    return _slow(path)


LATE_FAULTS = {
    "none": b"",
    "not UTF-8 in a string": b'{"b":"\xff"}\n',
    "not UTF-8 outside a string": b'{"b":1}\xff\n',
    "not UTF-8 in a blank-looking line": b"\x1c\xff\n",
    "not JSON, then not UTF-8 further on": b'{"b":\n' + b'{"c":3}\n' * 400 + b'{"d":"\xc3"}\n',
    "not JSON": b'{"b":\n',
    "a repeated key": b'{"b":1,"b":2}\n',
    "not an object": b"[1]\n",
}


@pytest.mark.parametrize("fault", LATE_FAULTS, ids=list(LATE_FAULTS))
def test_a_large_file_whose_pages_are_given_back_reads_as_whole(given_back, tmp_path, fault):
    """The fault lies in a later chunk, after the pages of the first lines were given back:
    the records, or the error (its line and byte), are those of the file read whole."""
    head = b"".join(b'{"a":%d,"text":"%s"}\n' % (k, b"x" * (k % 90)) for k in range(600))
    path = _lines(tmp_path, head + LATE_FAULTS[fault] + b'{"z":"\xc3\xa9"}\n\n')
    assert _fast(path) == _whole(path)
    [memory] = given_back
    assert memory[:4096] == bytes(4096)  # given back: the kernel's zero page


def test_a_small_file_is_read_as_bytes(tmp_path):
    path = _lines(tmp_path, b'{"a":1}\n' * 100)
    assert isinstance(common.read_releasable(path, released_from=common.RELEASED_FROM), bytes)
    assert _fast(path) == _slow(path)
