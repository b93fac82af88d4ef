"""The trace text an import writes (``_kit.common.dumps``) is exactly the standard library's
``json.dumps(indent=1, ensure_ascii=False, allow_nan=False)``, made by a faster route."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masrl.traces.importers._kit.common import dumps

TEXT = st.text(st.characters(exclude_categories=("Cs",)))
SCALARS = (st.none() | st.booleans() | st.integers(min_value=-10**40, max_value=10**40)
           | st.floats(allow_nan=False, allow_infinity=False) | TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(TEXT, inner, max_size=4), max_leaves=40)


def standard(document) -> str:
    return json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


@settings(max_examples=400)
@given(st.dictionaries(TEXT, VALUES, max_size=6))
def test_same_text_as_the_standard_library(document):
    assert dumps(document) == standard(document)


def test_empty_containers_control_characters_and_separators_in_strings():
    document = {"events": [], "edges": [{}], "x": {"a": [[], {}]},
                "s": 'quote " colon ": comma , brace { } \\ \x01 \u2028 é 😀', "f": 1e16,
                "g": -0.0, "h": 5e-324}
    assert dumps(document) == standard(document)


def test_a_lone_surrogate_takes_the_standard_way():
    document = {"s": "\ud800"}
    assert dumps(document) == standard(document)  # refused later, when written as UTF-8


def test_nan_is_refused_as_before():
    with pytest.raises(ValueError):
        dumps({"t": float("nan")})
