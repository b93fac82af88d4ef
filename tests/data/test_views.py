"""The two views of a date (masrl.data.views), on the examples the README and the method chapter
document: before, at and after the survey's cut-off; the rule for unknown dates; the refusals."""

from __future__ import annotations

import re

import pytest
from support import replace_in

from masrl.analyses import living
from masrl.commands import main
from masrl.data.dataset import Dataset
from masrl.data.views import ViewError

CUTOFF_POOL = 84


def keys(**view) -> set[str]:
    return set(Dataset(**view).papers["key"])


# --- as screened (--as-of) ----------------------------------------------------------------------

def test_as_of_counts_a_row_from_the_date_of_the_round_that_screened_it():
    # the documented example: LEMON was public on 2026-05-14 but screened in round 1 (2026-12-04)
    assert len(Dataset(as_of="2026-05-04").papers) == CUTOFF_POOL  # at the cut-off
    after = keys(as_of="2026-05-20")
    assert len(after) == CUTOFF_POOL and "lemon2026" not in after  # after it, round 1 not yet
    latest = keys(as_of="2026-12-04")
    assert {"lemon2026", "ccpo2026", "scout2026"} <= latest and latest == keys(as_of="latest")
    # a round's rows count whatever their first public date: CCPO was public before the cut-off
    assert "ccpo2026" not in keys(as_of="2026-12-03")


def test_as_of_before_the_first_round_is_refused_in_one_line(capsys):
    with pytest.raises(ViewError, match="had screened nothing by then"):
        Dataset(as_of="2026-05-03").papers
    for day in ("2026-05-03", "1970-01-01"):
        assert main(["claims", "--as-of", day]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and f"--published-by {day} shows what had been" in err


# --- as published (--published-by) ---------------------------------------------------------------

def test_published_by_counts_every_round_s_rows_public_by_the_date():
    latest = Dataset(as_of="latest").papers.set_index("key")
    later = latest[latest["screening_round"] > 0]

    def public_by(day: str) -> set[str]:  # the later rounds' rows surely public by ``day``
        from masrl.data import dates
        return {k for k, v in later["first_public"].items()
                if v and dates.period(v)[1].isoformat() <= day}

    before = keys(published_by="2026-05-03")  # before the cut-off
    assert {"ccpo2026", "scout2026", "social-deduction2025"} <= before  # missed by the survey
    at = keys(published_by="2026-05-04")
    assert at == keys() | public_by("2026-05-04")  # the cut-off pool and what it missed
    after = keys(published_by="2026-05-20")
    assert after - at == public_by("2026-05-20") - public_by("2026-05-04")
    assert "lemon2026" in after - at  # public on 2026-05-14
    assert keys(published_by="latest") == keys(as_of="latest")


def test_a_row_of_unknown_date_counts_from_its_round_s_date():
    # claude-code-subagents is an undated documentation page of round 0 (2026-05-04)
    assert Dataset().papers.set_index("key").at["claude-code-subagents", "first_public"] == ""
    assert "claude-code-subagents" not in keys(published_by="2026-05-03")
    assert "claude-code-subagents" in keys(published_by="2026-05-04")


def test_published_by_an_early_date_is_an_empty_pool_not_a_crash(capsys):
    assert len(Dataset(published_by="1970-01-01").papers) == 0
    assert main(["claims", "--published-by", "1970-01-01"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert re.search(r" 0 fail[;,]", out[-1]) and out[-1].endswith("published by 1970-01-01 (what every "
                                                      "screening round found)")


def test_published_by_after_the_latest_search_is_refused(capsys):
    with pytest.raises(ViewError, match="searched through 2026-12-04"):
        Dataset(published_by="2027-01-01").papers
    assert main(["claims", "--published-by", "2027-01-01"]) == 2
    with pytest.raises(SystemExit) as info:  # argparse: the two views exclude each other
        main(["claims", "--as-of", "latest", "--published-by", "latest"])
    assert info.value.code == 2
    capsys.readouterr()


def test_before_the_cut_off_a_claim_changes_by_the_rows_left_out():
    results = {r.claim.id: r for r in living.ledger(Dataset(published_by="2026-05-03"))}
    near = results["near-misses-change-nothing"]
    assert near.changed and near.left_out and set(near.left_out) == set(near.changed_by)
    assert all(not r.failed for r in results.values())
    assert results["pool-size"].passed and results["pool-size"].pinned


def test_an_unreadable_date_is_a_usage_error_naming_the_flag():
    for bad in ("2026-02-30", "yesterday", "2026-5-4"):
        with pytest.raises(ViewError, match="not a calendar date"):
            Dataset(as_of=bad)
        with pytest.raises(ViewError, match="--published-by"):
            Dataset(published_by=bad)


def test_every_date_answers_or_refuses_and_never_crashes(capsys):
    for flag, day in (("--as-of", "2026-05-04"), ("--as-of", "2026-05-20"), ("--as-of", "latest"),
                      ("--published-by", "2026-05-03"), ("--published-by", "2026-05-20"),
                      ("--published-by", "latest"), ("--as-of", "0001-01-01"),
                      ("--published-by", "9999-12-31")):
        assert main(["claims", flag, day]) in (0, 2), (flag, day)
    capsys.readouterr()


def test_a_round_may_share_the_previous_round_s_date(data_copy):
    text = (data_copy / "search_protocol.yaml").read_text(encoding="utf-8")
    assert 'date: "2026-12-04"' in text
    replace_in(data_copy / "search_protocol.yaml", "\nsources:\n",
               '\n  - id: 3\n    date: "2026-12-04"\n    searched_through: "2026-12-04"\n'
               '    label: Another round on the same day\n    screener: us\n    note: n\n'
               '    version: 1.3.0\n\nsources:\n')
    data = Dataset(data_copy, as_of="latest")
    assert [r.id for r in data.rounds] == [0, 1, 2, 3] and data.problems() == []
