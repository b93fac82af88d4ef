"""Loader for ``data/envelopes.csv``: one row per industrial system and per academic RL setup
(agents per run, the horizon of one task, model size, source and confidence). Unknown numbers
stay empty (NaN after loading); they are never filled in. The scale gap computed from them is
in :mod:`masrl.analyses.scale`.
"""

from __future__ import annotations

import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data import tables
from masrl.data.problems import DataProblem
from masrl.data.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

NUMBER = r"[0-9]+(\.[0-9]+)?"
# (number column, its bound column, the unit column that must be filled with it, if any)
MEASURED = [("agents", "agents_bound", None), ("horizon", "horizon_bound", "horizon_unit")]


def envelopes_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    number = tables.matches(NUMBER, "a number, or empty when unknown", optional=True)
    return pa.DataFrameSchema({
        "system": tables.text(tables.nonempty("a system name"), unique=True),
        "kind": tables.tag(vocab, "kind"),
        "key": tables.text(tables.matches(tables.KEY, "a pool key or empty", optional=True)),
        "date": tables.text(tables.date("a calendar date as YYYY-MM-DD or a month as YYYY-MM, or "
                                        "empty", month=True, optional=True)),
        "agents": tables.text(number),
        "agents_bound": tables.tag(vocab, "bound", optional=True),
        "horizon": tables.text(number),
        "horizon_unit": tables.tag(vocab, "horizon_unit", optional=True),
        "horizon_bound": tables.tag(vocab, "bound", optional=True),
        "model": tables.text(),
        "model_size_b": tables.text(number),
        "source_url": tables.text(tables.matches(tables.URLS, "http(s) URLs separated by ' ; '")),
        "confidence": tables.tag(vocab, "confidence"),
        "note": tables.text(tables.nonempty("a note on the source's wording")),
    }, strict=True)


def load_envelopes(data_dir: PathLike, vocab: Vocabulary,
                   papers: pd.DataFrame | None) -> pd.DataFrame:
    """The envelopes, with ``agents``, ``horizon`` and ``model_size_b`` as floats (NaN when
    unknown). A number needs its bound (and a horizon its unit), an empty number has neither,
    and a key must be a pool key (checked when ``papers`` is given)."""
    keys = None if papers is None else set(papers["key"])

    def consistency(frame: pd.DataFrame) -> list[DataProblem]:
        problems = []
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            if keys is not None and row["key"] and row["key"] not in keys:
                problems.append(tables.not_a_key(paths.ENVELOPES, line, "key", row["key"],
                                                 paths.PAPERS))
            for number, bound, unit in MEASURED:
                for companion in filter(None, (bound, unit)):
                    if bool(row[number]) != bool(row[companion]):
                        state = "given" if row[number] else "empty"
                        problems.append(DataProblem(
                            paths.ENVELOPES, line, companion,
                            f"{number} is {state}, so {companion} must be "
                            f"{'given' if row[number] else 'empty'}"))
        return problems

    frame = tables.load_table(paths.ENVELOPES, envelopes_schema(vocab), data_dir, consistency)
    for column in ("agents", "horizon", "model_size_b"):
        frame[column] = pd.to_numeric(frame[column].replace("", float("nan")))
    return frame
