"""Labels of the vocabulary: how the book shows a value written as a code ("RL method" for
``rl_method``), defined once in data/vocabulary.yaml and checked on load."""

from __future__ import annotations

import re

import pytest
from support import problem_lines, replace_in

from masrl.data.dataset import Dataset
from masrl.data.vocabulary import dictionary

CODE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")  # a value written as a code: rl_method


def test_every_value_written_as_a_code_has_a_label():
    vocab = Dataset().vocabulary
    unlabelled = [f"{field.name}.{value}" for field in vocab.fields.values()
                  for value in field.values if CODE.match(value) and not field.labels]
    assert unlabelled == []
    assert all(not CODE.match(label) for field in vocab.fields.values()
               for label in field.labels.values())


def test_a_label_is_shown_for_its_value_and_a_value_without_one_as_written():
    vocab = Dataset().vocabulary
    assert vocab["category"].label_of("rl_method") == "RL method"
    assert vocab["orchestration_form"].label_of("planner_executor_critic") \
        == "Planner, executor and critic"
    assert vocab["reward_type"].label_of("NA") == "Not applicable"
    assert vocab["source"].labels == {} and vocab["source"].label_of("arXiv") == "arXiv"
    assert list(vocab["reward_type"].labels) == vocab["reward_type"].values  # display order


def test_the_data_dictionary_shows_each_values_label():
    entries = {e["field"]: e for e in dictionary(Dataset().vocabulary)}
    first = entries["category"]["values"][0]
    assert first == {"value": "rl_method", "label": "RL method",
                     "meaning": entries["category"]["values"][0]["meaning"]}


@pytest.mark.parametrize("old, new, message", [
    ("    rl_method: RL method\n", "", "no label for rl_method"),
    ("    rl_method: RL method\n", "    rl_method: RL method\n    robotics: Robotics\n",
     "not a value: robotics"),
    ("    benchmark: Benchmark\n", "    benchmark: RL method\n", "distinct"),
    ("  confidence:\n    high: High\n", "  certainty:\n    high: High\n", "unknown field: certainty"),
])
def test_a_broken_label_is_reported(data_copy, old, new, message):
    replace_in(data_copy / "vocabulary.yaml", old, new)
    lines = problem_lines("vocabulary", data_copy)
    assert len(lines) == 1 and lines[0].startswith("vocabulary.yaml:labels:"), lines
    assert message in lines[0], lines
