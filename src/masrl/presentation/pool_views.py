"""Presentation frames for the book: the pool as readers browse it.

Text from the data is always escaped here before it is placed in markup
(:mod:`masrl.presentation.escaping`), so a title such as ``<script>alert(1)</script>`` or a
vocabulary value such as ``<img onerror=...>`` is shown as text; only the link markup we build
ourselves is HTML.
"""

from __future__ import annotations

import pandas as pd

from masrl.data import bib
from masrl.data.vocabulary import Field
from masrl.presentation.escaping import MarkdownText, html_text, markdown_code, markdown_text

BIBTEX = "BibTeX"  # the hidden column that holds each paper's entry, for the copy button
URL = "url"  # the hidden column of each paper's address(es), exported with the rows
WRAPPED = "masrl-wrap"  # the class of the columns whose text wraps (book/_static/masrl.css)


def link(url_cell: str, text: str) -> str:
    """An anchor to the first URL of a cell (cells may hold several, separated by ' ; ')."""
    url = url_cell.split(" ; ")[0]
    return f'<a href="{html_text(url)}" rel="noopener">{html_text(text)}</a>'


def bibtex_entry(key: str, fields: dict[str, str]) -> str:
    """One entry of ``data/papers.bib`` as BibTeX text (``Dataset.bibliography`` holds it as
    ``ENTRYTYPE`` and fields, values as written between the outer braces), by the library's
    writer (:func:`masrl.data.bib.entry_text`)."""
    return bib.entry_text(fields["ENTRYTYPE"], key,
                          [(name, value) for name, value in fields.items() if name != "ENTRYTYPE"])


def browse_frame(papers: pd.DataFrame, tags: list[str],
                 bibliography: dict[str, dict[str, str]] | None = None) -> pd.DataFrame:
    """One row per paper: the title linked to the paper, its key, the year, the ``tags``
    columns (the vocabulary's fields of ``papers.csv``), the venue and the URL cell as written
    (for downloads; :func:`explorer_options` hides it); with ``bibliography``, a last column
    :data:`BIBTEX` holding the paper's entry, escaped (hidden, and copied by a button). Every
    cell and every column name is HTML (escaped text, or our link), since the table is shown
    with HTML allowed."""
    frame = papers.copy()
    frame["title"] = [link(url, title) for url, title in zip(frame["url"], frame["title"])]
    for column in ["key", *tags, "venue", URL]:
        frame[column] = frame[column].map(html_text)
    columns = ["title", "key", "year", *tags, "venue", URL]
    if bibliography is not None:
        # newlines as character references: the cell holds one line, DOMParser restores them
        frame[BIBTEX] = [html_text(bibtex_entry(key, bibliography[key])).replace("\n", "&#10;")
                         for key in papers["key"]]
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


# The CSV's header is the row of column names: the header's second row holds the filters.
_NAMES_ONLY = """function (data) {
  data.headerStructure = data.headerStructure.slice(0, 1);
}"""


def explorer_options(frame: pd.DataFrame, allowed: dict[str, list[str]] | None = None) -> dict:
    """The itables options that make the pool table an explorer (everything runs in the page;
    nothing is fetched):

    * each column header has a sort button and, in a second header row, a filter: for the
      columns of ``allowed`` (a vocabulary field -> its values, in vocabulary order) a
      drop-down list of exactly those values to tick, for the others a text box;
    * a click selects a row; a button copies the selected paper's BibTeX entry (from the
      hidden :data:`BIBTEX` column);
    * another downloads, as CSV, every row that the search and filters leave, in their
      current order, whether or not a row is selected (selecting is for the BibTeX button):
      every column but the BibTeX one, so that ``title``, ``key`` and ``url`` each have their
      own, markup stripped;
    * a third shows or hides columns; the title and venue wrap (:data:`WRAPPED`), and a table
      wider than the page scrolls sideways inside its box.

    (itables is needed by the book only, so it is imported here.)"""
    from itables import JavascriptFunction

    allowed = allowed or {}
    names = list(frame.columns)
    hidden = [names.index(name) for name in (URL, BIBTEX) if name in names]

    def controls(second_row: list) -> list[dict]:
        return [{"target": 0, "content": ["order"]}, {"target": 1, "content": second_row}]

    column_defs = [
        {"targets": hidden, "visible": False},
        {"targets": [names.index(n) for n in ("title", "venue") if n in names],
         "className": WRAPPED},
    ]
    if BIBTEX in names:
        column_defs.append({"targets": names.index(BIBTEX), "searchable": False,
                            "name": BIBTEX})
    for name, values in allowed.items():
        if name in names:
            # the label is drawn as HTML; the value is what the search matches: the cell as
            # escaped, with no markup (its "filter" data)
            options = [{"label": html_text(value), "value": html_text(value)} for value in values]
            column_defs.append({"targets": names.index(name), "columnControl": controls(
                [[{"extend": "searchList", "options": options, "search": False}]])})
    buttons = [
        {"extend": "csvHtml5", "text": "Download the filtered rows (CSV)",
         "className": "masrl-download-csv", "filename": "masrl-pool-filtered",
         "exportOptions": {"columns": [k for k, name in enumerate(names) if name != BIBTEX],
                           "modifier": {"search": "applied", "order": "applied",
                                        "selected": None},
                           "customizeData": JavascriptFunction(_NAMES_ONLY)}},
        {"extend": "colvis", "text": "Show or hide columns", "className": "masrl-columns",
         "columns": [k for k in range(len(names)) if k not in hidden]},
    ]
    if BIBTEX in names:
        buttons.insert(0, {"extend": "selectedSingle",
                           "text": "Copy BibTeX of the selected paper",
                           "className": "masrl-copy-bibtex",
                           "action": JavascriptFunction(_COPY_BIBTEX % {"column": BIBTEX})})
    return {
        "select": {"style": "single", "info": "false"},
        "buttons": buttons,
        "columnControl": controls(["search"]),
        "ordering": {"indicators": False, "handler": False},
        "columnDefs": column_defs,
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
