"""The data dictionary as readers see it: one section per vocabulary field (its label, name,
description and columns, then its values with their meanings), every data text escaped
(:mod:`masrl.presentation.escaping`)."""

from __future__ import annotations

import pandas as pd

from masrl.presentation.escaping import MarkdownText, markdown_code, markdown_text


def field_heading(entry: dict) -> MarkdownText:
    """A section heading and paragraph for one entry of
    :func:`masrl.data.vocabulary.dictionary`: label (name), description, columns and file."""
    columns = ", ".join(markdown_code(c) for c in entry["columns"])
    noun = "Column" if len(entry["columns"]) == 1 else "Columns"
    return MarkdownText(
        f"### {markdown_text(entry['label'])} ({markdown_code(entry['field'])})\n\n"
        f"{markdown_text(entry['description'])} {noun} {columns} of "
        f"{markdown_code('data/' + entry['file'])}.")


def values_table(entry: dict) -> pd.DataFrame:
    """The values of one field, how the book shows each (its label, ``data/vocabulary.yaml``)
    and what each means (a DataFrame: shown as escaped HTML)."""
    return (pd.DataFrame(entry["values"], columns=["value", "label", "meaning"])
            .rename(columns={"label": "shown as"}))
