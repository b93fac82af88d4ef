"""The one count of a JSON text's keys (:func:`masrl.traces.strict_json.key_count`), shared by
validation's fast path and the importers' fast decode, held to a plain count by the standard
parser's hook on generated documents: keys holding quotes, backslashes, colons and whitespace,
written with and without spaces around colons, as short text, as long text and as bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.traces import strict_json

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
TRICKY = st.text(alphabet='ab":\\ \t\n{}[],', max_size=6)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=16)
SEPARATORS = [(",", ":"), (", ", ": "), (",", " : "), (",\n", "\n\t:"), (",", ":  ")]


def reference(text: str) -> int:
    """Entries of every object (the hook's pairs), plus the strings that open with a colon past
    spaces: the one way the count errs, high."""
    pairs, openers = [], []

    def pair_hook(items):
        pairs.append(len(items))
        openers.extend(key for key, _ in items)
        openers.extend(value for _, value in items if isinstance(value, str))
        return dict(items)

    document = json.loads(text, object_pairs_hook=pair_hook)
    if isinstance(document, str):
        openers.append(document)
    stack = [document]
    while stack:  # strings inside arrays (those in objects were seen by the hook)
        node = stack.pop()
        items = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for item in items:
            if isinstance(item, (dict, list)):
                stack.append(item)
            elif isinstance(item, str) and isinstance(node, list):
                openers.append(item)
    return sum(pairs) + sum(1 for s in openers if s.lstrip(" ").startswith(":"))


@PROPERTY
@given(values, st.sampled_from(SEPARATORS), st.booleans())
def test_the_count_is_the_hooks_count(value, separators, ascii_only):
    text = json.dumps(value, separators=separators, ensure_ascii=ascii_only)
    expected = reference(text)
    assert strict_json.key_count(text) == expected  # short text: string search
    assert strict_json.key_count(text.encode("utf-8")) == expected  # bytes: on an array
    plain = strict_json._plain_key_count(text.encode("utf-8"))  # counted without positions
    assert plain is None or plain == expected
    beyond = (text + " " * strict_json._KEY_CHUNK).encode("utf-8")  # past one chunk
    assert strict_json.key_count(beyond) == expected
    padded = text + " " * strict_json._LONG_TEXT  # long text: encoded, then on an array
    assert strict_json.key_count(padded) == expected


@PROPERTY
@given(values, st.sampled_from(SEPARATORS), st.sampled_from([1, 2, 3, 7, 64]))
def test_chunk_boundaries_change_nothing(value, separators, chunk):
    """The array count compares a chunk of text at a time but looks back across its start
    (whitespace, backslashes): any cut gives the hook's count."""
    text = json.dumps(value, separators=separators)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(strict_json, "_KEY_CHUNK", chunk)
        assert strict_json.key_count(text.encode("utf-8")) == reference(text)


def test_escaped_quotes_and_backslash_runs():
    assert strict_json.key_count('{"a\\\\":1}') == 1  # a key ending in a backslash
    assert strict_json.key_count('{"a":"\\":"}') == 1  # an escaped quote, then a colon
    assert strict_json.key_count('{"a":"\\\\\\":"}') == 1  # three backslashes: still escaped
    assert strict_json.key_count('{"a\\\\" :1}') == 1  # spaced, after an even run
    assert strict_json.key_count('{"a":"\\" :"}') == 1  # spaced, after an odd run


def test_plain_keys_are_counted_without_positions():
    """Compact and indented JSON whose keys hold no escaped quote are counted by whole-text
    comparisons; a colon after whitespace or a quote after a backslash is left to the full
    count (which steps back over them)."""
    assert strict_json._plain_key_count(b'{"a":1,"b":{"c":[{"d":"x"}]}}') == 4
    assert strict_json._plain_key_count(json.dumps({"a": {"b": 1}}, indent=2).encode()) == 2
    assert strict_json._plain_key_count(b'{"a" :1}') is None
    assert strict_json._plain_key_count(b'{"a":"\\":1}') is None
    assert strict_json.key_count(b'{"a":"\\":1}') == 1
