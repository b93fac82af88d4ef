"""The fast path's check for keys repeated inside one object (:mod:`masrl.traces.repeated_keys`).

Soundness is the property that matters (a text that repeats a key must never be called clean,
or the fast path would accept what strict JSON refuses); precision keeps ordinary files on the
fast path. Both are checked on hand-written texts and on generated ones, rendered with every
spacing and escape the checks have to see through. Examples are derandomised.
"""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.traces import schema
from masrl.traces.columns import _Columns
from masrl.traces.repeated_keys import certainly_strict, key_count, may_repeat_keys

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def repeats(text: str) -> bool:
    """The reference: whether the standard parser sees one object name a key twice."""
    found = []

    def pairs(items):
        keys = [key for key, _ in items]
        found.append(len(keys) != len(set(keys)))
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)
    return any(found)


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a":1,"a":2}', True),
    ('{"a":1,"b":{"a":2}}', False),
    ('{"a":[{"x":1},{"x":2}],"x":3}', False),
    ('{"a":"x\\":y","a":1}', True),
    ('{"a":"x:y","b":1}', False),
    ('{ "a" : 1 , "b" : { "c":1, "c" :2}}', True),
    ('[{"k":1},{"k":1}]', False),
    ('{"abcdefghijklmnopqrstuvwxyz1":1,"abcdefghijklmnopqrstuvwxyz2":2}', False),
    ('{"abcdefghijklmnopqrstuvwxyz1":1,"abcdefghijklmnopqrstuvwxyz1":2}', True),
    ('{"a\\\\":1,"a":2}', True),  # a key with an escape: "maybe" (it is "a\", not "a")
    ('{"":1,"":2}', True),
    ('{"e":[{"id":"a","t":1,"id":"b"}]}', True),
    ('{"x":{"a":1,"b":[1,{"a":3}]},"a":2}', False),
    ('{"x":{"a":1,"b":[1,{"a":3}],"a":5}}', True),
    ('{"a":":","b":":"}', False),
    ('{"a" \n\t :1,"a"\n:2}', True),
    ('{"a":"{","a2":"}","b":{"c":"}","c":1}}', True),
    ('{"a":"[[[","b":{"c":"]]]"},"c":1}', False),
    ('{"a":{"a":{"a":1}}}', False),
    ('{"a":1,"b":[],"a":2}', True),
    ('"a"', False),
    ('[1,2,"x"]', False),
])
def test_hand_written_texts(text, expected):
    assert may_repeat_keys(text.encode()) is expected
    assert expected or not repeats(text)  # "no" is never wrong; "maybe" only for escaped keys


SPACES = st.sampled_from(["", " ", "\n  ", "\t", "\r\n"])
KEYS = st.sampled_from(["a", "b", "id", "t", "a:", ":", "{", "[", "]", "}", 'q"', "x\\y",
                        "é", "ab", "abcdefghij", "abcdefghik", ""])
LEAVES = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), KEYS)


def _tree():
    return st.recursive(
        LEAVES,
        lambda inner: st.one_of(st.lists(inner, max_size=4),
                                st.lists(st.tuples(KEYS, inner), max_size=5)),
        max_leaves=16)


@st.composite
def texts(draw):
    """JSON text of a generated tree: a list of pairs is an object whose keys may repeat;
    spacing drawn at every gap, and every string written plainly or fully \\u-escaped."""

    def string(value: str) -> str:
        if draw(st.booleans()):
            return json.dumps(value, ensure_ascii=False)
        return '"' + "".join(f"\\u{ord(c):04x}" for c in value) + '"'

    def render(node) -> str:
        gap = draw(SPACES)
        if isinstance(node, list) and node and isinstance(node[0], tuple):
            members = [f"{string(k)}{draw(SPACES)}:{draw(SPACES)}{render(v)}" for k, v in node]
            return "{" + gap + ("," + draw(SPACES)).join(members) + draw(SPACES) + "}"
        if isinstance(node, list):
            return "[" + gap + ",".join(render(v) for v in node) + "]"
        if isinstance(node, str):
            return string(node)
        return json.dumps(node)

    return render(draw(_tree()))


@PROPERTY
@given(texts())
def test_a_repeated_key_is_always_seen(text):
    if repeats(text):
        assert may_repeat_keys(text.encode("utf-8"))


@PROPERTY
@given(texts())
def test_keys_without_escapes_are_judged_exactly(text):
    if "\\" not in text:
        assert may_repeat_keys(text.encode("utf-8")) == repeats(text)


EVENT_FIELDS = {"id": st.sampled_from(["e1", "e2"]), "t": st.sampled_from([0, 1.5]),
                "type": st.just("message"), "agent": st.sampled_from(["a", "b:"]),
                "role": st.sampled_from(["r", '"q":', ":x"]), "tokens": st.sampled_from([3, 0.5]),
                "x_note": st.sampled_from([{"k": 1}, [], "z"]),
                "content": st.sampled_from([{"text": "hi"}, {"text": "a:", "truncated": False},
                                            {"text": "", "truncated": True, "bytes": 9000},
                                            {"bytes": 0, "text": '"k":'}])}


@st.composite
def event_arrays(draw):
    """An array of events (required fields, some optional ones, sometimes a field of their
    own, sometimes a field twice), spacing drawn around every colon."""
    colons = st.sampled_from([":", ":", ": ", " :", ":\n", "\n:"])
    comma = draw(st.sampled_from([",", ", ", ",\n "]))
    events = []
    for _ in range(draw(st.integers(1, 4))):
        names = ["id", "t", "type", "agent", *draw(st.lists(
            st.sampled_from(["role", "tokens", "x_note", "content"]), unique=True))]
        names += draw(st.lists(st.sampled_from(names), max_size=1))  # perhaps one repeated
        members = [f"{json.dumps(n)}{draw(colons)}{json.dumps(draw(EVENT_FIELDS[n]))}"
                   for n in names]
        events.append("{" + comma.join(members) + "}")
    return "[" + comma.join(events) + "]"


def count_matches(text: str) -> bool:
    """The fast path's first stage: the keys of the text are exactly the fields its decoded
    records hold (counted from the columns, as the fast path counts them)."""
    records = msgspec.json.decode(text, type=list[schema.EventRecord])
    return key_count(text.encode()) == _Columns(schema.EventRecord).add(records)


@PROPERTY
@given(event_arrays())
def test_a_count_that_matches_means_no_repeated_and_no_unknown_key(text):
    if count_matches(text):
        assert not repeats(text)
        assert "x_note" not in text


def test_ordinary_events_are_cleared_by_the_count():
    text = ('[{"id":"e1","t":0,"type":"spawn","agent":"o","to":"w","role":"worker"},'
            '{"id":"e2","t":1.5,"type":"message","agent":"w","content_ref":"sha256:1",'
            '"tokens":12}]')
    assert count_matches(text)
    assert not count_matches(text.replace('"tokens":12', '"tokens":12,"tokens":13'))
    # an escaped quote before a colon in a string is no key; a string opening with a colon is
    # counted as one: "maybe", never "no"
    assert count_matches(text.replace('sha256:1', 'sha256:\\"x\\":1'))
    assert not count_matches(text.replace('sha256:1', ':sha256:1'))


def test_an_events_text_is_counted_with_its_own_keys():
    """An event's ``content`` (version 1.2) is an object: its key and each of its fields are
    keys of the text, so events holding text stay cleared by the count, and a key repeated
    inside it is seen."""
    text = ('[{"id":"e1","t":0,"type":"message","agent":"a","content":{"text":"hi"}},'
            '{"id":"e2","t":1,"type":"message","agent":"a",'
            '"content":{"text":"cut","truncated":false,"bytes":9000}}]')
    assert count_matches(text)
    assert not count_matches(text.replace('{"text":"hi"}', '{"text":"hi","text":"ho"}'))


@pytest.mark.parametrize("escape", ["\\u0022", "\\u003a", "\\u003A", "\\n", "\\u00e9",
                                    "\\\\"])
def test_escapes_in_values_leave_the_count_alone(escape):
    """The count compares keys with fields, never with an encoding of the records, so a quote
    or colon spelled as an escape changes nothing."""
    text = '[{"id":"e1","t":0,"type":"message","agent":"a","role":"x' + escape + 'y"}]'
    assert count_matches(text)


def test_whitespace_before_a_colon_is_stepped_over():
    assert key_count(b'[{"id" :"e1"}]') == 1
    assert key_count(b'[{"id"\n\t :"e1", "t" : 0, "x": "a :"}]') == 3
    assert key_count(b'[{"x": " :"}]') == 2  # a string opening with a colon: high, never short


@pytest.mark.parametrize(("text", "strict"), [
    ('[{"x_a":1e400}]', False), ('[{"x_a":-1E+400}]', False), ('[{"x_a":[1,{"b":9e999}]}]', False),
    ('[{"x_a":' + "9" * 400 + '}]', False), ('[{"x_a":' + "1" + "0" * 308 + '}]', True),
    ('[{"x_a":' + "1" + "0" * 309 + '}]', False), ('[{"x_a":1.5e-400}]', True),
    ('[{"x_a":1e308}]', True), ('[{"x_a":1.7976931348623159e308}]', False),
    ('[{"x_a":"1e400"}]', True), ('[{"x_a":"sha256:9e1234"}]', True),
    ('[{"x_a":"' + "9" * 400 + '"}]', True), ('[{"x_a":0.' + "0" * 300 + '1}]', True),
    ('[{"x_a":"a\\"","x_b":5e500}]', False),
])
def test_a_number_out_of_range_outside_strings_is_not_strict(text, strict):
    assert certainly_strict(text.encode()) is strict
