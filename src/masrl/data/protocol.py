"""Loader for ``data/search_protocol.yaml``: the search protocol as data (sources, query families
with their query strings, inclusion rules, evidence levels) and the screening rounds run so far.

Checked with pydantic (structure) and against the controlled vocabulary: each value of the
vocabulary's ``source`` and ``query_family`` fields belongs to exactly one source or family of
the protocol (the exclusion log's twelve narrower queries fall into the survey's seven
families), and every label a source or family lists is such a value. Rounds are numbered 0, 1,
2... in order, with calendar dates that increase; round 0 is the survey's own search, dated at
its cut-off. Problems read ``search_protocol.yaml:SECTION[i]:FIELD: message``.
"""

from __future__ import annotations

import datetime as dt
import os

from pydantic import BaseModel, ConfigDict

from masrl import paths
from masrl.data import documents, tables
from masrl.data.problems import DataError, DataProblem
from masrl.data.vocabulary import Vocabulary


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Round(_Strict):
    id: int
    date: str
    searched_through: str
    label: str
    screener: str
    note: str

    @property
    def day(self) -> dt.date:
        return dt.date.fromisoformat(self.date)


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
        if (i and tables.is_date(r.date) and tables.is_date(protocol.rounds[i - 1].date)
                and r.date <= protocol.rounds[i - 1].date):
            problems.append(DataProblem(name, where, "date", f"{r.date} is not after the "
                                        f"previous round's date {protocol.rounds[i - 1].date}"))
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
