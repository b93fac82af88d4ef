"""A Codex token count's ``info`` held packed (issue 30: the counts of a long rollout weighed
three quarters of its size) reads back as the very dict that was read, and two infos held
compare equal exactly when the dicts do: the repeat check and the order told from the data
see what they saw before."""

from __future__ import annotations

import json
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from masrl.traces.importers.sessions.codex_counts import PackedInfo, packed, same_info

KEYS = st.sampled_from(["input_tokens", "output_tokens", "total_tokens", "a", "b"])
COUNTS = (st.integers(0, 200_000) | st.integers(-(1 << 70), 1 << 70) | st.booleans()
          | st.sampled_from([0.0, -0.0, 12.0, 12.5, "12", "\ud800", None, [1], [1.0], []]))
USAGE = st.dictionaries(KEYS, COUNTS, max_size=5)
INFOS = st.dictionaries(st.sampled_from(["total_token_usage", "last_token_usage",
                                         "model_context_window", "x"]),
                        USAGE | COUNTS, max_size=4)


def leaves(value) -> list:
    if type(value) is dict:
        return [leaf for inner in value.values() for leaf in leaves(inner)]
    if type(value) is list:
        return [leaf for inner in value for leaf in leaves(inner)]
    return [value]


def held(info: dict):
    return packed(info) or info


def typed(value):
    """A value with the type of every part spelled out (``1 == 1.0 == True`` in Python)."""
    if type(value) is dict:
        return [(key, typed(inner)) for key, inner in value.items()]
    if type(value) is list:
        return [typed(inner) for inner in value]
    return (type(value).__name__, repr(value))


@settings(max_examples=300, deadline=None)
@given(INFOS)
def test_a_packed_info_reads_back_as_read(info):
    """Packed unless MessagePack cannot hold it as it is (an int past 64 bits, a text that
    is not Unicode): then kept as read."""
    found = packed(info)
    holds = all(not (type(v) is int and not -(1 << 63) <= v < (1 << 64))
                and not (type(v) is str and "\ud800" in v) for v in leaves(info))
    assert (found is not None) == holds
    if found is not None:
        back = found.unpacked()
        assert typed(back) == typed(info)  # same keys in the same order, same types
        assert json.dumps(back) == json.dumps(info)


def variants(info: dict) -> st.SearchStrategy[dict]:
    """``info`` itself, with its keys reordered, a count written as a float, ``true`` or text,
    a count changed, or another info: equal to it or not, in forms that pack or do not."""
    def reordered(d):
        return {k: reordered(v) if type(v) is dict else v for k, v in reversed(d.items())}

    def touched(d, value):
        out = json.loads(json.dumps(d))
        for key, inner in out.items():
            if type(inner) is dict and inner:
                inner[next(iter(inner))] = value(inner[next(iter(inner))])
                return out
            if type(inner) is int:
                out[key] = value(inner)
                return out
        return out

    return st.sampled_from([
        info, json.loads(json.dumps(info)), reordered(info),
        touched(info, lambda v: float(v) if type(v) is int and abs(v) < 1 << 52 else v),
        touched(info, lambda v: True if v == 1 else v),
        touched(info, lambda v: str(v) if type(v) is int else v),
        touched(info, lambda v: v + 1 if type(v) is int else v),
    ]) | INFOS


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_infos_held_are_the_same_exactly_when_the_dicts_are_equal(data):
    one = data.draw(INFOS)
    other = data.draw(variants(one))
    assert same_info(held(one), held(other)) == (one == other)
    if isinstance(held(one), PackedInfo) and held(one) == held(other):
        assert typed(one) == typed(other)  # equal packed: the same dict, not just an equal one


def test_the_counts_of_a_rollout_pack_into_under_half_the_room():
    usage = {"input_tokens": 17088, "cached_input_tokens": 3456, "output_tokens": 350,
             "reasoning_output_tokens": 152, "total_tokens": 17438}
    info = {"total_token_usage": dict(usage), "last_token_usage": dict(usage),
            "model_context_window": 258400}
    one, other = packed(info), packed(json.loads(json.dumps(info)))
    assert one == other and same_info(one, other)
    read = sys.getsizeof(info) + sum(sys.getsizeof(v) + sum(map(sys.getsizeof, v.values()))
                                     for v in info.values() if type(v) is dict)
    assert sys.getsizeof(one) * 2 < read


def test_what_cannot_be_packed_as_it_is_is_kept_as_read():
    deep: list = []
    for _ in range(sys.getrecursionlimit() + 10):
        deep = [deep]
    for info in ({"a": 1 << 64}, {"a": {"b": -(1 << 63) - 1}}, {"a": "\udc00"}, {"a": deep}):
        assert packed(info) is None
        assert same_info(held(info), held(info))
    assert isinstance(packed({"a": (1 << 64) - 1}), PackedInfo)
