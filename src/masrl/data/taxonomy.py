"""Loader for ``data/taxonomy.yaml``: the survey's reward families R1-R8, credit-bearing units
(team to token), orchestration sub-decisions O1-O5, six topologies and evaluation measures E1-E4.

Validated with pydantic (structure) and against the pool (every anchor is a pool key) and the
controlled vocabulary (every mapped value is defined); problems are reported as
``taxonomy.yaml:SECTION[i]:FIELD: message``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from masrl import paths
from masrl.data import documents
from masrl.data.problems import DataError, DataProblem
from masrl.traces.schema import subdecision_ids

if TYPE_CHECKING:  # pandas is imported where a table is made: the trace toolkit reads the
    import pandas as pd  # sub-decisions without paying for it (masrl.traces.credit)

    from masrl.data.vocabulary import Vocabulary


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    name: str
    anchors: list[str] = []


class RewardFamily(_Entry):
    unit: str
    reward_types: list[str]
    meaning: str


class CreditUnit(_Entry):
    credit_granularity: str
    status: Literal["inherited", "established", "new"]
    meaning: str


class SubDecision(_Entry):
    decision: Literal["spawn", "delegate", "communicate", "aggregate", "stop"]
    meaning: str


class Topology(_Entry):
    pass


class Measure(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    name: str
    metric: str
    meaning: str


class Taxonomy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    reward_families: list[RewardFamily]
    credit_units: list[CreditUnit]
    subdecisions: list[SubDecision]
    topologies: list[Topology]
    evaluation_measures: list[Measure]

    def frame(self, section: str) -> pd.DataFrame:
        """One section as a table (anchors joined by ', ')."""
        import pandas as pd

        rows = [m.model_dump() for m in getattr(self, section)]
        frame = pd.DataFrame(rows)
        for column in ("anchors", "reward_types"):
            if column in frame:
                frame[column] = frame[column].map(", ".join)
        return frame


def load_taxonomy(data_dir: str | os.PathLike | None, vocab: Vocabulary,
                  papers: pd.DataFrame | None) -> Taxonomy:
    """The taxonomy, checked against the vocabulary (every mapped value is defined) and, when
    ``papers`` is given, against the pool (every anchor is a pool key)."""
    from masrl.data import tables

    taxonomy = documents.load_model(paths.TAXONOMY, Taxonomy, data_dir)
    keys = None if papers is None else set(papers["key"])
    problems = []
    for section in Taxonomy.model_fields:
        entries = getattr(taxonomy, section)
        ids = [e.id for e in entries]
        for i, entry in enumerate(entries):
            where = f"{section}[{i}]"
            if ids.count(entry.id) > 1:
                problems.append(DataProblem(paths.TAXONOMY, where, "id", f"duplicate id {entry.id!r}"))
            for key in getattr(entry, "anchors", []) if keys is not None else ():
                if key not in keys:
                    problems.append(tables.not_a_key(paths.TAXONOMY, where, "anchors", key,
                                                     paths.PAPERS))
    declared = subdecision_ids()  # the trace schema's numbering, which the survey's must match
    for i, entry in enumerate(taxonomy.subdecisions):
        if declared.get(entry.decision) != entry.id:
            problems.append(DataProblem(
                paths.TAXONOMY, f"subdecisions[{i}]", "id",
                f"{entry.id!r} for {entry.decision!r}, but the trace schema numbers it "
                f"{declared.get(entry.decision)!r}"))
    checks = [("reward_families", "reward_types", "reward_type"),
              ("credit_units", "credit_granularity", "credit_granularity"),
              ("topologies", "id", "orchestration_form")]
    for section, attribute, field in checks:
        for i, entry in enumerate(getattr(taxonomy, section)):
            values = getattr(entry, attribute)
            for value in values if isinstance(values, list) else [values]:
                if value not in vocab.values(field):
                    problems.append(DataProblem(paths.TAXONOMY, f"{section}[{i}]", attribute,
                                            f"{value!r} is not a {field} of the vocabulary"))
    if problems:
        raise DataError(problems)
    return taxonomy

