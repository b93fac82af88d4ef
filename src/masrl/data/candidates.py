"""Loader for ``data/candidates.csv``: records screened for a later round of the survey, each with
its identifier, first public date, where it was found, the tags proposed for it (the credit
mechanism and the sub-decisions among them), the screening decision with its stage and reason,
who screened it and when, and the record it became (``record``).

A candidate the screening *includes* carries every tag a pool row needs and the pool key it
takes; one it *excludes* names the exclusion rule (its ``record`` is the exclusion id ``masrl
intake`` gave it, empty before); a *duplicate* names the record of the pool or the exclusion log
it repeats; a *pending* one is not screened yet. ``masrl intake`` (:mod:`masrl.data.intake`)
deduplicates the candidates and moves the screened ones into the pool or the exclusion log.
"""

from __future__ import annotations

import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data import dates, tables
from masrl.data.audit import AUDITED_CELLS, IDS, split
from masrl.data.coding_rules import CodingRules
from masrl.data.pool import RECODED, first_public
from masrl.data.problems import DataProblem
from masrl.data.protocol import Protocol
from masrl.data.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

# the tags an included candidate must carry (besides the recoded group and credit_reading)
POOL_TAGS = ("scenario", "is_core", "verified", "credit_mechanism")
EVIDENCE_TAGS = ("credit_comparison",)  # tags of an included candidate's credit_evidence row
RECORD = r"[a-z0-9][a-z0-9-]*|E[0-9]{3}"  # a pool key or an exclusion id


def tag_fields(vocab: Vocabulary) -> list[str]:
    """The tag columns of a candidate, in the order of a pool row."""
    return [*vocab.group(RECODED), *POOL_TAGS]


def candidates_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    columns = {
        "candidate_id": tables.text(tables.matches(r"C[0-9]{3}", "a candidate id such as C001"),
                                    unique=True),
        "identifier": tables.text(tables.nonempty("an identifier (arXiv:..., a DOI, a label)")),
        "title": tables.text(tables.nonempty("a non-empty title")),
        "first_author": tables.text(),
        "affiliation": tables.text(),
        "year": tables.text(tables.matches(r"[0-9]{4}", "a year, or empty", optional=True)),
        "venue": tables.text(),
        "url": tables.text(tables.matches(tables.URLS, "http(s) URLs separated by ' ; '")),
        "first_public": first_public(),
        "source": tables.tag(vocab, "source"),
        "query_family": tables.tag(vocab, "query_family"),
        "decision": tables.tag(vocab, "decision"),
        "stage": tables.tag(vocab, "stage", optional=True),
        "exclusion_rule": tables.tag(vocab, "exclusion_rule", optional=True),
        "reason": tables.text(),
        "screener": tables.text(),
        "date_screened": tables.text(tables.date("a calendar date YYYY-MM-DD, or empty",
                                                 optional=True)),
        "screening_round": tables.text(tables.matches(r"[0-9]+", "a round number, or empty",
                                                      optional=True)),
        "record": tables.text(tables.matches(RECORD, "a pool key or an exclusion id, or empty",
                                             optional=True)),
        **{field: tables.tag(vocab, field, optional=True) for field in tag_fields(vocab)},
        **{field: tables.tag(vocab, field, optional=True) for field in EVIDENCE_TAGS},
        "subdecisions": tables.text(tables.matches(
            IDS, "sub-decision ids such as O1, separated by ' ; '", optional=True)),
        "credit_reading": tables.tag(vocab, "credit_reading", optional=True),
        "benchmark_coverage": tables.text(tables.matches(
            r"[a-z_]+( ; [a-z_]+){5}", "domain ; mas_native ; e1 ; e2 ; e3 ; e4, or empty",
            optional=True)),
        "summary": tables.text(),
        "evidence": tables.text(),
    }
    return pa.DataFrameSchema(columns, strict=True)


COVERAGE_PARTS = ("domain", "mas_native", "e1", "e2", "e3", "e4")
COVERAGE_FIELDS = ("domain", "mas_native", *(["measure_coverage"] * 4))


def coverage_parts(cell: str) -> dict[str, str]:
    """A ``benchmark_coverage`` cell as its six parts (empty cell: no parts)."""
    return dict(zip(COVERAGE_PARTS, split(cell))) if cell.strip() else {}


def load_candidates(data_dir: PathLike, vocab: Vocabulary, protocol: Protocol | None,
                    rules: CodingRules | None = None) -> pd.DataFrame:
    """The candidates in file order. Besides the columns: a screened candidate (not pending)
    gives its stage, reason, screener, date and round, a round of the protocol whose dates
    hold its date; it was public by the day it was screened; an included one carries every
    tag, a pool key, a one-line summary, and a credit reading exactly when its credit is
    message or orchestrator, and (given the coding ``rules``) a credit comparison that decides its
    credit mechanism as the counterfactual rule says; an excluded one names its rule; a duplicate
    names its record."""
    def rows_are_whole(frame: pd.DataFrame) -> list[DataProblem]:
        problems = []
        for row in frame.to_dict("records"):
            problems += _row_problems(row, vocab, protocol)
            if rules is not None and row["decision"] == "include" and row["credit_mechanism"]:
                problems += rules.comparison_problems(
                    paths.CANDIDATES, str(row[tables.LINE]), row["credit_comparison"] or "NA",
                    row["credit_mechanism"])
        return problems

    frame = tables.load_table(paths.CANDIDATES, candidates_schema(vocab), data_dir,
                              rows_are_whole)
    return frame.assign(subdecisions=frame["subdecisions"].map(split))


def _row_problems(row: dict, vocab: Vocabulary, protocol: Protocol | None) -> list[DataProblem]:
    line = str(row[tables.LINE])
    decision = row["decision"]

    def need(column: str, what: str) -> list[DataProblem]:
        if row[column] == "":
            return [DataProblem(paths.CANDIDATES, line, column,
                                f"a candidate marked {decision!r} needs {what}")]
        return []

    problems: list[DataProblem] = []
    if decision == "pending":
        return problems
    for column, what in (("stage", "its screening stage"), ("reason", "the reason"),
                         ("screener", "who screened it"), ("date_screened", "the date"),
                         ("screening_round", "its screening round")):
        problems += need(column, what)
    if row["date_screened"] and row["screening_round"] and protocol is not None:
        problems += _round_problems(row, line, protocol)
    if decision == "exclude":
        problems += need("exclusion_rule", "the exclusion rule it falls under")
    elif decision == "duplicate":
        problems += need("record", "the record it repeats (a pool key or an exclusion id)")
    elif decision == "include":
        for column in ("record", "first_author", "affiliation", "year", "venue", "summary",
                       *tag_fields(vocab)):
            problems += need(column, "this column (it becomes a pool row)")
        if row["record"] and not row["record"][0].islower():
            problems.append(DataProblem(paths.CANDIDATES, line, "record",
                                        f"{row['record']!r}: an included candidate's record is "
                                        "the pool key it takes (lower-case letters, digits, hyphens)"))
        audited = row["credit_granularity"] in AUDITED_CELLS
        if audited and row["credit_reading"] in ("", "NA"):
            problems.append(DataProblem(paths.CANDIDATES, line, "credit_reading",
                                        f"credit {row['credit_granularity']!r} needs its reading "
                                        "(strict or broad)"))
        elif not audited and row["credit_reading"] not in ("", "NA"):
            problems.append(DataProblem(paths.CANDIDATES, line, "credit_reading",
                                        f"a reading is given for {row['credit_granularity']!r} "
                                        f"credit; readings apply to {' and '.join(AUDITED_CELLS)}"))
        if (row["subdecisions"] or audited) and not row["evidence"]:
            problems += need("evidence", "the evidence for its sub-decisions or credit reading")
        if row["category"] == "benchmark":
            problems += need("benchmark_coverage", "its coverage (a benchmark row of the pool has "
                             "one in benchmark_coverage.csv)")
    if row["benchmark_coverage"]:
        parts = coverage_parts(row["benchmark_coverage"])
        for part, name in zip(COVERAGE_PARTS, COVERAGE_FIELDS):
            if parts.get(part) not in vocab.values(name):
                problems.append(DataProblem(paths.CANDIDATES, line, "benchmark_coverage",
                                            f"{part} {parts.get(part)!r} is not a {name} of the "
                                            "vocabulary"))
    return problems


def _round_problems(row: dict, line: str, protocol: Protocol) -> list[DataProblem]:
    number = int(row["screening_round"])
    try:
        this = protocol.round(number)
    except KeyError:
        return [DataProblem(paths.CANDIDATES, line, "screening_round",
                            f"{number} is not a round of {paths.SEARCH_PROTOCOL}")]
    problems = []
    if number == 0:
        problems.append(DataProblem(paths.CANDIDATES, line, "screening_round",
                                    "round 0 is the survey's own; a candidate belongs to a later round"))
    elif not protocol.round(number - 1).date <= row["date_screened"] <= this.date:
        problems.append(DataProblem(paths.CANDIDATES, line, "date_screened",
                                    f"{row['date_screened']} is not within round {number} (from "
                                    f"{protocol.round(number - 1).date}, at the latest {this.date})"))
    start = dates.earliest(row["first_public"])
    if start is not None and start.isoformat() > row["date_screened"]:
        problems.append(DataProblem(paths.CANDIDATES, line, "first_public",
                                    f"{row['first_public']} is after {row['date_screened']}, when "
                                    "it was screened"))
    return problems
