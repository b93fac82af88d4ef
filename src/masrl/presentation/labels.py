"""Vocabulary values as readers see them: each value by its label (``data/vocabulary.yaml``,
``labels``), each field by its name for readers, in the frames a chapter shows as tables.

The data keep their codes (``rl_method``); a table a reader reads shows "RL method". Charts
take the same labels from :class:`masrl.data.vocabulary.Field` (:mod:`masrl.presentation.charts`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from masrl.data.vocabulary import Field, Vocabulary


def columns(frame: pd.DataFrame, fields: Mapping[str, Field]) -> pd.DataFrame:
    """``frame`` with the values of each column named in ``fields`` shown by their labels."""
    found = frame.copy()
    for name, field in fields.items():
        found[name] = [field.label_of(str(v)) for v in found[name]]
    return found


def crosstab(table: pd.DataFrame, rows: Field, columns: Field) -> pd.DataFrame:
    """A cross-tab of two fields with its row and column values shown by their labels and its
    axes named by the fields' labels."""
    return (table.rename(index=lambda v: rows.label_of(str(v)),
                         columns=lambda v: columns.label_of(str(v)))
            .rename_axis(index=rows.label, columns=columns.label))


def counts(long: pd.DataFrame, vocabulary: Vocabulary) -> pd.DataFrame:
    """A long table of counts (``field``, ``value``, then the counts) with each field named by
    its label and each value by its own."""
    found = long.copy()
    found["value"] = [vocabulary[f].label_of(str(v)) for f, v in zip(found["field"],
                                                                     found["value"])]
    found["field"] = [vocabulary[f].label for f in found["field"]]
    return found


def in_sentence(label: str) -> str:
    """A label inside a sentence: its capital dropped unless it starts an acronym ("Agent" ->
    "agent", "RL method" stays)."""
    if len(label) > 1 and label[0].isupper() and not label[1].isupper():
        return label[0].lower() + label[1:]
    return label
