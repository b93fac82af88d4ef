"""The fingerprint that tells an exact copy of a span record (``spans.tree.fingerprint``): equal
exactly when the records' canonical JSON texts (sorted keys, the standard library's) are equal,
whatever encoder makes it."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from masrl.traces.importers.spans.tree import fingerprint

SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**130), max_value=2**130)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(alphabet=st.characters(), max_size=8))  # lone surrogates too
RECORDS = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12)


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def shuffled(value, rng: random.Random):
    """The same record with every object's keys in another order."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


@settings(max_examples=400, deadline=None)
@given(RECORDS, RECORDS, st.randoms(use_true_random=False))
def test_fingerprints_are_equal_exactly_when_canonical_texts_are(a, b, rng):
    assert fingerprint(a) == fingerprint(shuffled(a, rng))
    assert (fingerprint(a) == fingerprint(b)) == (canonical(a) == canonical(b))


def test_the_numbers_and_texts_that_look_alike_stay_apart():
    pairs = [(1, 1.0), (0.0, -0.0), (True, 1), (None, "null"), ("1", 1), ([1], (1,)),
             (2**64, float(2**64)), ({"a": "\ud800"}, {"a": "\ufffd"})]
    for a, b in pairs:
        assert (fingerprint(a) == fingerprint(b)) == (canonical(a) == canonical(b)), (a, b)
