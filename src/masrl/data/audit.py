"""Loaders for our audit files, each validated on load (pandera, like :mod:`masrl.data.pool`).

* ``load_audit``              -> ``data/audit.csv``: per pool row, the sub-decisions O1-O5 the
  survey names it an anchor of, and how firmly its message or orchestrator credit tag holds up.
* ``load_near_misses``        -> ``data/near_misses.csv``: the tags ten near-miss exclusions
  would get if they were retained (our coding), for the survey's stress test.
* ``load_benchmark_coverage`` -> ``data/benchmark_coverage.csv``: every benchmark row of the
  pool (plus closed benchmarks a pool row reports) by domain, MAS-native status and the
  evaluation measures E1-E4 it covers.

Each raises :class:`masrl.data.problems.DataError` listing every problem as ``FILE:ROW:FIELD: message``.
Besides the column checks, each file is checked against the files it refers to: pool keys,
exclusion ids and the taxonomy's sub-decisions.
"""

from __future__ import annotations

import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data import tables
from masrl.data.coding_rules import CodingRules
from masrl.data.pool import RECODED
from masrl.data.problems import DataProblem
from masrl.data.taxonomy import Taxonomy
from masrl.data.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

# The two credit cells the survey audits for strictness: the new, thin units.
AUDITED_CELLS = ("message", "orchestrator")
MEASURES = ["e1", "e2", "e3", "e4"]
SEPARATOR = " ; "  # several values in one cell, as for URLs in papers.csv
IDS = r"[A-Z][0-9]+( ; [A-Z][0-9]+)*"


def split(cell: str) -> list[str]:
    """The values of a multi-valued cell (``"O1 ; O2"``); an empty cell has none."""
    return [part.strip() for part in cell.split(SEPARATOR.strip())] if cell.strip() else []


# --- audit.csv -------------------------------------------------------------------------------

def audit_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    return pa.DataFrameSchema({
        "key": tables.text(tables.matches(tables.KEY, "a pool key"), unique=True),
        "subdecisions": tables.text(tables.matches(IDS, "sub-decision ids such as O1, separated by ' ; '",
                                            optional=True)),
        "credit_reading": tables.tag(vocab, "credit_reading"),
        "note": tables.text(tables.nonempty("a note saying why")),
    }, strict=True)


def load_audit(data_dir: PathLike, vocab: Vocabulary, papers: pd.DataFrame | None,
               taxonomy: Taxonomy | None) -> pd.DataFrame:
    """The audit rows (only pool rows with something to record), with ``subdecisions`` as a
    list of ids. Checked against the pool (every key exists; every row of the message and
    orchestrator cells has a strict or broad reading, and no other row has one) and against
    ``data/taxonomy.yaml`` (every marked id is a sub-decision, and every anchor the survey names
    there is marked here).

    **The anchors of a sub-decision come from this file**, each with its evidence in ``note``:
    a row may mark a sub-decision the survey names no anchor for (O5, say, once a paper trains
    a stopping policy), so the data can change what the survey found. The taxonomy's lists are
    the survey's own anchors as of its cut-off, kept to check that none is lost.
    These cross-file checks need both files valid; otherwise only the columns are checked."""
    def against_pool_and_taxonomy(frame: pd.DataFrame) -> list[DataProblem]:
        pool = papers.set_index("key")
        anchors = {d.id: list(d.anchors) for d in taxonomy.subdecisions}
        problems = []
        marked: dict[str, list[str]] = {sid: [] for sid in anchors}
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            key = row["key"]
            if key not in pool.index:
                problems.append(tables.not_a_key(paths.AUDIT, line, "key", key, paths.PAPERS))
                continue
            for sid in split(row["subdecisions"]):
                if sid not in anchors:
                    problems.append(DataProblem(paths.AUDIT, line, "subdecisions",
                                            f"{sid!r} is not a sub-decision of taxonomy.yaml"))
                else:
                    marked[sid].append(key)
            credit = pool.at[key, "credit_granularity"]
            reading = row["credit_reading"]
            if credit in AUDITED_CELLS and reading == "NA":
                problems.append(DataProblem(
                    paths.AUDIT, line, "credit_reading",
                    f"the row is tagged {credit!r} credit; give its reading (strict or broad)"))
            elif credit not in AUDITED_CELLS and reading != "NA":
                problems.append(DataProblem(
                    paths.AUDIT, line, "credit_reading",
                    f"{reading!r} given, but {paths.PAPERS} tags the row {credit!r} credit; "
                    f"readings apply to {' and '.join(AUDITED_CELLS)} rows only"))
        audited = set(frame["key"])
        for key in pool.index[pool["credit_granularity"].isin(AUDITED_CELLS)]:
            if key not in audited:
                problems.append(DataProblem(
                    paths.AUDIT, "-", "key",
                    f"{key!r} is tagged {pool.at[key, 'credit_granularity']!r} credit in "
                    f"{paths.PAPERS} but has no row here"))
        for sid, keys in anchors.items():
            for key in keys:
                if key not in marked[sid]:
                    problems.append(DataProblem(
                        paths.AUDIT, "-", "subdecisions",
                        f"taxonomy.yaml names {key!r} as an anchor of {sid}, but no row marks it"))
        return problems

    checks = against_pool_and_taxonomy if papers is not None and taxonomy is not None else None
    frame = tables.load_table(paths.AUDIT, audit_schema(vocab), data_dir, checks)
    return frame.assign(subdecisions=frame["subdecisions"].map(split))


# --- credit_evidence.csv -------------------------------------------------------------------

def credit_evidence_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    values = vocab.values("credit_mechanism")
    return pa.DataFrameSchema({
        "key": tables.text(tables.matches(tables.KEY, "a pool key"), unique=True),
        "credit_comparison": tables.tag(vocab, "credit_comparison"),
        "secondary": tables.text(pa.Check(
            lambda s: s.map(lambda cell: all(v in values for v in split(cell))),
            element_wise=False,
            error="expected credit mechanisms of the vocabulary separated by ' ; ', or empty")),
        "evidence": tables.text(tables.nonempty("the evidence for the mechanism, in our words")),
        "source": tables.text(tables.nonempty("where the evidence was read")),
    }, strict=True)


def load_credit_evidence(data_dir: PathLike, vocab: Vocabulary, papers: pd.DataFrame | None,
                         rules: CodingRules | None = None) -> pd.DataFrame:
    """Per pool row, the evidence for its ``credit_mechanism`` tag (what its credit compares,
    ``credit_comparison``, and any secondary mechanisms, as a list): every pool row has exactly
    one row here, and every key is a pool key (checked when ``papers`` is valid); given the
    coding ``rules``, each row's comparison decides its mechanism as the counterfactual rule
    says."""
    def against_pool(frame: pd.DataFrame) -> list[DataProblem]:
        keys = set(papers["key"])
        problems = [tables.not_a_key(paths.CREDIT_EVIDENCE, str(row[tables.LINE]), "key",
                                     row["key"], paths.PAPERS)
                    for row in frame.to_dict("records") if row["key"] not in keys]
        if rules is not None:
            mechanism = dict(zip(papers["key"], papers["credit_mechanism"]))
            for row in frame.to_dict("records"):
                if row["key"] in mechanism:
                    problems += rules.comparison_problems(
                        paths.CREDIT_EVIDENCE, str(row[tables.LINE]), row["credit_comparison"],
                        mechanism[row["key"]])
        listed = set(frame["key"])
        problems += [DataProblem(paths.CREDIT_EVIDENCE, "-", "key",
                                 f"pool row {key!r} has no evidence for its credit mechanism")
                     for key in papers["key"] if key not in listed]
        return problems

    frame = tables.load_table(paths.CREDIT_EVIDENCE, credit_evidence_schema(vocab), data_dir,
                              None if papers is None else against_pool)
    return frame.assign(secondary=frame["secondary"].map(split))


# --- near_misses.csv -------------------------------------------------------------------------

def near_misses_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    return pa.DataFrameSchema({
        "record_id": tables.text(tables.matches(r"E[0-9]{3}", "a record id of excluded.csv"), unique=True),
        **{field: tables.tag(vocab, field) for field in vocab.group(RECODED)},
        "credit_reading": tables.tag(vocab, "credit_reading"),
        "learned_subdecisions": tables.text(tables.matches(
            IDS, "sub-decision ids such as O2, separated by ' ; '", optional=True)),
        "confidence": tables.tag(vocab, "confidence"),
        "basis": tables.text(tables.nonempty("the basis of the coding")),
    }, strict=True)


def load_near_misses(data_dir: PathLike, vocab: Vocabulary, excluded: pd.DataFrame | None,
                     taxonomy: Taxonomy | None) -> pd.DataFrame:
    """The near-miss exclusions with the tags they would get if retained; ``learned_subdecisions``
    (the sub-decisions the work learns a policy for) as a list of ids. Every record id must be
    in ``excluded.csv``; a credit reading is given only for message or orchestrator credit.
    The checks against ``excluded.csv`` and the taxonomy need both valid."""
    def against_exclusions(frame: pd.DataFrame) -> list[DataProblem]:
        records = set(excluded["record_id"])
        subdecisions = {d.id for d in taxonomy.subdecisions}
        problems = []
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            if row["record_id"] not in records:
                problems.append(DataProblem(paths.NEAR_MISSES, line, "record_id",
                                        f"{row['record_id']!r} is not a record of {paths.EXCLUDED}"))
            for sid in split(row["learned_subdecisions"]):
                if sid not in subdecisions:
                    problems.append(DataProblem(paths.NEAR_MISSES, line, "learned_subdecisions",
                                            f"{sid!r} is not a sub-decision of taxonomy.yaml"))
            audited = row["credit_granularity"] in AUDITED_CELLS
            if audited == (row["credit_reading"] == "NA"):
                problems.append(DataProblem(
                    paths.NEAR_MISSES, line, "credit_reading",
                    f"{row['credit_reading']!r} does not fit credit {row['credit_granularity']!r}: "
                    f"strict or broad for {' and '.join(AUDITED_CELLS)} credit, NA otherwise"))
        return problems

    checks = against_exclusions if excluded is not None and taxonomy is not None else None
    frame = tables.load_table(paths.NEAR_MISSES, near_misses_schema(vocab), data_dir, checks)
    return frame.assign(learned_subdecisions=frame["learned_subdecisions"].map(split))


# --- benchmark_coverage.csv ------------------------------------------------------------------

def coverage_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    return pa.DataFrameSchema({
        "key": tables.text(tables.matches(tables.KEY, "a pool key")),
        "benchmark": tables.text(tables.nonempty("a benchmark name"), unique=True),
        "domain": tables.tag(vocab, "domain"),
        "mas_native": tables.tag(vocab, "mas_native"),
        **{column: tables.tag(vocab, "measure_coverage") for column in MEASURES},
        "coded_by": tables.tag(vocab, "coded_by"),
        "note": tables.text(tables.nonempty("a note on the coding")),
    }, strict=True)


def load_benchmark_coverage(data_dir: PathLike, vocab: Vocabulary,
                            papers: pd.DataFrame | None) -> pd.DataFrame:
    """One row per benchmark. Every benchmark row of the pool must appear (under its own key);
    a closed benchmark may be listed under the pool row that reports it (checked when
    ``papers`` is given)."""
    def against_pool(frame: pd.DataFrame) -> list[DataProblem]:
        pool = papers.set_index("key")
        problems = []
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            key = row["key"]
            if key not in pool.index:
                problems.append(tables.not_a_key(paths.BENCHMARK_COVERAGE, line, "key", key,
                                                 paths.PAPERS))
            elif pool.at[key, "category"] != "benchmark" and row["mas_native"] != "closed":
                problems.append(DataProblem(
                    paths.BENCHMARK_COVERAGE, line, "key",
                    f"{key!r} is a {pool.at[key, 'category']} row of {paths.PAPERS}; only "
                    "benchmark rows, or closed benchmarks a row reports, belong here"))
        listed = set(frame["key"])
        for key in pool.index[pool["category"] == "benchmark"]:
            if key not in listed:
                problems.append(DataProblem(paths.BENCHMARK_COVERAGE, "-", "key",
                                        f"benchmark row {key!r} of {paths.PAPERS} has no row here"))
        return problems

    return tables.load_table(paths.BENCHMARK_COVERAGE, coverage_schema(vocab), data_dir,
                             None if papers is None else against_pool)
