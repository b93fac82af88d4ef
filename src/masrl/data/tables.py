"""Reading a CSV data file and validating it with a pandera schema, reporting problems as
``FILE:ROW:FIELD: message`` with ROW the file's own 1-based line number.

The checks themselves are declared in pandera schemas (``masrl.data.pool``); this module only reads
the file faithfully (every cell a string, ``NA`` kept as the literal vocabulary value) and turns
pandera's failure cases into our problem lines.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data.problems import DataError, DataProblem
from masrl.data.vocabulary import Vocabulary

LINE = "_line"  # column holding each row's line number in its file

# Patterns shared by the CSV schemas (``fullmatch``ed against each cell).
KEY = r"[a-z0-9][a-z0-9-]*"  # a pool key
URL = r"https?://\S+"
URLS = rf"{URL}( ; {URL})*"  # one cell may hold several URLs, separated by " ; "


def read_csv(path: Path) -> pd.DataFrame:
    """Every cell as a string; a ``_line`` column with the line on which each row starts."""
    try:
        handle = path.open(newline="", encoding="utf-8")
    except FileNotFoundError:
        raise DataError([DataProblem(path.name, "0", "-", "file not found")]) from None
    with handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DataError([DataProblem(path.name, "1", "-", "the file is empty; expected a header row")])
        rows, lines, problems = [], [], []
        start = reader.line_num + 1
        for record in reader:
            if len(record) != len(header):
                problems.append(DataProblem(path.name, str(start), "-",
                                        f"expected {len(header)} cells, found {len(record)}"))
            else:
                rows.append(record)
                lines.append(start)
            start = reader.line_num + 1
    if problems:
        raise DataError(problems)
    frame = pd.DataFrame(rows, columns=header, dtype=str)
    frame[LINE] = lines
    return frame


def isin(values: list[str], what: str) -> pa.Check:
    return pa.Check.isin(values, error=f"expected {what}: one of {', '.join(values)}")


def matches(pattern: str, what: str, *, optional: bool = False) -> pa.Check:
    regex = re.compile(pattern)
    return pa.Check(
        lambda s: s.map(lambda v: (optional and v == "") or bool(regex.fullmatch(v))),
        element_wise=False, error=f"expected {what}",
    )


def unique_when_present(what: str) -> pa.Check:
    """Non-empty values must not repeat (empty cells may)."""
    return pa.Check(lambda s: ~(s.duplicated(keep=False) & (s != "")), error=f"duplicate {what}")


def in_range(low: int, high: int, what: str) -> pa.Check:
    return pa.Check(lambda s: pd.to_numeric(s, errors="coerce").between(low, high),
                    error=f"expected {what} from {low} to {high}")


def validate(frame: pd.DataFrame, schema: pa.DataFrameSchema, file: str) -> list[DataProblem]:
    """Run the schema lazily (every failure, not the first) and translate the failures."""
    try:
        schema.validate(frame.drop(columns=[LINE]), lazy=True)
    except pa.errors.SchemaErrors as exc:
        return _translate(exc.failure_cases, frame, file)
    return []


def _translate(cases: pd.DataFrame, frame: pd.DataFrame, file: str) -> list[DataProblem]:
    problems = []
    for case in cases.to_dict("records"):
        check, column, value = str(case["check"]), case["column"], case["failure_case"]
        if check == "column_in_dataframe":
            problems.append(DataProblem(file, "1", str(value), "required column is missing"))
        elif check == "column_in_schema":
            problems.append(DataProblem(file, "1", str(value), "unknown column (not in the data card)"))
        elif case["index"] is None or pd.isna(case["index"]):
            problems.append(DataProblem(file, "-", str(column), f"check failed: {check}"))
        else:
            line = str(frame.at[int(case["index"]), LINE])
            if check == "field_uniqueness":
                message = f"duplicate value {value!r}; each {column} must be unique"
            elif check.startswith("duplicate "):
                message = f"{check} {value!r}"
            else:
                message = f"{value!r} is not valid: {check}"
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
    return matches(r"\S.*", what)


def load_table(name: str, schema: pa.DataFrameSchema, data_dir: str | os.PathLike | None,
               extra_checks: Callable[[pd.DataFrame], list[DataProblem]] | None = None
               ) -> pd.DataFrame:
    """Read one CSV data file, validate it with its schema, then with ``extra_checks``
    (cross-file checks, run only when the columns are valid); raise :class:`DataError` listing
    every problem. The returned frame has one row per data row, in file order."""
    frame = read_csv(paths.data_file(name, data_dir))
    problems = validate(frame, schema, name)
    if extra_checks is not None and not problems:
        problems = extra_checks(frame)
    if problems:
        raise DataError(problems)
    return frame.drop(columns=[LINE]).reset_index(drop=True)


def not_a_key(file: str, line: str, field: str, value: str, of: str) -> DataProblem:
    """The cross-file problem every loader reports: ``value`` is not a key of file ``of``."""
    return DataProblem(file, line, field, f"{value!r} is not a key of {of}")
