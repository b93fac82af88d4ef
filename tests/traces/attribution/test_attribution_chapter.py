"""The failure-attribution chapter runs with papermill on other logs and scores a reader's own
predictions (``-p predictions_path``); a copy is executed in a temporary directory."""

from __future__ import annotations

import json

import papermill
import pytest
from attribution_helpers import GOLD, GOLD_ANSWERS, answers
from chapter_helpers import execute_copy, glued

CHAPTER = "25_failure_attribution"


def outputs(notebook) -> str:
    """Every plain-text and Markdown output of the notebook, joined."""
    return "\n".join("".join(o.get("data", {}).get(kind, "")) + "".join(o.get("text", ""))
                     for c in notebook.cells for o in c.get("outputs", [])
                     for kind in ("text/plain", "text/markdown"))


def test_the_chapter_scores_a_readers_predictions(tmp_path):
    mine = {**GOLD_ANSWERS, "hand-crafted/2": ("FileSurfer", 3)}
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers(mine)), encoding="utf-8")
    notebook = execute_copy(CHAPTER, tmp_path, gold_dir=GOLD, predictions_path=path,
                            resamples=100)
    values = glued(notebook)
    assert (values["n_logs"], values["n_ag"], values["n_hc"]) == ("5", "2", "3")
    assert values["resamples_text"] == "'100 resamples, seed 0'"
    text = outputs(notebook)
    assert "your method" in text and "No predictions were given" not in text
    assert "100.00 [100.00, 100.00]" in text  # algorithm-generated: both levels right
    assert "66.67 [" in text  # hand-crafted: two of three logs right
    assert "Chart: Published methods and rules that need no model" in text


def test_without_predictions_the_chapter_says_so(tmp_path):
    notebook = execute_copy(CHAPTER, tmp_path, gold_dir=GOLD, resamples=50)
    assert "No predictions were given" in outputs(notebook)


def test_a_bad_predictions_file_stops_the_chapter_with_the_place(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "hand-crafted/1", "agent": "WebSurfer", "step": 2.5}\n',
                    encoding="utf-8")
    with pytest.raises(papermill.PapermillExecutionError,
                       match=r"bad\.jsonl:1: 'step' must be an integer or null"):
        execute_copy(CHAPTER, tmp_path, gold_dir=GOLD, predictions_path=path, resamples=50)
