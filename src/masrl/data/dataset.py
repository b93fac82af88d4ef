"""The survey's data as one object: every data file of a data directory, each read and
validated once, on first use, and shared by ``masrl check-data``, the claims ledger and every
chapter.

Each attribute is named after what its file holds and comes from that file's one loader::

    data = Dataset()            # data/ of the repository (or $MASRL_DATA_DIR)
    data.papers                 # papers.csv, validated against the vocabulary
    data.problems()             # every problem of every file, FILE:ROW:FIELD: message

A file is checked against the files it refers to (pool keys, exclusion ids, the taxonomy's
sub-decisions) only when those are valid themselves; otherwise its own columns are still
checked, and the invalid file reports its own problems. A file that fails raises
:class:`masrl.data.problems.DataError` each time it is asked for, with the same problems,
without being read again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import pandas as pd

from masrl import paths
from masrl.data import (
    audit,
    bib,
    claims,
    envelopes,
    log_sources,
    pool,
    published,
    taxonomy,
    vocabulary,
    who_and_when_published,
)
from masrl.data.problems import DataError, DataProblem, sort_problems


def _validated(load: Callable[[Dataset], Any]) -> property:
    """A read-only attribute computed once by ``load``; a :class:`DataError` is kept and raised
    again on every later access (the file is not read twice)."""
    name = load.__name__

    @wraps(load)
    def get(self: Dataset):
        if name not in self._loaded:
            try:
                self._loaded[name] = load(self)
            except DataError as exc:
                self._loaded[name] = exc
        value = self._loaded[name]
        if isinstance(value, DataError):
            raise value
        return value

    return property(get)


class Dataset:
    """Every data file of one data directory, validated once (see the module docstring)."""

    FILES = ("vocabulary", "papers", "excluded", "spotcheck", "bibliography", "taxonomy",
             "published", "audit", "near_misses", "benchmark_coverage", "envelopes", "claims",
             "log_sources", "who_and_when_published")

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.directory: Path = paths.data_dir(data_dir)
        self._loaded: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Dataset({str(self.directory)!r})"

    def _valid(self, name: str) -> Any | None:
        """The named file when it is valid, else ``None`` (for cross-file checks)."""
        try:
            return getattr(self, name)
        except DataError:
            return None

    @_validated
    def vocabulary(self) -> vocabulary.Vocabulary:
        return vocabulary.load_vocabulary(self.directory)

    @_validated
    def papers(self) -> pd.DataFrame:
        return pool.load_papers(self.directory, self._vocabulary_for(paths.PAPERS))

    @_validated
    def excluded(self) -> pd.DataFrame:
        return pool.load_excluded(self.directory, self._vocabulary_for(paths.EXCLUDED))

    @_validated
    def spotcheck(self) -> pd.DataFrame:
        return pool.load_spotcheck(self.directory, self._vocabulary_for(paths.SPOTCHECK),
                                   self._valid("papers"))

    @_validated
    def bibliography(self) -> dict[str, dict[str, str]]:
        return bib.load_bibliography(self.directory, self._valid("papers"))

    @_validated
    def taxonomy(self) -> taxonomy.Taxonomy:
        return taxonomy.load_taxonomy(self.directory, self._vocabulary_for(paths.TAXONOMY),
                                      self._valid("papers"))

    @_validated
    def published(self) -> dict:
        return published.load_published(self.directory)

    @_validated
    def audit(self) -> pd.DataFrame:
        return audit.load_audit(self.directory, self._vocabulary_for(paths.AUDIT),
                                self._valid("papers"), self._valid("taxonomy"))

    @_validated
    def near_misses(self) -> pd.DataFrame:
        return audit.load_near_misses(self.directory, self._vocabulary_for(paths.NEAR_MISSES),
                                      self._valid("excluded"), self._valid("taxonomy"))

    @_validated
    def benchmark_coverage(self) -> pd.DataFrame:
        return audit.load_benchmark_coverage(
            self.directory, self._vocabulary_for(paths.BENCHMARK_COVERAGE),
            self._valid("papers"))

    @_validated
    def envelopes(self) -> pd.DataFrame:
        return envelopes.load_envelopes(self.directory, self._vocabulary_for(paths.ENVELOPES),
                                        self._valid("papers"))

    @_validated
    def claims(self) -> list[claims.Claim]:
        return claims.load_claims(self.directory)

    @_validated
    def log_sources(self) -> pd.DataFrame:
        return log_sources.load_log_sources(self.directory)

    @_validated
    def who_and_when_published(self) -> who_and_when_published.Published:
        return who_and_when_published.load_who_and_when_published(self.directory)

    def _vocabulary_for(self, file: str) -> vocabulary.Vocabulary:
        """The vocabulary, which every tagged file needs: when it is invalid, ``file`` cannot be
        checked at all, and says so, with the vocabulary's own problems (so that a command that needs
        ``file`` shows why, and exits 2 when the vocabulary is missing)."""
        try:
            return self.vocabulary
        except DataError as exc:
            raise DataError([DataProblem(file, "-", "-", f"not checked: {paths.VOCABULARY} "
                                         "has problems"), *exc.problems]) from None

    def problems(self) -> list[DataProblem]:
        """Every problem of every data file (an empty list when the data is clean)."""
        found: list[DataProblem] = []
        for name in self.FILES:
            try:
                getattr(self, name)
            except DataError as exc:
                found.extend(exc.problems)
        return sort_problems(found)
