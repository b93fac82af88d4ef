"""The gap chapters run with papermill on other data and other parameters: the readings chapter
reproduces each reading's table through its ``reading`` parameter, and the claims chapter
reports a claim that a changed tag makes fail. Each run executes a copy of the chapter in a
temporary directory, so the committed notebooks are never overwritten."""

from __future__ import annotations

import ast

import pytest
from chapter_helpers import execute_copy, glued
from support import replace_in


def test_the_claims_chapter_reports_a_failing_claim(tmp_path, data_copy):
    replace_in(data_copy / "audit.csv", "\nowl2025,,strict,", "\nowl2025,,broad,")
    notebook = execute_copy("35_claims", tmp_path, data_dir=data_copy, as_of="2026-05-04")
    values = glued(notebook)
    assert values["n_failed"] == "5"
    assert "orchestrator-credit" in values["failed_ids"]
    status = ast.literal_eval(values["status_line"])  # a str, glued as its repr
    assert status.startswith("FAIL: 5 of")  # glued into prose: never cut
    assert "orchestrator-credit" in status


@pytest.mark.parametrize("reading, message, orchestrator, kept", [
    ("broad", "2", "8", "84"),
    ("strict", "1", "5", "80"),
    ("spotcheck", "2", "9", "84"),
])
def test_the_reading_parameter_reproduces_each_table(tmp_path, reading, message, orchestrator, kept):
    values = glued(execute_copy("31_readings", tmp_path, reading=reading))
    assert values["reading"] == repr(reading)
    assert values["reading_rows"] == kept
    assert values["reading_message"] == message
    assert values["reading_orchestrator"] == orchestrator
    assert values[f"orchestrator_{reading}"] == orchestrator  # agrees with the side-by-side table


def test_an_unknown_reading_stops_the_chapter(tmp_path):
    import papermill

    with pytest.raises(papermill.PapermillExecutionError, match="unknown reading 'lenient'"):
        execute_copy("31_readings", tmp_path, reading="lenient")
