"""Values of the data files: digits are ASCII digits, years whole numbers, dates real calendar
dates, wherever the column is (papers.csv, excluded.csv, envelopes.csv, published.yaml)."""

from __future__ import annotations

import pytest
from support import problem_lines, replace_in

from masrl.data import pool, tables
from masrl.data.dataset import Dataset

LAST = pool.last_year()


@pytest.mark.parametrize("year", ["2020.5", "2020.0", "٢٠٢٥", "２０２５", "2e3", "+2025", " 2025",
                                  "2025 ", "2_025", "0x7e9"])
def test_a_year_is_a_whole_number_in_ascii_digits(data_copy, year):
    replace_in(data_copy / "papers.csv", ",2025,2508.04652,", f",{year},2508.04652,")
    assert problem_lines("papers", data_copy) == [
        f"papers.csv:2:year: {year!r} is not valid: expected a year from 1950 to {LAST}"]


@pytest.mark.parametrize("arxiv", ["٢٥٠٨.04652", "2508.0465²", "２５０８.04652", "2508.04652\u200b"])
def test_an_arxiv_id_has_ascii_digits_only(data_copy, arxiv):
    replace_in(data_copy / "papers.csv", ",2508.04652,", f",{arxiv},")
    assert problem_lines("papers", data_copy) == [
        f"papers.csv:2:arxiv_id: {arxiv!r} is not valid: expected an arXiv id such as 2508.04652, "
        "or empty"]


@pytest.mark.parametrize("date", ["2026-13-45", "2026-02-30", "2026-00-10", "2026-4-26",
                                  "20260426", "٢٠٢٦-04-26", "2026-04-26T00:00"])
def test_a_screening_date_is_a_calendar_date(data_copy, date):
    replace_in(data_copy / "excluded.csv", ",2026-04-26,", f",{date},")
    assert problem_lines("excluded", data_copy) == [
        f"excluded.csv:2:date_screened: {date!r} is not valid: expected a calendar date as "
        "YYYY-MM-DD"]


@pytest.mark.parametrize("date", ["2026-13", "2026-02-30", "2026-13-45", "2026", "٢٠٢٦-02"])
def test_an_envelope_date_is_a_calendar_date_or_month(data_copy, date):
    replace_in(data_copy / "envelopes.csv", ",2026-02-05,", f",{date},")
    assert problem_lines("envelopes", data_copy) == [
        f"envelopes.csv:4:date: {date!r} is not valid: expected a calendar date as YYYY-MM-DD or "
        "a month as YYYY-MM, or empty"]


@pytest.mark.parametrize("number", ["١٦", "16²", "１６", "1e3", "-16"])
def test_an_envelope_number_has_ascii_digits(data_copy, number):
    replace_in(data_copy / "envelopes.csv", ",2026-02-05,16,", f",2026-02-05,{number},")
    assert problem_lines("envelopes", data_copy) == [
        f"envelopes.csv:4:agents: {number!r} is not valid: expected a number, or empty when "
        "unknown"]


@pytest.mark.parametrize(("written", "message"), [
    ("2026-13-45", "Value error, '2026-13-45' is not a calendar date written YYYY-MM-DD"),
    ('"2026-02-30"', "Value error, '2026-02-30' is not a calendar date written YYYY-MM-DD"),
    ('"2026-05-04T10:00"', "Value error, '2026-05-04T10:00' is not a calendar date written "
                           "YYYY-MM-DD"),
    ("1700000000", "Input should be a valid string (found 1700000000)"),
])
def test_the_search_cutoff_is_a_calendar_date(data_copy, written, message):
    replace_in(data_copy / "published.yaml", 'search_cutoff: "2026-05-04"',
               f"search_cutoff: {written}")
    assert problem_lines("published", data_copy) == [
        f"published.yaml:search_cutoff:search_cutoff: {message}"]


def test_an_unquoted_cutoff_is_read_as_text(data_copy):
    """Dates stay text in YAML data files (no ``datetime.date`` from the parser)."""
    replace_in(data_copy / "published.yaml", 'search_cutoff: "2026-05-04"',
               "search_cutoff: 2026-05-04")
    assert Dataset(data_copy).published["search_cutoff"] == "2026-05-04"


@pytest.mark.parametrize(("value", "month", "valid"), [
    ("2024-02-29", False, True), ("2023-02-29", False, False), ("2026-05", True, True),
    ("2026-05", False, False), ("2026-5-01", False, False), ("٢٠٢٦-05-04", False, False),
])
def test_is_date(value, month, valid):
    assert tables.is_date(value, month=month) is valid


def test_every_pattern_of_the_data_files_is_ascii():
    assert tables.pattern(r"\d").fullmatch("٣") is None
    assert tables.pattern(r"\d").fullmatch("²") is None
    assert tables.pattern(r"\d").fullmatch("3")
