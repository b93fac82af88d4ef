"""Control bytes and direction overrides from the data never reach the terminal: the lines of
``masrl intake``, ``check-data`` and ``claims`` show them escaped."""

from __future__ import annotations

import re

import pytest
from fault_helpers import add_candidates, excluded

from masrl.commands import main

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("sneaky", ["\u202e", "\u2066", "\u200f", "\u061c"])
def test_intake_lines_escape_direction_controls(data_copy, capsys, sneaky):
    title = f"A title{sneaky}gnirts desrever about stopping agent teams early"
    add_candidates(data_copy, excluded("C101", title, "2611.00011"),
                   excluded("C102", title, "2611.00012"),
                   excluded("C103", title + " revisited", "2611.00013"))
    capsys.readouterr()
    assert main(["intake", "--dry-run", "--data-dir", str(data_copy)]) == 1  # a sure match
    captured = capsys.readouterr()
    assert not RAW.search(captured.out + captured.err)
    assert "match: candidates:C101 and candidates:C102: same title" in captured.out
    fuzzy = next(line for line in captured.out.splitlines() if "C103" in line)
    assert f"\\u{ord(sneaky):04x}" in fuzzy  # the titles quoted, the control escaped


@pytest.mark.parametrize("command", [["check-data"], ["intake", "--dry-run"], ["claims"]])
def test_an_escape_sequence_in_a_data_file_is_shown_escaped(data_copy, capsys, command):
    add_candidates(data_copy, excluded("C101", "Evil\x1b[2J\x9b title\u202e", "2611.00011"))
    capsys.readouterr()
    code = main([*command, "--data-dir", str(data_copy)])
    captured = capsys.readouterr()
    assert not RAW.search(captured.out + captured.err)
    if command[0] != "claims":  # the ledger does not read the candidates
        assert code == 1 and "candidates.csv:" in captured.err
        assert "\\x1b" in captured.err
