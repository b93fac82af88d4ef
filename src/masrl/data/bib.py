"""Loader for ``data/papers.bib``: one BibTeX entry per pool row, keyed by the pool's keys.

Problems name the entry key as the row (``papers.bib:KEY:FIELD: message``); a block that does not
parse names its 1-based line.
"""

from __future__ import annotations

import os

import bibtexparser

from masrl import paths
from masrl.data.problems import DataError, Problem

PathLike = str | os.PathLike | None
REQUIRED_FIELDS = ("title", "author", "year")


def load_bibliography(data_dir: PathLike = None) -> dict[str, dict[str, str]]:
    """Entries as ``key -> {field: value}`` (plus ``ENTRYTYPE``), in file order, after checking
    that the keys are exactly the pool's keys."""
    from masrl.data.pool import load_pool

    name = paths.BIBTEX
    path = paths.data_file(name, data_dir)
    try:
        library = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError([Problem(name, "0", "-", "file not found")]) from None

    problems = [Problem(name, str(block.start_line + 1), "-",
                        f"entry does not parse: {block.error}")
                for block in library.failed_blocks]
    entries: dict[str, dict[str, str]] = {}
    for entry in library.entries:
        if entry.key in entries:
            problems.append(Problem(name, entry.key, "key", "duplicate entry key"))
            continue
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        for required in REQUIRED_FIELDS:
            if not fields.get(required, "").strip():
                problems.append(Problem(name, entry.key, required, "required field is missing"))
        entries[entry.key] = {"ENTRYTYPE": entry.entry_type, **fields}

    pool_keys = list(load_pool(data_dir)["key"])
    for key in entries:
        if key not in pool_keys:
            problems.append(Problem(name, key, "key", f"no row of {paths.PAPERS} has this key"))
    for key in pool_keys:
        if key not in entries:
            problems.append(Problem(paths.PAPERS, key, "key", f"no entry in {name} has this key"))
    if problems:
        raise DataError(problems)
    return entries
