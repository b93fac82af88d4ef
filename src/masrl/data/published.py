"""Loader for ``data/published.yaml``: the survey's published figures, which our statistics
must reproduce (the comparison is :func:`masrl.analyses.reproduction.compare`).

Validated with pydantic: counts are integers, the cut-off is a calendar date, every section is
present, and nothing unknown is there; problems are reported as ``published.yaml:SECTION:FIELD: message``.
"""

from __future__ import annotations

import os
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictInt, StrictStr

from masrl import paths
from masrl.data import documents, tables

Counts = dict[StrictStr, StrictInt]


def _calendar_date(value: str) -> str:
    if not tables.is_date(value):
        raise ValueError(f"{value!r} is not a calendar date written YYYY-MM-DD")
    return value


IsoDate = Annotated[StrictStr, AfterValidator(_calendar_date)]


class _Published(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    search_cutoff: IsoDate
    totals: Counts
    counts: dict[StrictStr, Counts]
    excluded: dict[StrictStr, Counts] = {}
    crosstabs: dict[StrictStr, dict[StrictStr, Counts]]


def load_published(data_dir: str | os.PathLike | None = None) -> dict:
    """The published figures as plain data: ``search_cutoff`` (ISO date text), ``totals``,
    ``counts``, ``excluded`` and ``crosstabs`` (cells not listed are published zeros)."""
    return documents.load_model(paths.PUBLISHED, _Published, data_dir).model_dump()
