"""Loader for ``data/log_sources.csv``: the catalogue of public logs of real multi-agent runs
that the real-runs chapter imports from ``../shared/traces`` (see :mod:`masrl.analyses.real_runs`).

One row per kind of log: a ``key``, the ``label`` the book shows, where the logs lie (``folder``
under the logs directory and a glob ``pattern``), the importer ``format``, and whom to credit
(``origin`` repository and commit, ``url``, ``licence``, ``reference``). The logs themselves are
not part of the project.
"""

from __future__ import annotations

import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data import tables


def log_sources_schema() -> pa.DataFrameSchema:
    name = tables.matches(r"[a-z0-9][a-z0-9-]*", "lower-case letters, digits and hyphens")
    return pa.DataFrameSchema({
        "key": tables.text(name, unique=True),
        "label": tables.text(tables.nonempty("a label for readers"), unique=True),
        "folder": tables.text(tables.matches(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*",
                                             "a relative folder (no '..', no leading '/')")),
        "pattern": tables.text(tables.nonempty("a glob pattern")),
        "format": tables.text(name),
        "origin": tables.text(tables.nonempty("the repository and commit")),
        "url": tables.text(tables.matches(tables.URL, "an http(s) URL")),
        "licence": tables.text(tables.nonempty("a licence")),
        "reference": tables.text(tables.nonempty("what to cite")),
    }, strict=True)


def load_log_sources(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """The catalogue, one row per source, in file order."""
    return tables.load_table(paths.LOG_SOURCES, log_sources_schema(), data_dir)
