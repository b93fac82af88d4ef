"""Prediction files: the accepted format, and every kind of bad line named by file and line."""

from __future__ import annotations

import pytest
from attribution_helpers import GOLD_ANSWERS, IDS, answer, answers

from masrl.traces.attribution import gold
from masrl.traces.attribution.predictions import Prediction, read_predictions
from masrl.traces.importers import SourceError


@pytest.fixture
def runs(gold_dir):
    return gold.load_gold(gold_dir)


def test_a_valid_file_gives_one_prediction_per_log(runs, write_predictions):
    lines = answers(GOLD_ANSWERS)
    lines[1] = {**lines[1], "x_reason": "a note of the method", "x_cost": 3}
    lines[4] = answer("hand-crafted/10", None, None)  # no answer
    path = write_predictions([lines[4], "", *lines[:4]])  # any order; blank lines allowed
    found = read_predictions(path, runs)
    assert list(found) == ["hand-crafted/10", *IDS[:4]]
    assert found["algorithm-generated/2"] == Prediction("algorithm-generated/2", "B_Expert", 2, 4)
    assert found["hand-crafted/10"] == Prediction("hand-crafted/10", None, None, 1)


def fails(path, where, message):
    place = str(path) if where is None else f"{path}:{where}"
    return f"{place}: {message}"


@pytest.mark.parametrize("bad, message", [
    ('{"id": "hand-crafted/1", "agent": "WebSurfer", "step": ', None),
    ('["hand-crafted/1", "WebSurfer", 3]', "a record must be a JSON object, not an array"),
    ({"id": "hand-crafted/1", "agent": "WebSurfer"}, "no 'step' key (a prediction has id, "
     "agent, step)"),
    ({"agent": "WebSurfer", "step": 3}, "no 'id' key (a prediction has id, agent, step)"),
    ({**answer("hand-crafted/1", "WebSurfer", 3), "stp": 3}, "unknown key 'stp' (a prediction "
     "has id, agent, step; notes of yours must start with x_)"),
    (answer(12, "WebSurfer", 3), "'id' must be a string, found 12 (a number)"),
    (answer("hand-crafted/99", "WebSurfer", 3), "unknown id 'hand-crafted/99': no such log in "
     "the gold directory (ids are SUBSET/STEM, e.g. 'hand-crafted/12')"),
    (answer("q-river", "WebSurfer", 3), "unknown id 'q-river': no such log in the gold "
     "directory (ids are SUBSET/STEM, e.g. 'hand-crafted/12')"),
    (answer("hand-crafted/1", ["WebSurfer"], 3), "'agent' must be a string or null, found an "
     "array"),
    (answer("hand-crafted/1", "WebSurfer", 2.5), "'step' must be an integer or null, found 2.5 "
     "(a number)"),
    (answer("hand-crafted/1", "WebSurfer", "3"), "'step' must be an integer or null, found '3' "
     "(a string)"),
    (answer("hand-crafted/1", "WebSurfer", True), "'step' must be an integer or null, found "
     "true (a boolean)"),
    (answer("hand-crafted/1", "WebSurfer", 6), "'step' 6 is outside hand-crafted/1, whose steps "
     "are 0..5"),
    (answer("hand-crafted/1", "WebSurfer", -1), "'step' -1 is outside hand-crafted/1, whose "
     "steps are 0..5"),
])
def test_a_bad_line_is_an_error_naming_file_and_line(runs, write_predictions, bad, message):
    lines = answers(GOLD_ANSWERS)
    path = write_predictions([*lines[:2], bad, *lines[3:]])
    with pytest.raises(SourceError) as caught:
        read_predictions(path, runs)
    if message is None:  # a truncated line: the JSON reader's own message
        assert str(caught.value).startswith(f"{path}:3: not a JSON record (")
    else:
        assert str(caught.value) == fails(path, 3, message)


def test_a_second_prediction_for_a_log_is_an_error(runs, write_predictions):
    lines = answers(GOLD_ANSWERS)
    path = write_predictions([*lines, lines[0]])
    with pytest.raises(SourceError) as caught:
        read_predictions(path, runs)
    assert str(caught.value) == fails(path, 6, "a second prediction for 'algorithm-generated/1' "
                                      "(the first is on line 1)")


def test_missing_logs_are_listed(runs, write_predictions):
    path = write_predictions(answers(GOLD_ANSWERS)[1:4])
    with pytest.raises(SourceError) as caught:
        read_predictions(path, runs)
    assert str(caught.value) == fails(path, None, "no prediction for 2 of the 5 gold logs: "
                                      "algorithm-generated/1, hand-crafted/10 (every log needs "
                                      "a line; use null for no answer)")


def test_only_the_chosen_subsets_need_predictions(gold_dir, write_predictions):
    runs = gold.load_gold(gold_dir, ("hand-crafted",))
    path = write_predictions(answers(GOLD_ANSWERS)[2:])
    assert list(read_predictions(path, runs)) == IDS[2:]
    other = write_predictions(answers(GOLD_ANSWERS), "all.jsonl")
    with pytest.raises(SourceError) as caught:
        read_predictions(other, runs)
    assert str(caught.value) == fails(other, 1, "'algorithm-generated/1' is not in the subsets "
                                      "scored (hand-crafted); leave its line out or score its "
                                      "subset too")
