"""First public dates, screening rounds and the pool as of a date; the search protocol; the
checks that keep the exclusion log honest about time and about duplicates."""

from __future__ import annotations

import datetime as dt

import pytest
from support import problem_lines, replace_in

from masrl.data import dates
from masrl.data.dataset import LATEST, Dataset

DAY = dt.date.fromisoformat


# --- dates ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "kind", "bounds"), [
    ("2026-03-23", "day", ("2026-03-23", "2026-03-23")),
    ("2026-02", "month", ("2026-02-01", "2026-02-28")),
    ("2024-02", "month", ("2024-02-01", "2024-02-29")),
    ("2002", "year", ("2002-01-01", "2002-12-31")),
])
def test_a_date_is_read_at_its_precision(value, kind, bounds):
    assert dates.precision(value) == kind
    assert dates.period(value) == tuple(map(DAY, bounds))


@pytest.mark.parametrize("value", ["2026-13", "2026-02-30", "26-02", "２０２６", "2026/02"])
def test_what_is_not_a_date(value):
    assert not dates.is_partial_date(value)


def test_a_record_counts_from_the_last_day_its_date_allows_and_at_the_latest_its_round():
    round_day = DAY("2026-05-04")
    assert dates.public_by("2026-02", round_day) == DAY("2026-02-28")
    assert dates.public_by("2026-05", round_day) == round_day  # screened, so public by then
    assert dates.public_by("", round_day) == round_day  # unknown: present from its round on
    assert dates.public_by("2025-11-30", round_day) == DAY("2025-11-30")


# --- the pool as of a date --------------------------------------------------------------------

def test_the_default_view_is_the_survey_s_pool_and_latest_sees_every_round():
    cut = Dataset()
    assert cut.as_of == DAY("2026-05-04")
    assert (len(cut.papers), len(cut.excluded)) == (84, 32)
    assert set(cut.papers["screening_round"]) == {0}
    latest = Dataset(as_of=LATEST)
    assert len(latest.papers) == len(latest.all_papers)
    assert len(latest.excluded) == len(latest.all_excluded)
    # a date between the rounds still sees round 0 only: round 1 was not screened yet
    assert len(Dataset(as_of="2026-12-03").papers) == 84


def test_published_by_treats_a_month_conservatively(data_copy):
    # agent-qmix2026 was first public on 2026-04-01; say we knew only the month
    replace_in(data_copy / "papers.csv", 'learned_critic,2026-04-01,arXiv,0,"Brings QM',
               'learned_critic,2026-04,arXiv,0,"Brings QM')
    keys = lambda day: set(Dataset(data_copy, published_by=day).papers["key"])  # noqa: E731
    assert "agent-qmix2026" not in keys("2026-04-15")  # April is not over: not surely public
    assert "agent-qmix2026" in keys("2026-04-30")


def test_views_keep_the_rows_of_the_other_files_that_refer_to_the_pool_of_the_date():
    cut, latest = Dataset(), Dataset(as_of=LATEST)
    assert "lemon2026" not in set(cut.audit["key"]) and "lemon2026" in set(latest.audit["key"])
    assert "clawarena-team2026" in set(latest.benchmark_coverage["key"])
    assert "clawarena-team2026" not in set(cut.benchmark_coverage["key"])
    assert set(cut.bibliography) == set(cut.papers["key"])


def test_an_as_of_that_is_no_date_is_refused():
    with pytest.raises(ValueError, match="not a calendar date"):
        Dataset(as_of="2026-02-30")


# --- the exclusion log and the rounds ----------------------------------------------------------

def test_an_exclusion_dated_after_the_cut_off_needs_a_later_round(data_copy):
    replace_in(data_copy / "excluded.csv", "abstract_screen,prompted_only,0,2026-04-26",
               "abstract_screen,prompted_only,0,2026-06-01")
    (line,) = problem_lines("all_excluded", data_copy)
    assert line == ("excluded.csv:2:date_screened: 2026-06-01 is after the date of round 0 "
                    "(2026-05-04): an exclusion screened after the cut-off (2026-05-04) is refused "
                    "unless it belongs to a later screening round")
    replace_in(data_copy / "excluded.csv", "prompted_only,0,2026-06-01", "prompted_only,1,2026-06-01")
    assert Dataset(data_copy).all_excluded.at[0, "screening_round"] == 1


def test_an_exclusion_that_is_a_pool_row_is_refused(data_copy):
    path = data_copy / "excluded.csv"
    path.write_text(path.read_text(encoding="utf-8")
                    + "E999,MARFT v2,arXiv:2504.16129v2,https://arxiv.org/abs/2504.16129v2,2025-04,"
                      "arXiv,reinforcement learning,abstract_screen,overlap,0,2026-04-26,A copy.\n",
                    encoding="utf-8")
    (line,) = problem_lines("all_excluded", data_copy)
    assert line == ("excluded.csv:101:identifier: E999 is the pool row 'marft' of papers.csv (same "
                    "arXiv id: 2504.16129); a record is either retained or excluded")


def test_nothing_is_screened_before_it_is_public(data_copy):
    replace_in(data_copy / "papers.csv", "2026-03-23,arXiv,1,", "2027-01,arXiv,1,")
    (line,) = problem_lines("all_papers", data_copy)
    assert line.endswith("first_public: 2027-01 is after 2026-12-04, when the record was screened: "
                         "nothing is screened before it is public")


def test_a_round_that_the_protocol_does_not_hold_is_refused(data_copy):
    replace_in(data_copy / "papers.csv", "2026-03-23,arXiv,1,", "2026-03-23,arXiv,3,")
    (line,) = problem_lines("all_papers", data_copy)
    assert line.endswith("screening_round: 3 is not a round of search_protocol.yaml (rounds: 0, 1, 2)")


# --- the search protocol ------------------------------------------------------------------------

def test_the_log_s_twelve_queries_fall_into_the_survey_s_seven_families():
    data = Dataset()
    protocol = data.search_protocol
    assert len(protocol.query_families) == 7
    values = data.vocabulary.values("query_family")
    assert len(values) == 12
    assert sorted(v for f in protocol.query_families for v in f.labels) == sorted(values)
    assert protocol.family_of("prompt injection") == "Safety"
    assert protocol.cutoff == data.published["search_cutoff"]


def test_a_query_in_two_families_or_in_none_is_reported(data_copy):
    replace_in(data_copy / "search_protocol.yaml", "labels: [safety, prompt injection]",
               "labels: [safety, prompt injection, benchmark]")
    replace_in(data_copy / "search_protocol.yaml", "labels: [classical MARL]", "labels: []")
    lines = problem_lines("search_protocol", data_copy)
    assert ("search_protocol.yaml:query_families:labels: the query_family 'benchmark' belongs to "
            "2 entries (tools-software, safety); it must belong to exactly one") in lines
    assert ("search_protocol.yaml:query_families:labels: the query_family 'classical MARL' "
            "belongs to no entry; it must belong to exactly one") in lines


def test_rounds_are_numbered_in_order_with_dates_that_never_decrease(data_copy):
    replace_in(data_copy / "search_protocol.yaml", 'date: "2026-12-04"', 'date: "2026-05-01"')
    assert problem_lines("search_protocol", data_copy) == [
        "search_protocol.yaml:rounds[1]:date: 2026-05-01 is before the previous round's date "
        "2026-05-04"]
