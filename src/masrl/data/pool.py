"""Loaders for the paper pool's three tables, each validated on load.

* ``load_papers``    -> ``data/papers.csv``: one row per retained paper (84).
* ``load_excluded``  -> ``data/excluded.csv``: the exclusion log (32 screened-out records).
* ``load_spotcheck`` -> ``data/spotcheck.csv``: the second reader's re-coding of 32 rows.

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
from masrl.data import tables
from masrl.data.problems import DataProblem
from masrl.data.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

RECODED = "recoded"  # the vocabulary group of tags a second reader re-codes

ARXIV_ID = r"[0-9]{4}\.[0-9]{4,5}"  # ASCII digits only (tables.pattern)
FIRST_YEAR = 1950


def last_year() -> int:
    """Publication years may run up to next year (papers dated ahead of their release)."""
    return _dt.date.today().year + 1


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
        "source": tables.tag(vocab, "source"),
        "query_family": tables.tag(vocab, "query_family"),
        "stage": tables.tag(vocab, "stage"),
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


def load_papers(data_dir: PathLike, vocab: Vocabulary) -> pd.DataFrame:
    """The retained papers, one row each, in file order; ``year`` as int, tags as strings."""
    frame = tables.load_table(paths.PAPERS, papers_schema(vocab), data_dir)
    return frame.assign(year=frame["year"].astype(int))


def load_excluded(data_dir: PathLike, vocab: Vocabulary) -> pd.DataFrame:
    """The exclusion log, one row per screened-out record."""
    return tables.load_table(paths.EXCLUDED, excluded_schema(vocab), data_dir)


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
