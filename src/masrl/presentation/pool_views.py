"""Presentation frames for the book: the pool as readers browse it.

Text from the data is always escaped here before it is placed in markup
(:mod:`masrl.presentation.escaping`), so a title such as ``<script>alert(1)</script>`` or a
vocabulary value such as ``<img onerror=...>`` is shown as text; only the link markup we build
ourselves is HTML.
"""

from __future__ import annotations

import pandas as pd

from masrl.data.vocabulary import Field
from masrl.presentation.escaping import MarkdownText, html_text, markdown_code, markdown_text


def link(url_cell: str, text: str) -> str:
    """An anchor to the first URL of a cell (cells may hold several, separated by ' ; ')."""
    url = url_cell.split(" ; ")[0]
    return f'<a href="{html_text(url)}" rel="noopener">{html_text(text)}</a>'


def browse_frame(papers: pd.DataFrame, tags: list[str]) -> pd.DataFrame:
    """One row per paper: a linked, escaped title with its key, the year, the ``tags`` columns
    (the vocabulary's fields of ``papers.csv``), the venue. Every cell and every column name is
    HTML (escaped text, or our link), since the table is shown with HTML allowed."""
    frame = papers.copy()
    frame["paper"] = [
        f"{link(url, title)} <code>{html_text(key)}</code>"
        for url, title, key in zip(frame["url"], frame["title"], frame["key"])
    ]
    for column in [*tags, "venue"]:
        frame[column] = frame[column].map(html_text)
    frame = frame[["paper", "year", *tags, "venue"]].reset_index(drop=True)
    return frame.rename(columns=html_text)


def category_heading(field: Field, value: str, papers: int) -> MarkdownText:
    """The heading of one category's list: its meaning, the value as code, the number of
    papers (every data text escaped)."""
    return MarkdownText(f"### {markdown_text(field.meanings[value])} ({markdown_code(value)}, "
                        f"{papers})")


def category_lists(papers: pd.DataFrame, order: list[str]) -> dict[str, pd.DataFrame]:
    """Per category (vocabulary order), the papers sorted by year then title, as small tables."""
    lists = {}
    for category in order:
        rows = papers[papers["category"] == category].sort_values(["year", "title"])
        lists[category] = rows[["key", "title", "first_author", "year", "venue"]].reset_index(drop=True)
    return lists
