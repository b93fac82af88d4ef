"""Loaders for the paper pool's three tables, each validated on load.

* ``load_papers``    -> ``data/papers.csv``: one row per retained paper, of every screening round.
* ``load_excluded``  -> ``data/excluded.csv``: the exclusion log, of every screening round.
* ``load_spotcheck`` -> ``data/spotcheck.csv``: the second reader's re-coding of 32 rows.

Every pool and exclusion row carries its first public date (:mod:`masrl.data.dates`) and the
screening round that recorded it (a round of ``search_protocol.yaml``). Given the protocol, the
loaders check that no record was screened before it was public, that an exclusion is dated
within its round (one dated after the cut-off belongs to a later round, never to round 0) and
that no exclusion is the same work as a pool row (:mod:`masrl.data.identity`: arXiv id, DOI or
title).

Each raises :class:`masrl.data.problems.DataError` listing every problem
(``FILE:ROW:FIELD: message``). The checks are declared as pandera schemas built from the
controlled vocabulary; the files a loader checks against are passed in, already validated
(:class:`masrl.data.dataset.Dataset` loads each file once and passes them along).
"""

from __future__ import annotations

import datetime as _dt
import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data import dates, identity, tables
from masrl.data.problems import DataProblem
from masrl.data.protocol import Protocol
from masrl.data.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

RECODED = "recoded"  # the vocabulary group of tags a second reader re-codes

ARXIV_ID = r"[0-9]{4}\.[0-9]{4,5}"  # ASCII digits only (tables.pattern)
FIRST_YEAR = 1950


def last_year() -> int:
    """Publication years may run up to next year (papers dated ahead of their release)."""
    return _dt.date.today().year + 1


def first_public() -> pa.Column:
    """A first public date at the precision known (``2026-03-23``, ``2026-03``, ``2002``), or
    empty when unknown (:mod:`masrl.data.dates`)."""
    return tables.text(pa.Check(lambda s: s.map(dates.is_partial_date), element_wise=False,
                                error="expected a first public date YYYY-MM-DD, YYYY-MM or YYYY, "
                                      "or empty when unknown"))


def screening_round() -> pa.Column:
    return tables.text(tables.in_range(0, 999, "a screening round number"))


def papers_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns = {
        "key": tables.text(tables.matches(tables.KEY, "a key of lower-case letters, digits and hyphens"),
                     unique=True),
        "title": tables.text(tables.nonempty("a non-empty title")),
        "first_author": tables.text(tables.nonempty("a non-empty first author")),
        "affiliation": tables.text(tables.nonempty("an affiliation, or 'unknown'")),
        "year": tables.text(tables.in_range(FIRST_YEAR, last_year(), "a year")),
        "arxiv_id": tables.text(tables.matches(ARXIV_ID, "an arXiv id such as 2508.04652, or empty",
                                         optional=True),
                          tables.unique_when_present("arXiv id")),
        "venue": tables.text(tables.nonempty("a venue")),
        "url": tables.text(tables.matches(tables.URLS, "http(s) URLs separated by ' ; '")),
        **{field: tables.tag(vocab, field) for field in vocab.names(paths.PAPERS)},
        "first_public": first_public(),
        "screening_round": screening_round(),
        "summary": tables.text(tables.nonempty("a one-line summary")),
        "notes": tables.text(),
    }
    return pa.DataFrameSchema(columns, strict=True)


def excluded_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns = {
        "record_id": tables.text(tables.matches(r"E[0-9]{3}", "a record id such as E001"), unique=True),
        "title": tables.text(tables.nonempty("a non-empty title")),
        "identifier": tables.text(tables.nonempty("an identifier")),
        "url": tables.text(tables.matches(tables.URLS, "an http(s) URL")),
        "first_public": first_public(),
        **{field: tables.tag(vocab, field) for field in vocab.names(paths.EXCLUDED)},
        "screening_round": screening_round(),
        "date_screened": tables.text(tables.date("a calendar date as YYYY-MM-DD")),
        "reason": tables.text(tables.nonempty("a reason for the exclusion")),
    }
    return pa.DataFrameSchema(columns, strict=True)


def spotcheck_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns: dict[str, pa.Column] = {
        "key": tables.text(tables.matches(tables.KEY, "a pool key"), unique=True),
    }
    for prefix in ("orig", "ann"):
        for field in vocab.group(RECODED):
            columns[f"{prefix}_{field}"] = tables.tag(vocab, field)
    columns["strict_explicit_credit"] = tables.tag(vocab, "strict_explicit_credit")
    columns["agreement"] = tables.tag(vocab, "agreement")
    columns["note"] = tables.text(tables.nonempty("the reader's note"))
    return pa.DataFrameSchema(columns, strict=True)


def load_papers(data_dir: PathLike, vocab: Vocabulary,
                protocol: Protocol | None = None) -> pd.DataFrame:
    """The retained papers of every round, one row each, in file order; ``year`` and
    ``screening_round`` as int, tags as strings. Given the ``protocol``, each row's round must
    be one of its rounds and the row must have been public by that round's date."""
    def against_protocol(frame: pd.DataFrame) -> list[DataProblem]:
        return [problem for row in frame.to_dict("records")
                for problem in _round_problems(paths.PAPERS, row, protocol, None)]

    frame = tables.load_table(paths.PAPERS, papers_schema(vocab), data_dir,
                              None if protocol is None else against_protocol)
    return frame.assign(year=frame["year"].astype(int),
                        screening_round=frame["screening_round"].astype(int))


def load_excluded(data_dir: PathLike, vocab: Vocabulary, protocol: Protocol | None = None,
                  papers: pd.DataFrame | None = None) -> pd.DataFrame:
    """The exclusion log of every round, one row per screened-out record (``screening_round``
    as int). Given the ``protocol``: each row's round is one of its rounds, the row is dated
    within it (after the previous round's date, at the latest on its own: an exclusion dated
    after the cut-off must belong to a later round) and was public by then. Given ``papers``: no
    exclusion is the same work as a pool row (same arXiv id, DOI or normalised title)."""
    def cross_checks(frame: pd.DataFrame) -> list[DataProblem]:
        problems = []
        rows = frame.to_dict("records")
        if protocol is not None:
            for row in rows:
                problems += _round_problems(paths.EXCLUDED, row, protocol, row["date_screened"])
        if papers is not None:
            problems += _duplicates_of_pool(rows, papers)
        return problems

    checks = cross_checks if protocol is not None or papers is not None else None
    frame = tables.load_table(paths.EXCLUDED, excluded_schema(vocab), data_dir, checks)
    return frame.assign(screening_round=frame["screening_round"].astype(int))


def _round_problems(file: str, row: dict, protocol: Protocol,
                    screened: str | None) -> list[DataProblem]:
    """A row's round exists; ``screened`` (the exclusion's date) falls within the round; the
    row's first public date is not after the day it was screened (or its round's date)."""
    line = str(row[tables.LINE])
    number = int(row["screening_round"])
    try:
        this = protocol.round(number)
    except KeyError:
        rounds = ", ".join(str(r.id) for r in protocol.rounds)
        return [DataProblem(file, line, "screening_round", f"{number} is not a round of "
                            f"{paths.SEARCH_PROTOCOL} (rounds: {rounds})")]
    problems = []
    if screened is not None:
        if screened > this.date:
            later = " unless it belongs to a later screening round" if number == 0 else ""
            problems.append(DataProblem(
                file, line, "date_screened",
                f"{screened} is after the date of round {number} ({this.date}): an exclusion "
                f"screened after the cut-off ({protocol.cutoff}) is refused{later}"
                if number == 0 else
                f"{screened} is after the date of round {number} ({this.date})"))
        elif number > 0 and screened < protocol.round(number - 1).date:
            problems.append(DataProblem(
                file, line, "date_screened",
                f"{screened} is before round {number - 1} ({protocol.round(number - 1).date}); "
                f"a record screened then belongs to that round"))
    start = dates.earliest(row["first_public"])
    last = screened or this.date
    if start is not None and start.isoformat() > last:
        problems.append(DataProblem(file, line, "first_public",
                                    f"{row['first_public']} is after {last}, when the record was "
                                    "screened: nothing is screened before it is public"))
    return problems


def identity_record(where: str, row: dict) -> identity.Record:
    """A pool row (``where`` ``pool``) or an exclusion (``excluded``) as a record to compare."""
    if where == "pool":
        return identity.Record("pool", row["key"], row["title"], (row["arxiv_id"], row["url"]))
    return identity.Record("excluded", row["record_id"], row["title"],
                           (row["identifier"], row["url"]))


def _duplicates_of_pool(rows: list[dict], papers: pd.DataFrame) -> list[DataProblem]:
    """Exclusions that are surely the same work as a pool row (fuzzy titles are not checked
    here: ``masrl intake`` shows them for a person to judge)."""
    lines = {row["record_id"]: str(row[tables.LINE]) for row in rows}
    records = [identity_record("pool", r) for r in papers.to_dict("records")]
    records += [identity_record("excluded", r) for r in rows]
    problems = []
    for match in identity.duplicates(records, within=False):
        if not match.sure:
            continue
        pool_row, excluded = sorted((match.first, match.second), key=lambda r: r.where != "pool")
        problems.append(DataProblem(paths.EXCLUDED, lines[excluded.id], "identifier",
                                    f"{excluded.id} is the pool row {pool_row.id!r} of "
                                    f"{paths.PAPERS} (same {match.how}: {match.detail}); a "
                                    "record is either retained or excluded"))
    return problems


def load_spotcheck(data_dir: PathLike, vocab: Vocabulary,
                   papers: pd.DataFrame | None) -> pd.DataFrame:
    """The second reader's re-coding; every key must be a pool key, and the original tags must
    equal the pool's current tags (a spot-check of stale tags would measure nothing). Without
    ``papers`` (an invalid ``papers.csv``) only the file's own columns are checked."""
    fields = vocab.group(RECODED)

    def against_papers(frame: pd.DataFrame) -> list[DataProblem]:
        by_key = papers.set_index("key")
        problems = []
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            if row["key"] not in by_key.index:
                problems.append(tables.not_a_key(paths.SPOTCHECK, line, "key", row["key"],
                                                 paths.PAPERS))
                continue
            for field in fields:
                expected = by_key.at[row["key"], field]
                if row[f"orig_{field}"] != expected:
                    problems.append(DataProblem(
                        paths.SPOTCHECK, line, f"orig_{field}",
                        f"{row[f'orig_{field}']!r} differs from the pool's tag {expected!r}"))
        return problems

    return tables.load_table(paths.SPOTCHECK, spotcheck_schema(vocab), data_dir,
                             None if papers is None else against_papers)
