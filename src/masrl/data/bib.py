"""Loader for ``data/papers.bib``: one BibTeX entry per pool row, keyed by the pool's keys.

Problems name the entry key as the row (``papers.bib:KEY:FIELD: message``); a block that does not
parse names its 1-based line and says why: the entry is not closed (unbalanced braces or quotes),
a new entry starts inside it, the key is missing, a field has no ``=``, a field or an entry key
is written twice. A ``url`` field, which the book's bibliography links, must be an http(s) URL.
The text is read by :func:`masrl.data.reading.read_text` (a regular file of
bounded size, UTF-8, no control characters).
"""

from __future__ import annotations

import contextlib
import logging
import os

import bibtexparser
import pandas as pd
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, ParsingFailedBlock

from masrl import paths
from masrl.data import reading, tables
from masrl.data.problems import DataError, DataProblem

PathLike = str | os.PathLike | None
REQUIRED_FIELDS = ("title", "author", "year")
_URL = tables.pattern(tables.URL)  # the bibliography page links it: never javascript: or data:

# bibtexparser's reasons (``abort_reason``), in words that say what is wrong with the file.
_REASONS = {
    "Unexpectedly reached end of file.":
        "the entry is not closed: unbalanced braces or quotes (the file ends inside it)",
    "Expected comma after entry key, but found =":
        "the entry has no key: write @type{key, field = {value}, ...}",
}


def load_bibliography(data_dir: PathLike, papers: pd.DataFrame | None
                      ) -> dict[str, dict[str, str]]:
    """Entries as ``key -> {field: value}`` (plus ``ENTRYTYPE``), in file order, after checking
    that the keys are exactly the keys of ``papers`` (when given: a valid ``papers.csv``)."""
    name = paths.BIBTEX
    text = reading.read_text(name, data_dir)
    with _quiet(logging.getLogger("bibtexparser")):
        library = bibtexparser.parse_string(text)

    problems = [failed_block_problem(name, block) for block in library.failed_blocks]
    if not library.entries and not problems:
        problems.append(DataProblem(name, "1", "-", "no BibTeX entry in the file"))
    entries: dict[str, dict[str, str]] = {}
    for entry in library.entries:
        if not entry.key:
            problems.append(DataProblem(name, str(entry.start_line + 1), "key",
                                        "the entry has no key"))
            continue
        if entry.key in entries:
            problems.append(DataProblem(name, entry.key, "key", "duplicate entry key"))
            continue
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        for required in REQUIRED_FIELDS:
            if not fields.get(required, "").strip():
                problems.append(DataProblem(name, entry.key, required, "required field is missing"))
        if "url" in fields and not _URL.fullmatch(fields["url"]):
            problems.append(DataProblem(name, entry.key, "url",
                                        f"{fields['url']!r} is not an http(s) URL"))
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


def failed_block_problem(name: str, block: ParsingFailedBlock) -> DataProblem:
    """What is wrong with a block bibtexparser could not take, in words (its exceptions often
    carry no message of their own)."""
    if isinstance(block, DuplicateBlockKeyBlock):
        return DataProblem(name, block.key, "key", "duplicate entry key")
    if isinstance(block, DuplicateFieldKeyBlock):
        entry = block.ignore_error_block
        return DataProblem(name, entry.key or str(block.start_line + 1),
                           ", ".join(sorted(block.duplicate_keys)),
                           "field written twice in the entry; write each field once")
    line = str(block.start_line + 1)
    reason = getattr(block.error, "abort_reason", None) or str(block.error)
    if reason.startswith("Unexpected block start"):
        reason = ("a new entry starts before this one is closed: unbalanced braces or quotes "
                  f"({reason.strip()})")
    elif reason.startswith("Expected a `=` after entry key"):
        reason = f"a field name is not followed by `=` ({reason.strip()})"
    reason = _REASONS.get(reason, reason) or type(block.error).__name__
    return DataProblem(name, line, "-", f"entry does not parse: {reason}")


@contextlib.contextmanager
def _quiet(logger: logging.Logger):
    """Silence ``logger`` and its children for a while: bibtexparser logs every failed block,
    which we report ourselves."""
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)
