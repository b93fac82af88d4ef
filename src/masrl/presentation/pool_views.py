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

BIBTEX = "BibTeX"  # the hidden column that holds each paper's entry, for the copy button


def link(url_cell: str, text: str) -> str:
    """An anchor to the first URL of a cell (cells may hold several, separated by ' ; ')."""
    url = url_cell.split(" ; ")[0]
    return f'<a href="{html_text(url)}" rel="noopener">{html_text(text)}</a>'


def bibtex_entry(key: str, fields: dict[str, str]) -> str:
    """One entry of ``data/papers.bib`` as BibTeX text (``Dataset.bibliography`` holds it as
    ``ENTRYTYPE`` and fields, values as written between the outer braces)."""
    body = "".join(f"  {name} = {{{value}}},\n" for name, value in fields.items()
                   if name != "ENTRYTYPE")
    return f"@{fields['ENTRYTYPE']}{{{key},\n{body}}}\n"


def browse_frame(papers: pd.DataFrame, tags: list[str],
                 bibliography: dict[str, dict[str, str]] | None = None) -> pd.DataFrame:
    """One row per paper: a linked, escaped title with its key, the year, the ``tags`` columns
    (the vocabulary's fields of ``papers.csv``), the venue; with ``bibliography``, a last column
    :data:`BIBTEX` holding the paper's entry, escaped (:func:`explorer_options` hides it and
    copies it). Every cell and every column name is HTML (escaped text, or our link), since the
    table is shown with HTML allowed."""
    frame = papers.copy()
    frame["paper"] = [
        f"{link(url, title)} <code>{html_text(key)}</code>"
        for url, title, key in zip(frame["url"], frame["title"], frame["key"])
    ]
    for column in [*tags, "venue"]:
        frame[column] = frame[column].map(html_text)
    columns = ["paper", "year", *tags, "venue"]
    if bibliography is not None:
        # newlines as character references: the cell holds one line, DOMParser restores them
        frame[BIBTEX] = [html_text(bibtex_entry(key, bibliography[key])).replace("\n", "&#10;")
                         for key in frame["key"]]
        columns.append(BIBTEX)
    return frame[columns].reset_index(drop=True).rename(columns=html_text)


# The copy button's action (DataTables Buttons): the selected row's hidden BibTeX cell holds
# escaped text; DOMParser turns it back into the text (it runs no script), which goes to the
# clipboard, and a short message says which entry was copied.
_COPY_BIBTEX = """function (e, dt, node, config) {
  var row = dt.row({selected: true});
  if (!row.any()) { dt.buttons.info("BibTeX", "Select a paper first.", 2000); return; }
  var cell = row.data()[dt.column("%(column)s:name").index()];
  var text = new DOMParser().parseFromString(cell, "text/html").documentElement.textContent;
  var key = (text.match(/^@\\w+\\{([^,]+),/) || [null, "the entry"])[1];
  var done = function () { dt.buttons.info("BibTeX copied", key, 2000); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done);
  } else {
    var area = document.createElement("textarea");
    area.value = text; document.body.appendChild(area); area.select();
    document.execCommand("copy"); area.remove(); done();
  }
}"""


# A column's name in the CSV header: the header cell holds the column's filter box, whose
# placeholder is the column's name.
_HEADER = """function (data, column, node) {
  var box = node && node.querySelector ? node.querySelector("input") : null;
  return box ? box.getAttribute("placeholder") : String(data).replace(/<[^>]*>/g, "");
}"""


def explorer_options(frame: pd.DataFrame) -> dict:
    """The itables options that make the pool table an explorer: a row is selected by a click;
    a button copies the selected paper's BibTeX entry (from the hidden :data:`BIBTEX` column);
    another downloads the rows that the search and filters leave, in their current order, as
    CSV (visible columns, markup stripped). Everything runs in the page; nothing is fetched.
    (itables is needed by the book only, so it is imported here.)"""
    from itables import JavascriptFunction

    bibtex = list(frame.columns).index(BIBTEX)
    return {
        "select": {"style": "single", "info": "false"},
        "buttons": [
            {"extend": "selectedSingle", "text": "Copy BibTeX of the selected paper",
             "className": "masrl-copy-bibtex",
             "action": JavascriptFunction(_COPY_BIBTEX % {"column": BIBTEX})},
            {"extend": "csvHtml5", "text": "Download the filtered rows (CSV)",
             "className": "masrl-download-csv", "filename": "masrl-pool-filtered",
             "exportOptions": {"columns": ":visible",
                               "modifier": {"search": "applied", "order": "applied"},
                               "format": {"header": JavascriptFunction(_HEADER)}}},
        ],
        "columnDefs": [{"targets": bibtex, "visible": False, "searchable": False,
                        "name": BIBTEX}],
        "layout": {"topStart": "buttons", "topEnd": "search", "bottomStart": "info",
                   "bottomEnd": "paging", "top2Start": "pageLength"},
    }


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
