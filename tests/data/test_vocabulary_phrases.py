"""Phrases of the vocabulary: how the book words a number by a tag value (a bound of ``up_to``
100 reads "up to 100"), checked on load like every other part of the vocabulary."""

from __future__ import annotations

import pytest
from support import problem_lines, replace_in

from masrl.data.dataset import Dataset


def test_every_bound_is_worded():
    bound = Dataset().vocabulary["bound"]
    assert sorted(bound.phrases) == sorted(bound.values)
    assert bound.phrase("up_to", "1,500") == "up to 1,500"
    assert bound.phrase("exactly", "16") == "16"
    assert bound.phrase("default", "4") == "4 by default"


def test_a_field_without_phrases_gives_the_number_alone():
    assert Dataset().vocabulary["horizon_unit"].phrase("turns", "20") == "20"


@pytest.mark.parametrize("old, new, message", [
    ("      about: about {}\n", "", "'phrases' must give exactly one phrase per value defined"),
    ("more_than: more than {}", "more_than: more than", "must hold '{}' exactly once"),
])
def test_a_broken_phrase_is_reported(data_copy, old, new, message):
    replace_in(data_copy / "vocabulary.yaml", old, new)
    lines = problem_lines("vocabulary", data_copy)
    assert len(lines) == 1 and lines[0].startswith("vocabulary.yaml:fields:bound:"), lines
    assert message in lines[0]
