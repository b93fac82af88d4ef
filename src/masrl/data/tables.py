"""Reading a CSV data file and validating it with a pandera schema, reporting problems as
``FILE:ROW:FIELD: message`` with ROW the file's own 1-based line number.

The checks themselves are declared in pandera schemas (``masrl.data.pool``); this module reads
the file faithfully (through :func:`masrl.data.reading.read_text`; every cell a string, ``NA``
kept as the literal vocabulary value), checks its shape (:func:`read_csv`), holds the checks the
schemas share (ASCII patterns, whole numbers in a range, calendar dates, one-line text) and turns
pandera's failure cases into our problem lines.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
from collections.abc import Callable

import pandas as pd
import pandera.pandas as pa

from masrl.data import reading
from masrl.data.problems import DataError, DataProblem
from masrl.data.vocabulary import Vocabulary

LINE = "_line"  # column holding each row's line number in its file
MAX_CELL = 10_000  # characters in one cell; the longest cell of our data has 259
FORMULA = ("=", "@", "+", "-")  # a cell starting so is a formula to a spreadsheet (CSV injection)
_NUMBER = re.compile(r"[+-][0-9.]*", re.ASCII)  # ...unless it is a plain signed number


def _formula(cell: str) -> bool:
    return cell[:1] in FORMULA and not _NUMBER.fullmatch(cell)

# Patterns shared by the CSV schemas (``fullmatch``ed against each cell).
KEY = r"[a-z0-9][a-z0-9-]*"  # a pool key
URL = r"https?://\S+"
URLS = rf"{URL}( ; {URL})*"  # one cell may hold several URLs, separated by " ; "


def read_csv(name: str, data_dir: str | os.PathLike | None) -> pd.DataFrame:
    """Every cell of data file ``name`` as a string; a ``_line`` column with the line on which
    each row starts. The text comes from :func:`masrl.data.reading.read_text` (a regular file of
    bounded size, UTF-8, no control characters); then the CSV itself must be well formed
    (quotes closed, RFC 4180 quoting), the header must name each column once, every row must
    have as many cells as the header, no cell may exceed :data:`MAX_CELL` characters, and none
    may start as a spreadsheet formula does (:data:`FORMULA`; a signed number such as ``+2025``
    is a number, left to the column's own check).
    Problems raise :class:`DataError` naming the line (and the column when there is one)."""
    text = reading.read_text(name, data_dir)
    try:
        records = _parse(text)
    except csv.Error as exc:
        line, reason = exc.args
        raise DataError([DataProblem(name, str(line), "-", f"not valid CSV: {reason}")]) from None
    if not records:
        raise DataError([DataProblem(name, "1", "-", "the file is empty; expected a header row")])
    (_, header), rows = records[0], records[1:]
    problems = [DataProblem(name, "1", column, "duplicate column name; each column is named once")
                for column in sorted({c for c in header if header.count(c) > 1})]
    if LINE in header:  # the name of our own column of line numbers
        problems.append(DataProblem(name, "1", LINE, "unknown column (not in the data card)"))
    kept, lines = [], []
    for start, record in rows:
        if len(record) != len(header):
            problems.append(DataProblem(name, str(start), "-",
                                        f"expected {len(header)} cells, found {len(record)}"))
            continue
        long = [(column, len(cell)) for column, cell in zip(header, record) if len(cell) > MAX_CELL]
        problems.extend(DataProblem(name, str(start), column,
                                    f"a cell of {size} characters; at most {MAX_CELL} are allowed")
                        for column, size in long)
        problems.extend(DataProblem(name, str(start), column,
                                    f"starts with {cell[0]!r}: a spreadsheet opening the file (or "
                                    "the book's CSV download) would run the cell as a formula; "
                                    "reword it")
                        for column, cell in zip(header, record) if _formula(cell))
        kept.append(record)
        lines.append(start)
    if problems:
        raise DataError(problems)
    frame = pd.DataFrame(kept, columns=header, dtype=str)
    frame[LINE] = lines
    return frame


def _parse(text: str) -> list[tuple[int, list[str]]]:
    """``(first line, cells)`` per record; ``csv.Error`` args become ``(line, reason)``.

    The csv module's limit on one cell (128 KiB by default, a process-wide setting) is lifted to
    the size of the text while it is parsed, so a long cell is reported by :func:`read_csv` with
    its line and column rather than raised as an error without either."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records, start = [], 1
    try:
        for record in reader:
            records.append((start, record))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise csv.Error(reader.line_num, str(exc)) from None
    finally:
        csv.field_size_limit(limit)
    return records


def isin(values: list[str], what: str) -> pa.Check:
    """Cells among ``values``; the message lists them (the empty value of an optional column is
    said by ``what``, "or empty", not listed as a blank item)."""
    listed = ", ".join(v for v in values if v)
    return pa.Check.isin(values, error=f"expected {what}: one of {listed}")


def pattern(text: str) -> re.Pattern:
    """A pattern of the data files, compiled once here for all of them: ASCII only, so ``\\d``
    is ``[0-9]`` and does not match other scripts' digits (``٣``, full-width ``３``) or ``²``."""
    return re.compile(text, re.ASCII)


def matches(regex: str, what: str, *, optional: bool = False) -> pa.Check:
    """Cells that :func:`pattern` ``regex`` matches in full (or empty, when ``optional``)."""
    compiled = pattern(regex)
    return pa.Check(
        lambda s: s.map(lambda v: (optional and v == "") or bool(compiled.fullmatch(v))),
        element_wise=False, error=f"expected {what}",
    )


def unique_when_present(what: str) -> pa.Check:
    """Non-empty values must not repeat (empty cells may)."""
    return pa.Check(lambda s: ~(s.duplicated(keep=False) & (s != "")), error=f"duplicate {what}")


_WHOLE = pattern(r"[0-9]+")


def in_range(low: int, high: int, what: str) -> pa.Check:
    """Whole numbers written in ASCII digits from ``low`` to ``high``: ``2020.5``, ``2e3``,
    ``+2020`` and ``٢٠٢٠`` are not years."""
    def whole_in_range(value: str) -> bool:
        return bool(_WHOLE.fullmatch(value)) and low <= int(value) <= high

    return pa.Check(lambda s: s.map(whole_in_range), element_wise=False,
                    error=f"expected {what} from {low} to {high}")


_DATE = pattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MONTH = pattern(r"[0-9]{4}-[0-9]{2}")


def is_date(value: str, *, month: bool = False) -> bool:
    """Whether ``value`` is a calendar date written ``YYYY-MM-DD`` (or a month ``YYYY-MM`` when
    ``month`` is allowed): ``2026-13-45`` and ``2026-02-30`` are not."""
    if month and _MONTH.fullmatch(value):
        value += "-01"
    if not _DATE.fullmatch(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def date(what: str, *, month: bool = False, optional: bool = False) -> pa.Check:
    """Cells holding a calendar date (see :func:`is_date`), or empty when ``optional``."""
    return pa.Check(lambda s: s.map(lambda v: (optional and v == "") or is_date(v, month=month)),
                    element_wise=False, error=f"expected {what}")


def validate(frame: pd.DataFrame, schema: pa.DataFrameSchema, file: str) -> list[DataProblem]:
    """Run the schema lazily (every failure, not the first) and translate the failures."""
    try:
        schema.validate(frame.drop(columns=[LINE]), lazy=True)
    except pa.errors.SchemaErrors as exc:
        return _translate(exc.failure_cases, frame, file)
    return []


def _translate(cases: pd.DataFrame, frame: pd.DataFrame, file: str) -> list[DataProblem]:
    problems = []
    line_of = dict(zip(frame.index, frame[LINE]))  # one lookup per case, not a pandas access
    for case in cases.to_dict("records"):
        check, column, value = str(case["check"]), case["column"], case["failure_case"]
        if check == "column_in_dataframe":
            problems.append(DataProblem(file, "1", str(value), "required column is missing"))
        elif check == "column_in_schema":
            problems.append(DataProblem(file, "1", str(value), "unknown column (not in the data card)"))
        elif case["index"] is None or pd.isna(case["index"]):
            problems.append(DataProblem(file, "-", str(column), f"check failed: {check}"))
        else:
            line = str(line_of[int(case["index"])])
            if check == "field_uniqueness":
                message = f"duplicate value {quoted(value)}; each {column} must be unique"
            elif check.startswith("duplicate "):
                message = f"{check} {quoted(value)}"
            else:
                message = f"{quoted(value)} is not valid: {check}"
            problems.append(DataProblem(file, line, str(column), message))
    return sorted(set(problems))


# --- column declarations shared by every CSV schema -------------------------------------------

def text(*checks: pa.Check, unique: bool = False) -> pa.Column:
    """A string column (every cell is read as a string; empty cells are ``""``)."""
    return pa.Column(str, checks=list(checks), unique=unique, nullable=False)


def tag(vocab: Vocabulary, field: str, *, optional: bool = False) -> pa.Column:
    """A column whose values come from one vocabulary field (empty allowed if ``optional``)."""
    values = vocab.values(field) + ([""] if optional else [])
    what = f"a {field} from the controlled vocabulary" + (" (or empty)" if optional else "")
    return text(isin(values, what))


def nonempty(what: str) -> pa.Check:
    """Text on one line that starts with a character other than a space."""
    return pa.Check(lambda s: s.map(_one_line), element_wise=False, error=f"expected {what}")


def _one_line(value: str) -> bool:
    return value != "" and not value[0].isspace() and "\n" not in value


def load_table(name: str, schema: pa.DataFrameSchema, data_dir: str | os.PathLike | None,
               extra_checks: Callable[[pd.DataFrame], list[DataProblem]] | None = None
               ) -> pd.DataFrame:
    """Read one CSV data file, validate it with its schema, then with ``extra_checks``
    (cross-file checks, run only when the columns are valid); raise :class:`DataError` listing
    every problem. The returned frame has one row per data row, in file order."""
    frame = read_csv(name, data_dir)
    problems = validate(frame, schema, name)
    if extra_checks is not None and not problems:
        problems = extra_checks(frame)
    if problems:
        raise DataError(problems)
    return frame.drop(columns=[LINE]).reset_index(drop=True)


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as dictionaries, as ``frame.to_dict("records")`` gives them, a few
    times faster on text columns (a column at a time, then the rows): 100,000 candidates are
    turned into rows in a second, not several."""
    columns = list(frame.columns)
    values = [frame[column].tolist() for column in columns]
    return [dict(zip(columns, row)) for row in zip(*values)]


def not_a_key(file: str, line: str, field: str, value: str, of: str) -> DataProblem:
    """The cross-file problem every loader reports: ``value`` is not a key of file ``of``."""
    return DataProblem(file, line, field, f"{quoted(value)} is not a key of {of}")


def quoted(value: object, limit: int = 80) -> str:
    """A cell as a problem quotes it: ``repr``, cut to about ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(str(value))} characters)"
