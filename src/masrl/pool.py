"""Loaders for the paper pool's three tables, each validated on load.

* ``load_pool``      -> ``data/papers.csv``: one row per retained paper (84).
* ``load_excluded``  -> ``data/excluded.csv``: the exclusion log (32 screened-out records).
* ``load_spotcheck`` -> ``data/spotcheck.csv``: the second reader's re-coding of 32 rows.

Each raises :class:`masrl.problems.DataError` listing every problem (``FILE:ROW:FIELD: message``);
``check_data`` collects the problems of every data file (the BibTeX file included) without
raising. The checks are declared as pandera schemas built from the controlled vocabulary.
"""

from __future__ import annotations

import datetime as _dt
import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths, tables
from masrl.problems import DataError, Problem, sort_problems
from masrl.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

TAG_FIELDS = ["category", "is_rl", "reward_type", "credit_granularity", "orchestration_form",
              "scenario", "is_core", "verified"]
SPOTCHECK_FIELDS = ["category", "is_rl", "reward_type", "credit_granularity", "orchestration_form"]

KEY = r"[a-z0-9][a-z0-9-]*"
ARXIV_ID = r"\d{4}\.\d{4,5}"
URL = r"https?://\S+"
URLS = rf"{URL}( ; {URL})*"  # one cell may hold several URLs, separated by " ; "
DATE = r"\d{4}-\d{2}-\d{2}"
FIRST_YEAR = 1950


def last_year() -> int:
    """Publication years may run up to next year (papers dated ahead of their release)."""
    return _dt.date.today().year + 1


def papers_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns = {
        "key": tables.text(tables.matches(KEY, "a key of lower-case letters, digits and hyphens"),
                     unique=True),
        "title": tables.text(tables.nonempty("a non-empty title")),
        "first_author": tables.text(tables.nonempty("a non-empty first author")),
        "affiliation": tables.text(tables.nonempty("an affiliation, or 'unknown'")),
        "year": tables.text(tables.in_range(FIRST_YEAR, last_year(), "a year")),
        "arxiv_id": tables.text(tables.matches(ARXIV_ID, "an arXiv id such as 2508.04652, or empty",
                                         optional=True),
                          tables.unique_when_present("arXiv id")),
        "venue": tables.text(tables.nonempty("a venue")),
        "url": tables.text(tables.matches(URLS, "http(s) URLs separated by ' ; '")),
        **{field: tables.tag(vocab, field) for field in TAG_FIELDS},
        "summary": tables.text(tables.nonempty("a one-line summary")),
        "notes": tables.text(),
    }
    return pa.DataFrameSchema(columns, strict=True)


def excluded_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns = {
        "record_id": tables.text(tables.matches(r"E\d{3}", "a record id such as E001"), unique=True),
        "title": tables.text(tables.nonempty("a non-empty title")),
        "identifier": tables.text(tables.nonempty("an identifier")),
        "url": tables.text(tables.matches(URLS, "an http(s) URL")),
        "source": tables.tag(vocab, "source"),
        "query_family": tables.tag(vocab, "query_family"),
        "stage": tables.tag(vocab, "stage"),
        "date_screened": tables.text(tables.matches(DATE, "a date as YYYY-MM-DD")),
        "reason": tables.text(tables.nonempty("a reason for the exclusion")),
    }
    return pa.DataFrameSchema(columns, strict=True)


def spotcheck_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns: dict[str, pa.Column] = {
        "key": tables.text(tables.matches(KEY, "a pool key"), unique=True),
    }
    for prefix in ("orig", "ann"):
        for field in SPOTCHECK_FIELDS:
            columns[f"{prefix}_{field}"] = tables.tag(vocab, field)
    columns["strict_explicit_credit"] = tables.tag(vocab, "strict_explicit_credit")
    columns["agreement"] = tables.tag(vocab, "agreement")
    columns["note"] = tables.text(tables.nonempty("the reader's note"))
    return pa.DataFrameSchema(columns, strict=True)


def load_pool(data_dir: PathLike = None) -> pd.DataFrame:
    """The retained papers, one row each, in file order; ``year`` as int, tags as strings."""
    frame = tables.load_table(paths.PAPERS, papers_schema, data_dir)
    return frame.assign(year=frame["year"].astype(int))


def load_excluded(data_dir: PathLike = None) -> pd.DataFrame:
    """The exclusion log, one row per screened-out record."""
    return tables.load_table(paths.EXCLUDED, excluded_schema, data_dir)


def load_spotcheck(data_dir: PathLike = None) -> pd.DataFrame:
    """The second reader's re-coding; every key must be a pool key, and the original tags must
    equal the pool's current tags (a spot-check of stale tags would measure nothing)."""
    pool = load_pool(data_dir).set_index("key")

    def against_pool(frame: pd.DataFrame) -> list[Problem]:
        problems = []
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            if row["key"] not in pool.index:
                problems.append(Problem(paths.SPOTCHECK, line, "key",
                                        f"{row['key']!r} is not a key of {paths.PAPERS}"))
                continue
            for field in SPOTCHECK_FIELDS:
                expected = pool.at[row["key"], field]
                if row[f"orig_{field}"] != expected:
                    problems.append(Problem(
                        paths.SPOTCHECK, line, f"orig_{field}",
                        f"{row[f'orig_{field}']!r} differs from the pool's tag {expected!r}"))
        return problems

    return tables.load_table(paths.SPOTCHECK, spotcheck_schema, data_dir, against_pool)


def check_data(data_dir: PathLike = None) -> list[Problem]:
    """Validate every data file; return all problems (an empty list when the data is clean)."""
    from masrl import audit, bib, claims, envelopes, taxonomy  # these checks need the pool
    from masrl.traces.attribution import published as who_and_when

    problems: list[Problem] = []
    loaders = (load_pool, load_excluded, load_spotcheck, bib.load_bibliography,
               taxonomy.load_taxonomy, audit.load_audit, audit.load_near_misses,
               audit.load_benchmark_coverage, envelopes.load_envelopes, claims.load_claims,
               who_and_when.load_published)
    for loader in loaders:
        try:
            loader(data_dir)
        except DataError as exc:
            problems.extend(exc.problems)
    return sort_problems(problems)
