"""A large document decoded an item at a time (:mod:`masrl.traces.piecewise_json`) vouches only
for what the whole way reads without a fault, and then gives exactly its value; the text's
pages behind the items are given back as they are read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masrl.traces import piecewise_json, strict_json

NOT_VOUCHED = "not vouched"
SPANS = "spans"


def piecewise(path: Path, key: str = SPANS):
    """The document's value as read piecewise (its array read in full), or NOT_VOUCHED."""
    document = piecewise_json.read(path, key, released_from=1)
    if document is None:
        return NOT_VOUCHED
    try:
        value = document.value
        if isinstance(value, dict):
            value = {name: list(v) if name == key else v for name, v in value.items()}
        else:
            value = list(value)
        assert document.finished
        return value
    except piecewise_json.Unsure:
        return NOT_VOUCHED
    finally:
        document.close()


def check(path: Path) -> None:
    """What the whole way finds in the file, the piecewise way finds too, or it does not
    vouch: never a value the whole way refuses, never another value."""
    data = path.read_bytes()
    document, findings = strict_json.parse(data)
    found = piecewise(path)
    if data[:1] in (b"[", b"{") and (data[:1] == b"[" or b'"spans"' in data):
        # the same doubts as the whole document's fast decode, no more, no fewer
        assert (found is NOT_VOUCHED) == (strict_json.fast_value(data) is strict_json.UNSURE)
    if findings:
        assert found is NOT_VOUCHED
    elif found is not NOT_VOUCHED:
        assert repr(found) == repr(document)  # repr: -0.0 is not 0.0, order counts


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.json"
    path.write_text(text, "utf-8", errors="surrogatepass")
    return path


ITEMS = [  # items of the array, each a case (the strict reader's cases, as items)
    '{"a": 1}', "null", "3", '"s"', "[]", "{}", '{"a":1,"a":2}', '{"a":{"b":1,"b":1}}',
    '{"a\\u0062":1,"ab":2}', '{"a" : 1, "b"\t:{"c" :2}}', '{"x":":ok","y":"  :no"}',
    '{"x":"\\": \\":", "k\\\\":1}', '{"n":' + "9" * 309 + "}", '{"n":-' + "1" * 400 + "}",
    '{"n":1e400}', '{"n":NaN}', '{"s":"\\ud800"}', '{"s":"\\ud83d\\ude00"}', '{"t":-0.0}',
    *("[" * k + "]" * k for k in (800, 897, 898, 899, 2000)), '{"a":1', '{"a":"\xe9\u00e9"}',
]


@pytest.mark.parametrize("item", ITEMS, ids=range(len(ITEMS)))
@pytest.mark.parametrize("layout", ["object", "array", "object, array first",
                                    "repeated key at the top", "repeated array key"])
def test_vouches_only_for_the_whole_value(tmp_path, item, layout):
    body = ",".join([item, '{"k":1}', item])
    text = {"object": '{"n":1,"spans":[BODY],"end":{"x":[1,2]}}',
            "array": "[BODY]",
            "object, array first": '{"spans":[BODY],"span_count":3}',
            "repeated key at the top": '{"n":1,"spans":[BODY],"n":2}',
            "repeated array key": '{"spans":[],"spans":[BODY]}'}[layout].replace("BODY", body)
    check(written(tmp_path, text))


@given(st.lists(st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=6)
                                | st.floats(allow_nan=False, allow_infinity=False),
                                max_size=4), max_size=8),
       st.integers(min_value=0, max_value=10**6), st.booleans())
@settings(max_examples=150, deadline=None)
def test_any_array_of_objects(tmp_path_factory, items, seed, repeat):
    """Any array of objects, compact or spaced, at the top or under ``spans``, with one key of
    one item written twice."""
    text = json.dumps(items, ensure_ascii=seed % 2 == 0,
                      separators=(",", ":") if seed % 3 else (", ", " : "))
    if repeat and items and items[seed % len(items)]:
        k = seed % len(items)
        key = next(iter(items[k]))
        body = json.dumps(items[k])
        doubled = "{" + json.dumps(key) + ":1," + body[1:]
        text = "[" + ",".join(json.dumps(i) if j != k else doubled
                              for j, i in enumerate(items)) + "]"
    folder = tmp_path_factory.mktemp("any")
    check(written(folder, text))
    check(written(folder, f'{{"spans":{text},"other":"{seed}"}}'))


@pytest.mark.parametrize("text", ['\ufeff{"spans":[]}', ' {"spans":[]}', '{"data":[]}', "3",
                                  '"spans"', '{"spans":{}}', '{"spans":[1,]}', ""])
def test_what_it_does_not_read(tmp_path, text):
    """A byte-order mark or a space before the document, no such array, or a document msgspec
    refuses at its top: the caller reads it the whole way."""
    assert piecewise_json.read(written(tmp_path, text), SPANS, released_from=1) is None


def test_a_small_file_is_left_to_the_whole_way(tmp_path):
    path = written(tmp_path, '{"spans":[{"a":1}]}')
    assert piecewise_json.read(path, SPANS, released_from=1 << 20) is None


def test_the_pages_behind_the_items_are_given_back(tmp_path, monkeypatch):
    """After the items of the first megabytes are read, the pages of their text read as zeros
    (given back); the items read are the file's."""
    monkeypatch.setattr(piecewise_json, "GIVE_BACK_EVERY", 1 << 16)
    items = [{"k": k, "text": "x" * 1000} for k in range(3000)]
    path = written(tmp_path, json.dumps({"spans": items, "tail": [1, 2]}))
    document = piecewise_json.read(path, SPANS, released_from=1)
    try:
        read = iter(document.value[SPANS])
        first = [next(read) for _ in range(2000)]
        assert document.memory[:1 << 16] == bytes(1 << 16)
        assert first + list(read) == items
        assert document.value["tail"] == [1, 2] and document.finished
    finally:
        document.close()


def test_items_are_read_once(tmp_path):
    document = piecewise_json.read(written(tmp_path, '[{"a":1},{"b":2}]'), SPANS,
                                   released_from=1)
    try:
        assert list(document.value) == [{"a": 1}, {"b": 2}]
        with pytest.raises(piecewise_json.Unsure):
            list(document.value)
    finally:
        document.close()


@pytest.mark.parametrize("text", ['{"n":1,"spans":[{"a":{"b":[1,-0.0]}},{}],"m":"\\u00e9"}',
                                  '[{"a" : 1}, {"b":"x\\"y"}]'])
def test_it_vouches_for_a_plain_document(tmp_path, text):
    assert repr(piecewise(written(tmp_path, text))) == repr(json.loads(text))


def piecewise_lines(path: Path):
    """The file's lines as read piecewise, ``[(line, value)]``, or NOT_VOUCHED."""
    document = piecewise_json.read(path, SPANS, released_from=1)
    if document is None or not isinstance(document.value, piecewise_json.Lines):
        if document is not None:
            document.close()
        return NOT_VOUCHED
    try:
        found = list(document.value)
        assert document.finished
        return found
    except piecewise_json.Unsure:
        return NOT_VOUCHED
    finally:
        document.close()


def check_lines(path: Path) -> None:
    """JSON Lines read piecewise are the values the whole way reads, on the same lines, or
    not vouched for: never values the whole way refuses."""
    try:
        whole = strict_json.parse_sequence(path.read_bytes())
    except strict_json.StrictJSONError:
        whole = None
    found = piecewise_lines(path)
    if whole is None or any(findings for _, _, findings in whole):
        assert found is NOT_VOUCHED
    elif found is not NOT_VOUCHED:
        assert repr(found) == repr([(line, value) for line, value, _ in whole])


@pytest.mark.parametrize("item", ITEMS, ids=range(len(ITEMS)))
@pytest.mark.parametrize("layout", ["lines", "lines, CRLF", "no last line feed", "a blank line",
                                    "two values on a line", "a value over two lines"])
def test_json_lines_vouched_only_for_the_whole_values(tmp_path, item, layout):
    lines = ['{"k":1}', item, "[2]", item, '{"k":{"j":[3]}}']
    text = {"lines": "\n".join(lines) + "\n",
            "lines, CRLF": "\r\n".join(lines) + "\r\n",
            "no last line feed": "\n".join(lines),
            "a blank line": "\n".join(lines[:2] + [""] + lines[2:]) + "\n",
            "two values on a line": "\n".join(lines[:2] + ["[1] [2]"] + lines[2:]) + "\n",
            "a value over two lines": "\n".join(lines + ['{"a":', "1}"]) + "\n"}[layout]
    check_lines(written(tmp_path, text))


def test_json_lines_of_plain_objects_are_vouched_for(tmp_path):
    text = '{"a":1}\n[{"b":-0.0}]\r\n{"c":"\\u00e9"}'
    assert repr(piecewise_lines(written(tmp_path, text))) == repr(
        [(1, {"a": 1}), (2, [{"b": -0.0}]), (3, {"c": "\u00e9"})])


def test_the_pages_behind_the_lines_are_given_back(tmp_path, monkeypatch):
    monkeypatch.setattr(piecewise_json, "GIVE_BACK_EVERY", 1 << 16)
    records = [{"k": k, "text": "x" * 1000} for k in range(3000)]
    path = written(tmp_path, "".join(json.dumps(r) + "\n" for r in records))
    document = piecewise_json.read(path, SPANS, released_from=1)
    try:
        read = iter(document.value)
        first = [next(read) for _ in range(2000)]
        assert document.memory[:1 << 16] == bytes(1 << 16)
        assert [v for _, v in first + list(read)] == records and document.finished
    finally:
        document.close()
