"""The book's one table style: a DataFrame, a caption and what each column holds, shown as a
table a reader can cite.

:func:`table` is the only way a chapter shows tabular data (``tables.table(frame, "Caption",
{"papers": "count", "share": "share"})`` as the last expression of a cell). The result renders as
HTML in the book and as aligned text in plain-text outputs (the notebook tests compare both), and
follows these rules:

* no row index unless it means something (``index=True`` shows the frame's index levels as the
  first columns, as row headers; repeated values of an outer level are written once);
* one header row, each header aligned like its column: text to the left, numbers to the right;
* every value formatted by what it is (:data:`KINDS`): counts and tokens with thousands
  separators, shares as percentages, seconds and other measurements to a fixed number of
  decimals, very small numbers as powers of ten, yes/no for booleans, lists as words,
  mappings as ``key: value`` pairs (never as raw ``{'...'}`` text);
* a missing value (``None``, ``NaN``, ``<NA>``) as an em dash;
* text never cut: a cell holds its whole value and wraps between words; a long name or id
  breaks only after its ``_``, ``/`` or ``.`` (:func:`masrl.presentation.escaping.breakable`),
  and a date or a short id not at all; a table wider than its column scrolls sideways inside its
  own box, never the page, and says so; on a phone it is shown row by row instead, each cell
  under its column's name (``data-label``; ``book/_static/masrl-tables.js``);
* a caption above the table (the book numbers it per chapter: ``book/_ext/numbering.py``);
* every text escaped (:func:`masrl.presentation.escaping.html_text`); only ``html`` columns,
  which hold markup built by presentation code from escaped text, are placed as they are.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from masrl.presentation.escaping import SHORT_TOKEN, breakable, html_text

if TYPE_CHECKING:  # pandas is imported by table() only: Table and formatted() work without it
    import pandas as pd

MISSING = "—"  # an em dash: the value does not exist or does not apply

KINDS = {
    "text": "text, left-aligned, wrapped, never cut",
    "code": "an identifier, key or path, in a monospaced font, wrapped anywhere",
    "count": "a whole number with thousands separators (1,234)",
    "tokens": "a number of tokens: a whole number with thousands separators",
    "share": "a fraction of one as a percentage with one decimal (0.983 -> 98.3%)",
    "percent": "a number that is already a percentage, with one decimal (12.5%)",
    "seconds": "a duration or a time in seconds, two decimals",
    "number": "a measurement: three decimals, trailing zeros dropped, tiny values as powers of "
              "ten; 'number:N' fixes N decimals",
    "flag": "a boolean as yes or no",
    "list": "a list as words (a, b and c)",
    "keys": "paper keys (a list, or text separated by commas), each linked to its entry in "
            "the bibliography",
    "html": "markup built by presentation code from escaped text, placed as it is",
}
# where a chapter page (notebooks/*.html) finds the bibliography; its entries' anchors are
# "cite-KEY" (bibtex_cite_id in _config.yml)
BIBLIOGRAPHY = "../book/bibliography.html"
# a table whose rows a narrow screen may show as cards (each cell with its column's name, in
# data-label): the report's stylesheet does, on a phone, rather than scroll a wide table
STACKED = "masrl-stacked"
NUMERIC = {"count", "tokens", "share", "percent", "seconds", "number"}
# A column of text as long as this (mean characters per cell) gets room of its own: "masrl-long"
# (a paragraph per row: reasons, summaries) or "masrl-medium" (a title), so that the browser's
# table layout gives the room to the long text rather than to the short columns beside it.
LONG_TEXT, MEDIUM_TEXT = 150, 35
# a cell kept on one line: a date (2026-05-14, 2026-05), or a single short word or id
_UNBROKEN = re.compile(rf"^(\d{{4}}-\d{{2}}(-\d{{2}})?|\S{{1,{SHORT_TOKEN}}})$")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def is_missing(value: Any) -> bool:
    """``None``, ``NaN``, ``pd.NA`` and ``NaT`` are missing; containers never are. (When
    pandas was never imported, no value can be one of its markers: it is not imported here.)"""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    pandas = sys.modules.get("pandas")
    return pandas is not None and (value is pandas.NA or value is pandas.NaT)


def words(items: list) -> str:
    """``a``, ``a and b``, ``a, b and c``; an em dash for no item."""
    items = [str(i) for i in items]
    if not items:
        return MISSING
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def plain_value(value: Any) -> str:
    """Any value as words, without code punctuation: a boolean as yes/no, a list as words, a
    mapping as ``key: value`` pairs separated by semicolons (underscores in keys as spaces)."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return "; ".join(f"{str(k).replace('_', ' ')}: {plain_value(v)}"
                         for k, v in value.items()) or MISSING
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        return words([plain_value(v) for v in value])
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}" if abs(int(value)) >= 10_000 else str(int(value))
    if isinstance(value, numbers.Real):
        return measurement(float(value))
    return str(value)


def measurement(value: float, decimals: int = 3) -> str:
    """A real number for reading: whole numbers as such (with thousands separators), else
    ``decimals`` decimals with trailing zeros dropped; a non-zero value that would show as 0
    as a power of ten (5.4 × 10⁻⁵)."""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if value != 0 and abs(value) < 0.5 * 10 ** -decimals:
        mantissa, exponent = f"{value:.1e}".split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    text = f"{value:,.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def formatted(value: Any, kind: str) -> str:
    """One value as the reader sees it, by the column's ``kind`` (:data:`KINDS`). Plain text:
    escaping is the caller's business."""
    if is_missing(value):
        return MISSING
    base, _, digits = kind.partition(":")
    if base in {"count", "tokens"} and isinstance(value, numbers.Real) \
            and not isinstance(value, (bool, np.bool_)):
        return f"{round(float(value)):,}"
    if base == "share" and isinstance(value, numbers.Real):
        return f"{100 * float(value):.1f}%"
    if base == "percent" and isinstance(value, numbers.Real):
        return f"{float(value):.1f}%"
    if base == "seconds" and isinstance(value, numbers.Real):
        return f"{float(value):,.2f}"
    if base == "number" and isinstance(value, numbers.Real) \
            and not isinstance(value, (bool, np.bool_)):
        if digits:
            number, places = float(value) + 0.0, int(digits)  # + 0.0: no "-0.00"
            if number != 0 and abs(number) < 0.5 * 10 ** -places:  # not a zero: never "0.00"
                return measurement(number, places)
            return f"{number:,.{places}f}"
        return measurement(float(value))
    if base == "flag" and isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if base == "keys":
        return ", ".join(paper_keys(value)) or MISSING
    return plain_value(value)


def paper_keys(value: Any) -> list[str]:
    """The paper keys of a cell: a list as it is, text split at commas (and 'and')."""
    if is_missing(value):
        return []
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        return [str(v) for v in value]
    parts = str(value).replace(" and ", ", ").replace(";", ",").split(",")
    return [p.strip() for p in parts if p.strip()]


def cite_html(key: str) -> str:
    """A paper key as a link to its bibliography entry (escaped)."""
    return (f'<a class="masrl-cite" href="{BIBLIOGRAPHY}#cite-{html_text(key)}">'
            f"<code>{html_text(key)}</code></a>")


def cite_text_html(text: str, keys: set[str] | frozenset[str]) -> str:
    """``text`` escaped, with every whole-word occurrence of a paper key of ``keys`` linked to
    its bibliography entry (:func:`cite_html`)."""
    escaped = html_text(text)
    wanted = sorted((k for k in keys if k and html_text(k) == k), key=len, reverse=True)
    if not wanted:
        return escaped
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, wanted)) + r")(?![\w-])")
    return pattern.sub(lambda found: cite_html(found.group(1)), escaped)


def infer_kind(column: pd.Series) -> str:
    """The kind of a column whose caller named none: booleans are flags, integers counts, other
    numbers measurements, the rest text."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(column.dtype):
        return "flag"
    if pd.api.types.is_integer_dtype(column.dtype):
        return "count"
    if pd.api.types.is_float_dtype(column.dtype):
        finite = column.dropna()
        return "count" if len(finite) and all(float(v).is_integer() for v in finite) \
            else "number"
    if isinstance(column.dtype, pd.StringDtype):
        return "text"
    values = [v for v in column if not is_missing(v)]
    if values and all(isinstance(v, (bool, np.bool_)) for v in values):
        return "flag"
    if values and all(isinstance(v, numbers.Real) for v in values):
        return "count" if all(float(v).is_integer() for v in values) else "number"
    return "text"


class Table:
    """A formatted table: the rows of strings a reader sees, the kind of each column, its
    caption. ``_repr_html_`` is the book's form; ``repr`` the aligned plain-text form."""

    def __init__(self, header: list[str], kinds: list[str], rows: list[list[str]],
                 caption: str, row_headers: int = 0, notes: str | None = None,
                 classes: str = ""):
        self.header, self.kinds, self.rows = header, kinds, rows
        self.caption, self.row_headers = caption, row_headers
        self.notes, self.classes = notes, classes

    @property
    def columns(self) -> list[str]:
        return self.header

    def cells(self, column: str) -> list[str]:
        """The shown values of one column, top to bottom (for tests and callers)."""
        at = self.header.index(column)
        return [row[at] for row in self.rows]

    def _align(self, at: int) -> str:
        kind = self.kinds[at].partition(":")[0]
        return "masrl-num" if kind in NUMERIC else f"masrl-{kind}"

    def _length(self, at: int) -> str | None:
        """``masrl-long`` or ``masrl-medium`` for a column of long text (see :data:`LONG_TEXT`)."""
        kind = self.kinds[at].partition(":")[0]
        if kind not in {"text", "list", "keys", "html"} or not self.rows:
            return None
        shown = [_strip_markup(row[at]) if kind == "html" else row[at] for row in self.rows]
        mean = sum(len(text) for text in shown) / len(shown)
        return "masrl-long" if mean >= LONG_TEXT else "masrl-medium" if mean >= MEDIUM_TEXT \
            else None

    def _cell(self, at: int, text: str, tag: str) -> str:
        kind = self.kinds[at].partition(":")[0]
        classes = [self._align(at)]
        if (length := self._lengths[at]) is not None:
            classes.append(length)
        if text == MISSING:
            classes.append("masrl-missing")
            body = f'<span title="not available">{MISSING}</span>'
        elif kind == "html":
            body = breakable(text)  # markup built by presentation code; its text may break
        elif kind == "code":
            body = f"<code>{breakable(html_text(text))}</code>"
        elif kind == "keys":
            body = ", ".join(cite_html(key) for key in paper_keys(text))
        else:
            body = breakable(html_text(text))
        if kind not in NUMERIC and kind != "html" and _UNBROKEN.match(text):
            classes.append("masrl-nowrap")
        scope = ' scope="row"' if tag == "th" else ""
        label = f' data-label="{html_text(self.header[at])}"' if tag == "td" else ""
        return f'<{tag} class="{" ".join(classes)}"{scope}{label}>{body}</{tag}>'

    def _repr_html_(self) -> str:
        self._lengths = [self._length(at) for at in range(len(self.header))]
        head = "".join(f'<th class="{" ".join(filter(None, [self._align(at), self._lengths[at]]))}"'
                       f' scope="col">{breakable(html_text(name))}</th>'
                       for at, name in enumerate(self.header))
        body = []
        for row in self.rows:
            cells = "".join(self._cell(at, text, "th" if at < self.row_headers else "td")
                            for at, text in enumerate(row))
            body.append(f"<tr>{cells}</tr>")
        notes = (f'<p class="masrl-table-notes">{html_text(self.notes)}</p>'
                 if self.notes else "")
        long = ["masrl-has-long"] if any(self._lengths) else []
        classes = " ".join(["masrl-table", *long, *self.classes.split()])
        return (f'<div class="masrl-table-wrap"><table class="{classes}">'
                f'<caption class="masrl-caption">{html_text(self.caption)}</caption>'
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
                f"{notes}</div>")

    def __repr__(self) -> str:
        shown = [[_strip_markup(c) if self.kinds[at] == "html" else c
                  for at, c in enumerate(row)] for row in self.rows]
        widths = [max([len(h), *(len(row[at]) for row in shown)])
                  for at, h in enumerate(self.header)]

        def line(cells: list[str]) -> str:
            return "  ".join(c.rjust(w) if self.kinds[at].partition(":")[0] in NUMERIC
                             else c.ljust(w)
                             for at, (c, w) in enumerate(zip(cells, widths))).rstrip()

        lines = [self.caption, line(self.header), line(["-" * w for w in widths]),
                 *(line(row) for row in shown)]
        if self.notes:
            lines.append(self.notes)
        return "\n".join(lines)


def _strip_markup(text: str) -> str:
    import html
    import re
    return html.unescape(re.sub(r"<[^>]*>", "", text))


def table(frame: pd.DataFrame, caption: str, kinds: Mapping[str, str] | None = None, *,
          index: bool = False, notes: str | None = None, classes: str = "") -> Table:
    """``frame`` in the book's table style (see the module docstring).

    ``caption`` says what the table shows (plain text). ``kinds`` maps a column (or, with
    ``index=True``, an index level) to one of :data:`KINDS`; a column left out gets
    :func:`infer_kind`. ``index=True`` shows the index levels as the first columns, named by
    the levels' names; by default the index is dropped. ``notes`` is a line under the table
    (what a dash means, where the numbers come from). ``classes`` adds CSS classes.
    """
    import pandas as pd

    kinds = dict(kinds or {})
    unknown = {k.partition(":")[0] for k in kinds.values()} - set(KINDS)
    if unknown:
        raise ValueError(f"unknown column kinds {sorted(unknown)}; known: {sorted(KINDS)}")
    data = frame
    row_headers = 0
    if index:
        names = [str(n) if n is not None else ("" if frame.index.nlevels == 1 else f"level {i}")
                 for i, n in enumerate(frame.index.names)]
        row_headers = len(names)
        data = frame.reset_index(names=names)
    if isinstance(data.columns, pd.MultiIndex):
        data = data.copy()
        data.columns = [" ".join(str(p) for p in col if str(p)) for col in data.columns]
    header = [str(c) for c in data.columns]
    missing = set(kinds) - set(header)
    if missing:
        raise ValueError(f"kinds name columns the table does not have: {sorted(missing)}")
    column_kinds = [kinds.get(name) or infer_kind(data.iloc[:, at])
                    for at, name in enumerate(header)]
    rows = [[formatted(value, column_kinds[at]) for at, value in enumerate(values)]
            for values in data.itertuples(index=False, name=None)]
    # an outer index level is written once per run of equal values
    keys = [tuple(row[: max(row_headers - 1, 0)]) for row in rows]
    for at in range(1, len(rows)):
        for level in range(max(row_headers - 1, 0)):
            if keys[at][: level + 1] == keys[at - 1][: level + 1]:
                rows[at][level] = ""
    return Table(header, column_kinds, rows, caption, row_headers, notes, classes)
