"""Loader for ``data/search_protocol.yaml``: the search protocol as data (sources, query families
with their query strings, inclusion rules, evidence levels) and the screening rounds run so far.

Checked with pydantic (structure) and against the controlled vocabulary: each value of the
vocabulary's ``source`` and ``query_family`` fields belongs to exactly one source or family of
the protocol (the exclusion log's twelve narrower queries fall into the survey's seven
families), and every label a source or family lists is such a value. Rounds are numbered 0, 1,
2... in order, with calendar dates that never decrease (two rounds may share a day); round 0 is
the survey's own search, dated at its cut-off. Each round names the release that publishes it
(``version``, MAJOR.MINOR.PATCH, increasing) and may record its searches (query family, source,
query, date, hits), dated within the round. Problems read ``search_protocol.yaml:SECTION[i]:FIELD: message``.
"""

from __future__ import annotations

import datetime as dt
import os
import re

from pydantic import BaseModel, ConfigDict, Field

from masrl import paths
from masrl.data import documents, tables
from masrl.data.problems import DataError, DataProblem
from masrl.data.vocabulary import Vocabulary


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Search(_Strict):
    """One query run in one source for a round: when, and how many records it returned (the
    round's candidates say what became of each)."""

    family: str
    source: str
    query: str
    date: str
    hits: int = Field(ge=0)
    note: str = ""


class Round(_Strict):
    id: int
    date: str
    searched_through: str
    label: str
    screener: str
    note: str
    version: str  # the release of the companion that publishes this round (masrl.data.release)
    released: str = ""  # that release's date, when later than the round's (empty: the round's)
    searched_from: str = ""  # the first day the round's searches cover (empty: the field's start)
    searches: list[Search] = []
    # records a round's searches found that have no row: already held (dropped as duplicates
    # before screening) or not identifiable from what was found (a mention, a bare title)
    duplicates_not_recorded: int = Field(default=0, ge=0)
    not_assessable: int = Field(default=0, ge=0)

    @property
    def day(self) -> dt.date:
        return dt.date.fromisoformat(self.date)

    @property
    def hits(self) -> int:
        """Records the round's recorded searches returned (0 when none is recorded)."""
        return sum(s.hits for s in self.searches)


class Source(_Strict):
    id: str
    name: str
    labels: list[str]
    note: str = ""


class QueryFamily(_Strict):
    id: str
    name: str
    labels: list[str]
    queries: list[str]


class Rule(_Strict):
    id: str
    text: str


class EvidenceLevel(_Strict):
    kind: str
    supports: str


class Protocol(_Strict):
    rounds: list[Round]
    sources: list[Source]
    query_families: list[QueryFamily]
    inclusion_rules: list[Rule]
    evidence_levels: list[EvidenceLevel]

    def round(self, number: int) -> Round:
        """The round numbered ``number`` (a ``KeyError`` if there is none)."""
        for r in self.rounds:
            if r.id == number:
                return r
        raise KeyError(number)

    @property
    def cutoff(self) -> str:
        """The survey's cut-off: the date of round 0."""
        return self.rounds[0].date

    @property
    def latest(self) -> Round:
        return self.rounds[-1]

    def family_of(self, label: str) -> str:
        """The name of the query family a ``query_family`` value of the log belongs to."""
        return next(f.name for f in self.query_families if label in f.labels)

    def source_of(self, label: str) -> str:
        """The name of the protocol source a ``source`` value belongs to."""
        return next(s.name for s in self.sources if label in s.labels)


VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _search_problems(protocol: Protocol, i: int, r: Round) -> list[DataProblem]:
    """Each recorded search names a family and a source of the protocol and is dated within
    its round (not after the round's date, not before the previous round's)."""
    families = {f.id for f in protocol.query_families}
    sources = {s.id for s in protocol.sources}
    earliest = protocol.rounds[i - 1].date if i else ""
    problems = []
    for j, search in enumerate(r.searches):
        where = f"rounds[{i}].searches[{j}]"
        if search.family not in families:
            problems.append(DataProblem(paths.SEARCH_PROTOCOL, where, "family",
                                        f"{search.family!r} is not a query family id"))
        if search.source not in sources:
            problems.append(DataProblem(paths.SEARCH_PROTOCOL, where, "source",
                                        f"{search.source!r} is not a source id"))
        if not tables.is_date(search.date):
            problems.append(DataProblem(paths.SEARCH_PROTOCOL, where, "date",
                                        f"{search.date!r} is not a date YYYY-MM-DD"))
        elif not earliest <= search.date <= r.date:
            problems.append(DataProblem(paths.SEARCH_PROTOCOL, where, "date",
                                        f"{search.date} is not within round {r.id} (from "
                                        f"{earliest or 'the start'} to {r.date})"))
    return problems


def load_protocol(data_dir: str | os.PathLike | None, vocab: Vocabulary) -> Protocol:
    """The protocol, checked as the module docstring says."""
    protocol = documents.load_model(paths.SEARCH_PROTOCOL, Protocol, data_dir)
    name = paths.SEARCH_PROTOCOL
    problems = []
    for i, r in enumerate(protocol.rounds):
        where = f"rounds[{i}]"
        if r.id != i:
            problems.append(DataProblem(name, where, "id", f"{r.id} given; rounds are numbered "
                                        f"0, 1, 2... in order, so this one is {i}"))
        for column in ("date", "searched_through"):
            if not tables.is_date(getattr(r, column)):
                problems.append(DataProblem(name, where, column,
                                            f"{getattr(r, column)!r} is not a date YYYY-MM-DD"))
        previous = protocol.rounds[i - 1] if i else None
        if (previous is not None and tables.is_date(r.date) and tables.is_date(previous.date)
                and r.date < previous.date):
            problems.append(DataProblem(name, where, "date", f"{r.date} is before the "
                                        f"previous round's date {previous.date}"))
        if not VERSION.fullmatch(r.version):
            problems.append(DataProblem(name, where, "version", f"{r.version!r} is not a "
                                        "version MAJOR.MINOR.PATCH"))
        elif (previous is not None and VERSION.fullmatch(previous.version)
              and _version(r.version) <= _version(previous.version)):
            problems.append(DataProblem(name, where, "version", f"{r.version} does not come "
                                        f"after the previous round's {previous.version}"))
        if r.searched_from and not tables.is_date(r.searched_from):
            problems.append(DataProblem(name, where, "searched_from",
                                        f"{r.searched_from!r} is not a date YYYY-MM-DD"))
        problems += _search_problems(protocol, i, r)
    if not protocol.rounds:
        problems.append(DataProblem(name, "rounds", "-", "no round: round 0 is the survey's search"))
    for section, field in (("sources", "source"), ("query_families", "query_family")):
        entries = getattr(protocol, section)
        values = vocab.values(field)
        owners: dict[str, list[str]] = {v: [] for v in values}
        for i, entry in enumerate(entries):
            for label in entry.labels:
                if label not in owners:
                    problems.append(DataProblem(name, f"{section}[{i}]", "labels",
                                                f"{label!r} is not a {field} of the vocabulary"))
                else:
                    owners[label].append(entry.id)
        for value, ids in owners.items():
            if len(ids) != 1:
                where = "no entry" if not ids else f"{len(ids)} entries ({', '.join(ids)})"
                problems.append(DataProblem(name, section, "labels", f"the {field} {value!r} "
                                            f"belongs to {where}; it must belong to exactly one"))
    if problems:
        raise DataError(problems)
    return protocol
