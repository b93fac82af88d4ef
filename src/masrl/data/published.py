"""Loader for ``data/published.yaml``: the survey's published figures, which our statistics
must reproduce (the comparison is :func:`masrl.analyses.reproduction.compare`).

Validated with pydantic: counts are integers, every section is present, and nothing unknown is
there; problems are reported as ``published.yaml:SECTION:FIELD: message``.
"""

from __future__ import annotations

import datetime as dt
import os

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from masrl import paths
from masrl.data import documents

Counts = dict[StrictStr, StrictInt]


class _Published(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    search_cutoff: dt.date
    totals: Counts
    counts: dict[StrictStr, Counts]
    excluded: dict[StrictStr, Counts] = {}
    crosstabs: dict[StrictStr, dict[StrictStr, Counts]]


def load_published(data_dir: str | os.PathLike | None = None) -> dict:
    """The published figures as plain data: ``search_cutoff`` (ISO date text), ``totals``,
    ``counts``, ``excluded`` and ``crosstabs`` (cells not listed are published zeros)."""
    figures = documents.load_model(paths.PUBLISHED, _Published, data_dir).model_dump()
    figures["search_cutoff"] = figures["search_cutoff"].isoformat()
    return figures
