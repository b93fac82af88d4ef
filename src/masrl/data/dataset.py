"""The survey's data as one object: every data file of a data directory, each read and
validated once, on first use, and shared by ``masrl check-data``, the claims ledger and every
chapter.

Each attribute is named after what its file holds and comes from that file's one loader::

    data = Dataset()            # data/ of the repository (or $MASRL_DATA_DIR)
    data.papers                 # papers.csv, validated against the vocabulary
    data.problems()             # every problem of every file, FILE:ROW:FIELD: message

**A dataset sees the pool on one date, in one of two views** (:mod:`masrl.data.views`):
``Dataset(as_of=D)`` the pool *as this survey had screened it on D* (the rows of the screening
rounds dated by D), ``Dataset(published_by=D)`` *what had been published by D* (the rows of every
round that were public by D), each with the rows of the other files that refer to them (the
audit, the spot-check, the benchmark coverage, the envelopes, the bibliography, the near misses).
``Dataset()`` sees the pool at the survey's cut-off (round 0), the pool the survey's statements
are about; ``Dataset(as_of="latest")`` every round. Whatever the view, every file is validated
whole (``masrl check-data`` checks every round); ``all_papers`` and ``all_excluded`` hold every
row of every round.

A file is checked against the files it refers to (pool keys, exclusion ids, the taxonomy's
sub-decisions) only when those are valid themselves; otherwise its own columns are still
checked, and the invalid file reports its own problems. A file that fails raises
:class:`masrl.data.problems.DataError` each time it is asked for, with the same problems,
without being read again.
"""

from __future__ import annotations

import datetime as dt
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
    candidates,
    claims,
    coding_rules,
    envelopes,
    log_sources,
    pool,
    protocol,
    published,
    tag_evidence,
    taxonomy,
    vocabulary,
    who_and_when_published,
)
from masrl.data.problems import DataError, DataProblem, sort_problems
from masrl.data.views import LATEST as LATEST  # re-exported: Dataset(as_of=LATEST)
from masrl.data.views import View


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
    """Every data file of one data directory, validated once, seen as of one date (see the
    module docstring)."""

    FILES = ("vocabulary", "search_protocol", "all_papers", "all_excluded", "spotcheck",
             "bibliography", "taxonomy", "published", "audit", "near_misses",
             "benchmark_coverage", "envelopes", "claims", "log_sources",
             "who_and_when_published", "candidates", "credit_evidence", "coding_rules",
             "tag_evidence")

    # the files read whole whatever the date (the others keep the rows of the pool of the date)
    WHOLE = ("vocabulary", "search_protocol", "all_papers", "all_excluded", "taxonomy",
             "published", "claims", "log_sources", "who_and_when_published", "candidates",
             "coding_rules")

    def __init__(self, data_dir: str | os.PathLike | None = None, as_of: str | None = None,
                 published_by: str | None = None):
        self.directory: Path = paths.data_dir(data_dir)
        self._loaded: dict[str, Any] = {}
        self.view = View.of(as_of, published_by)  # a ViewError (a ValueError) for a bad date
        self.also: frozenset[str] = frozenset()  # rows seen whatever the date (with_records)
        self.left_out: frozenset[str] = frozenset()  # rows not seen whatever the date

    @property
    def requested_as_of(self) -> str | None:
        return self.view.requested if self.view.kind == "as-of" else None

    def __repr__(self) -> str:
        when = "" if self.view.is_cutoff else (
            f", {self.view.kind.replace('-', '_')}={self.view.requested!r}")
        return f"Dataset({str(self.directory)!r}{when})"

    def at(self, as_of: str | None = None, published_by: str | None = None) -> Dataset:
        """The same data directory in another view; the files already read are shared, not
        read again."""
        other = Dataset(self.directory, as_of, published_by)
        other._loaded = {name: value for name, value in self._loaded.items()
                         if name in self.WHOLE}
        return other

    def cutoff(self) -> Dataset:
        """The same data seen at the survey's cut-off (round 0, as screened)."""
        return self.at()

    def _same_view(self) -> Dataset:
        other = self.at()
        other.view = self.view
        return other

    def with_records(self, ids) -> Dataset:
        """This dataset's view plus the pool rows and exclusions named in ``ids`` (keys or
        record ids), whatever their round and date: what one later record would change."""
        other = self._same_view()
        other.also = frozenset(ids)
        return other

    def without_records(self, ids) -> Dataset:
        """This dataset's view less the pool rows and exclusions named in ``ids``: what leaving
        one record out would change."""
        other = self._same_view()
        other.left_out = frozenset(ids)
        return other

    # --- time ----------------------------------------------------------------------------------

    @property
    def as_of(self) -> dt.date:
        """The date this dataset sees the pool at: the cut-off (round 0's date) by default, the
        latest round's date for ``latest``, else the date given (a :class:`ViewError` for a
        date the view cannot answer for)."""
        return self.view.day(self.search_protocol)

    def describe_view(self) -> str:
        """The view in words (``as screened on 2026-12-04 (rounds 0-1)``)."""
        return self.view.describe(self.search_protocol)

    @property
    def rounds(self) -> list[protocol.Round]:
        """The screening rounds whose rows this view may count."""
        return self.view.rounds(self.search_protocol)

    def _in_time(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``frame`` (pool or exclusions) this view counts (see
        :mod:`masrl.data.views`), with :meth:`with_records` and :meth:`without_records`."""
        day = self.as_of
        seen = {r.id: r.day for r in self.rounds}
        ident = "key" if "key" in frame.columns else "record_id"
        keep = []
        for row in frame.to_dict("records"):
            if row[ident] in self.also or row[ident] in self.left_out:
                keep.append(row[ident] in self.also)
                continue
            round_day = seen.get(int(row["screening_round"]))
            keep.append(round_day is not None
                        and self.view.counts(row["first_public"], round_day, day))
        return frame[keep].reset_index(drop=True)

    def _of_pool(self, frame: pd.DataFrame, column: str = "key") -> pd.DataFrame:
        """The rows of ``frame`` that refer to a pool row present at :attr:`as_of` (a row whose
        ``column`` is empty refers to none and stays). When the pool cannot be read, the rows
        stay: the pool's own problems say why."""
        try:
            keys = set(self.papers["key"])
        except DataError:
            return frame
        keep = frame[column].map(lambda key: key == "" or key in keys)
        return frame[keep].reset_index(drop=True)

    # --- the files ---------------------------------------------------------------------------

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
    def search_protocol(self) -> protocol.Protocol:
        return protocol.load_protocol(self.directory,
                                      self._vocabulary_for(paths.SEARCH_PROTOCOL))

    @_validated
    def all_papers(self) -> pd.DataFrame:
        """Every row of ``papers.csv``, of every round."""
        return pool.load_papers(self.directory, self._vocabulary_for(paths.PAPERS),
                                self._valid("search_protocol"))

    @_validated
    def all_excluded(self) -> pd.DataFrame:
        """Every row of ``excluded.csv``, of every round."""
        return pool.load_excluded(self.directory, self._vocabulary_for(paths.EXCLUDED),
                                  self._valid("search_protocol"), self._valid("all_papers"))

    @property
    def papers(self) -> pd.DataFrame:
        """The retained pool as of :attr:`as_of`."""
        return self._view("papers", lambda: self._in_time(self.all_papers))

    @property
    def excluded(self) -> pd.DataFrame:
        """The exclusion log as of :attr:`as_of`."""
        return self._view("excluded", lambda: self._in_time(self.all_excluded))

    def _view(self, name: str, make: Callable[[], Any]) -> Any:
        key = f"view:{name}"
        if key not in self._loaded:
            self._loaded[key] = make()
        return self._loaded[key]

    @_validated
    def spotcheck(self) -> pd.DataFrame:
        return self._of_pool(pool.load_spotcheck(
            self.directory, self._vocabulary_for(paths.SPOTCHECK), self._valid("all_papers")))

    @_validated
    def bibliography(self) -> dict[str, dict[str, str]]:
        entries = bib.load_bibliography(self.directory, self._valid("all_papers"))
        try:
            keys = set(self.papers["key"])
        except DataError:
            return entries
        return {key: entry for key, entry in entries.items() if key in keys}

    @_validated
    def taxonomy(self) -> taxonomy.Taxonomy:
        return taxonomy.load_taxonomy(self.directory, self._vocabulary_for(paths.TAXONOMY),
                                      self._valid("all_papers"))

    @_validated
    def published(self) -> dict:
        return published.load_published(self.directory)

    @_validated
    def audit(self) -> pd.DataFrame:
        """The audit rows of the pool as of :attr:`as_of`."""
        return self._of_pool(audit.load_audit(self.directory, self._vocabulary_for(paths.AUDIT),
                                              self._valid("all_papers"), self._valid("taxonomy")))

    @_validated
    def near_misses(self) -> pd.DataFrame:
        frame = audit.load_near_misses(self.directory, self._vocabulary_for(paths.NEAR_MISSES),
                                       self._valid("all_excluded"), self._valid("taxonomy"))
        try:
            records = set(self.excluded["record_id"])
        except DataError:
            return frame
        return frame[frame["record_id"].isin(records)].reset_index(drop=True)

    @_validated
    def benchmark_coverage(self) -> pd.DataFrame:
        return self._of_pool(audit.load_benchmark_coverage(
            self.directory, self._vocabulary_for(paths.BENCHMARK_COVERAGE),
            self._valid("all_papers")))

    @_validated
    def envelopes(self) -> pd.DataFrame:
        return self._of_pool(envelopes.load_envelopes(
            self.directory, self._vocabulary_for(paths.ENVELOPES), self._valid("all_papers")))

    @_validated
    def credit_evidence(self) -> pd.DataFrame:
        return self._of_pool(audit.load_credit_evidence(
            self.directory, self._vocabulary_for(paths.CREDIT_EVIDENCE),
            self._valid("all_papers"), self._valid("coding_rules")))

    @_validated
    def coding_rules(self) -> coding_rules.CodingRules:
        return coding_rules.load_coding_rules(self.directory,
                                              self._vocabulary_for(paths.CODING_RULES))

    @_validated
    def tag_evidence(self) -> pd.DataFrame:
        """The tags re-checked against their papers, for the pool rows of the view."""
        return self._of_pool(tag_evidence.load_tag_evidence(
            self.directory, self._vocabulary_for(paths.TAG_EVIDENCE), self._valid("all_papers")))

    @property
    def headline_papers(self) -> pd.DataFrame:
        """The pool rows the survey's headline cells count (the LLM-based rows; classical MARL
        foundations are set apart by ``coding_rules.yaml``)."""
        return self.coding_rules.headline(self.papers)

    @property
    def foundations(self) -> pd.DataFrame:
        """The pool rows set apart from the headline cells (classical MARL foundations)."""
        return self.coding_rules.apart(self.papers)

    @_validated
    def candidates(self) -> pd.DataFrame:
        return candidates.load_candidates(self.directory, self._vocabulary_for(paths.CANDIDATES),
                                          self._valid("search_protocol"),
                                          self._valid("coding_rules"))

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
