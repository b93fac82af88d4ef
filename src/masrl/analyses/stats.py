"""Corpus statistics: pure functions over the validated tables.

The fields counted are the vocabulary's fields of ``papers.csv`` and ``excluded.csv``.

Counts always list every value of the controlled vocabulary, in its order, zero counts included,
so that empty cells (a credit unit no paper uses) are visible rather than silently missing.
"""

from __future__ import annotations

import pandas as pd

from masrl import paths
from masrl.data.vocabulary import Vocabulary

# The cross-tabs the package computes: name -> (row field, column field).
CROSSTABS = {
    "reward_type_x_credit_granularity": ("reward_type", "credit_granularity"),
    "orchestration_form_x_credit_granularity": ("orchestration_form", "credit_granularity"),
    "category_x_verified": ("category", "verified"),
}
COUNTED_FIELDS = ["category", "is_rl", "reward_type", "credit_granularity", "orchestration_form",
                  "scenario", "is_core", "verified"]
EXCLUSION_FIELDS = ["stage", "source", "query_family"]


def totals(pool: pd.DataFrame, excluded: pd.DataFrame) -> dict[str, int]:
    """Headline totals: retained papers, excluded records, and all audited records."""
    return {"retained": len(pool), "excluded": len(excluded),
            "audited": len(pool) + len(excluded)}


def count(frame: pd.DataFrame, field: str, vocab: Vocabulary) -> pd.Series:
    """Rows per vocabulary value of ``field`` (vocabulary order, zeros kept)."""
    values = vocab.values(field)
    return frame[field].value_counts().reindex(values, fill_value=0).rename_axis(field).rename("n")


def counts(pool: pd.DataFrame, vocab: Vocabulary) -> dict[str, pd.Series]:
    return {field: count(pool, field, vocab) for field in vocab.names(paths.PAPERS)}


def crosstab(pool: pd.DataFrame, row: str, column: str, vocab: Vocabulary) -> pd.DataFrame:
    """Counts of ``row`` x ``column`` over the whole vocabulary grid (zeros kept)."""
    table = pd.crosstab(pool[row], pool[column])
    table = table.reindex(index=vocab.values(row), columns=vocab.values(column), fill_value=0)
    return table.rename_axis(index=row, columns=column).astype(int)


def crosstabs(pool: pd.DataFrame, vocab: Vocabulary) -> dict[str, pd.DataFrame]:
    return {name: crosstab(pool, r, c, vocab) for name, (r, c) in CROSSTABS.items()}


def exclusion_counts(excluded: pd.DataFrame, vocab: Vocabulary) -> dict[str, pd.Series]:
    return {field: count(excluded, field, vocab) for field in vocab.names(paths.EXCLUDED)}


def summary(pool: pd.DataFrame, excluded: pd.DataFrame, vocab: Vocabulary) -> dict:
    """Everything above as plain JSON-ready dicts (the shape of ``masrl stats --json``)."""
    return {
        "totals": totals(pool, excluded),
        "counts": {f: _ints(s) for f, s in counts(pool, vocab).items()},
        "crosstabs": {name: {r: _ints(row) for r, row in table.iterrows()}
                      for name, table in crosstabs(pool, vocab).items()},
        "excluded": {f: _ints(s) for f, s in exclusion_counts(excluded, vocab).items()},
    }


def _ints(series: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in series.items()}


def counts_table(counts_by_field: dict[str, pd.Series]) -> pd.DataFrame:
    """Several count series stacked into one long table: field, value, n."""
    return pd.concat(
        [series.rename_axis("value").reset_index().assign(field=field)
         for field, series in counts_by_field.items()],
        ignore_index=True,
    )[["field", "value", "n"]]
