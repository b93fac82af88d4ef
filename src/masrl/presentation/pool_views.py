"""Presentation frames for the book: the pool as readers browse it.

Text from the data is always HTML-escaped here before it is placed in markup, so a title such as
``<script>alert(1)</script>`` is shown as text; only the link markup we build ourselves is HTML.
"""

from __future__ import annotations

import html

import pandas as pd


def link(url_cell: str, text: str) -> str:
    """An anchor to the first URL of a cell (cells may hold several, separated by ' ; ')."""
    url = url_cell.split(" ; ")[0]
    return (f'<a href="{html.escape(url, quote=True)}" rel="noopener">'
            f"{html.escape(text)}</a>")


def browse_frame(papers: pd.DataFrame, tags: list[str]) -> pd.DataFrame:
    """One row per paper: a linked, escaped title with its key, the year, the ``tags`` columns
    (the vocabulary's fields of ``papers.csv``), the venue."""
    frame = papers.copy()
    frame["paper"] = [
        f"{link(url, title)} <code>{html.escape(key)}</code>"
        for url, title, key in zip(frame["url"], frame["title"], frame["key"])
    ]
    frame["venue"] = frame["venue"].map(html.escape)
    return frame[["paper", "year", *tags, "venue"]].reset_index(drop=True)


def category_lists(papers: pd.DataFrame, order: list[str]) -> dict[str, pd.DataFrame]:
    """Per category (vocabulary order), the papers sorted by year then title, as small tables."""
    lists = {}
    for category in order:
        rows = papers[papers["category"] == category].sort_values(["year", "title"])
        lists[category] = rows[["key", "title", "first_author", "year", "venue"]].reset_index(drop=True)
    return lists
