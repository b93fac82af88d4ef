"""The shape of a CSV data file: well-formed CSV, each column named once, as many cells per row
as columns, no cell too long for a reader (a 10 MB cell is a problem of its line, not an error
of the csv module)."""

from __future__ import annotations

import csv

from support import problem_lines, replace_in

from masrl.data import tables

HEADER = "key,label,folder,pattern,format,origin,url,licence,reference"


def test_a_column_named_twice(data_copy):
    replace_in(data_copy / "log_sources.csv", HEADER, HEADER.replace("format", "key"))
    assert problem_lines("log_sources", data_copy) == [
        "log_sources.csv:1:key: duplicate column name; each column is named once"]


def test_the_line_column_is_not_a_column_of_the_file(data_copy):
    replace_in(data_copy / "log_sources.csv", HEADER, HEADER.replace("licence", tables.LINE))
    assert problem_lines("log_sources", data_copy) == [
        f"log_sources.csv:1:{tables.LINE}: unknown column (not in the data card)"]


def test_a_ten_megabyte_cell_is_a_problem_of_its_line_and_column(data_copy):
    before = csv.field_size_limit()
    replace_in(data_copy / "excluded.csv", "\nE002,", "\nE002," + "x" * 10_000_000)
    size = 10_000_000 + len("Communicative Agents for Software Development")
    assert problem_lines("excluded", data_copy) == [
        f"excluded.csv:3:title: a cell of {size} characters; at most {tables.MAX_CELL} are allowed"]
    assert csv.field_size_limit() == before  # the process-wide setting is restored


def test_ragged_rows_name_their_lines(data_copy):
    replace_in(data_copy / "excluded.csv", "\nE002,", "\nE002,extra,")
    replace_in(data_copy / "excluded.csv", "\nE003,", "\n\nE003,")
    assert problem_lines("excluded", data_copy) == [
        "excluded.csv:3:-: expected 12 cells, found 13",
        "excluded.csv:4:-: expected 12 cells, found 0"]


def test_an_unclosed_quote_is_not_valid_csv(data_copy):
    with (data_copy / "log_sources.csv").open("a", encoding="utf-8") as handle:
        handle.write('extra,"never closed,x\n')
    (line,) = problem_lines("log_sources", data_copy)
    assert line == "log_sources.csv:6:-: not valid CSV: unexpected end of data"


def test_a_stray_quote_inside_a_cell_is_not_valid_csv(data_copy):
    replace_in(data_copy / "log_sources.csv", "\nmagentic-one,Who&When: Magentic-One,",
               '\nmagentic-one,"Who&When" Magentic-One,')
    assert problem_lines("log_sources", data_copy) == [
        "log_sources.csv:2:-: not valid CSV: ',' expected after '\"'"]


def test_an_empty_file(data_copy):
    (data_copy / "log_sources.csv").write_text("", encoding="utf-8")
    assert problem_lines("log_sources", data_copy) == [
        "log_sources.csv:1:-: the file is empty; expected a header row"]


def test_quoted_line_breaks_keep_line_numbers_right(data_copy):
    """A cell over two lines (refused: a licence is one line): the next row's problem still names
    its own first line."""
    replace_in(data_copy / "log_sources.csv", ",MIT,", ',"MIT\nlicence",')
    replace_in(data_copy / "log_sources.csv", "\ncaptain-agent,", "\nCaptain Agent,")
    assert problem_lines("log_sources", data_copy) == [
        "log_sources.csv:2:licence: 'MIT\\nlicence' is not valid: expected a licence",
        "log_sources.csv:4:key: 'Captain Agent' is not valid: expected lower-case letters, "
        "digits and hyphens"]


def test_a_long_invalid_value_is_quoted_short(data_copy):
    replace_in(data_copy / "log_sources.csv", "\ncaptain-agent,", "\n" + "Captain " * 1000 + ",")
    (line,) = problem_lines("log_sources", data_copy)
    assert line.startswith("log_sources.csv:3:key: 'Captain Captain")
    assert line.endswith("... (8000 characters) is not valid: expected lower-case letters, digits "
                         "and hyphens")
    assert len(line) < 250


def test_an_optional_tag_lists_its_values_without_a_blank_one(data_copy):
    # the empty value an optional column allows is said by "(or empty)", not listed as ", "
    replace_in(data_copy / "candidates.csv", ",lemon2026,rl_method,yes,orchestration,orchestrator,"
               "centralized,general,", ",lemon2026,rl_method,yes,orchestration,orchestrator,"
               "centralized,reasoning,")
    (line,) = problem_lines("candidates", data_copy)
    assert line.startswith("candidates.csv:2:scenario: 'reasoning' is not valid: expected a "
                           "scenario from the controlled vocabulary (or empty): one of general,")
    assert line.endswith(", debate, NA")
