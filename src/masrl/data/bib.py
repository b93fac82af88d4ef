"""Loader for ``data/papers.bib``: one BibTeX entry per pool row, keyed by the pool's keys.

Problems name the entry key as the row (``papers.bib:KEY:FIELD: message``); a block that does not
parse names its 1-based line.
"""

from __future__ import annotations

import os

import bibtexparser
import pandas as pd

from masrl import paths
from masrl.data.problems import DataError, DataProblem

PathLike = str | os.PathLike | None
REQUIRED_FIELDS = ("title", "author", "year")


def load_bibliography(data_dir: PathLike, papers: pd.DataFrame | None
                      ) -> dict[str, dict[str, str]]:
    """Entries as ``key -> {field: value}`` (plus ``ENTRYTYPE``), in file order, after checking
    that the keys are exactly the keys of ``papers`` (when given: a valid ``papers.csv``)."""
    name = paths.BIBTEX
    path = paths.data_file(name, data_dir)
    try:
        library = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError([DataProblem(name, "0", "-", "file not found")]) from None

    problems = [DataProblem(name, str(block.start_line + 1), "-",
                        f"entry does not parse: {block.error}")
                for block in library.failed_blocks]
    entries: dict[str, dict[str, str]] = {}
    for entry in library.entries:
        if entry.key in entries:
            problems.append(DataProblem(name, entry.key, "key", "duplicate entry key"))
            continue
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        for required in REQUIRED_FIELDS:
            if not fields.get(required, "").strip():
                problems.append(DataProblem(name, entry.key, required, "required field is missing"))
        entries[entry.key] = {"ENTRYTYPE": entry.entry_type, **fields}

    pool_keys = [] if papers is None else list(papers["key"])
    for key in entries if papers is not None else ():
        if key not in pool_keys:
            problems.append(DataProblem(name, key, "key", f"no row of {paths.PAPERS} has this key"))
    for key in pool_keys:
        if key not in entries:
            problems.append(DataProblem(paths.PAPERS, key, "key", f"no entry in {name} has this key"))
    if problems:
        raise DataError(problems)
    return entries
