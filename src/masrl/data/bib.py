"""Loader for ``data/papers.bib``: one BibTeX entry per pool row, keyed by the pool's keys.

Problems name the entry key as the row (``papers.bib:KEY:FIELD: message``); a block that does not
parse names its 1-based line and says why: the entry is not closed (unbalanced braces or quotes),
a new entry starts inside it, the key is missing, a field has no ``=``, a field or an entry key
is written twice. A ``url`` field, which the book's bibliography links, must be an http(s) URL.
The text is read by :func:`masrl.data.reading.read_text` (a regular file of
bounded size, UTF-8, no control characters). Only the fields of :data:`FIELDS` may appear: a
field outside it (``note = {pwned}`` smuggled in through a value) is a problem; so is a ``url``
that is none of the pool row's URLs.

Entries are written by bibtexparser's writer (:func:`entry_text`), never by joining strings:
each value is escaped first, plain text as LaTeX (:func:`latex_text`: braces, backslash and
the other special characters become commands, so the braces of a value always balance) and an
address as a URL (:func:`url_text`: characters that have no place in a URL are
percent-encoded), so no value can close its field and open another.
"""

from __future__ import annotations

import contextlib
import logging
import os
import urllib.parse

import bibtexparser
import pandas as pd
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    Field,
    ParsingFailedBlock,
)

from masrl import paths
from masrl.data import reading, tables
from masrl.data.problems import DataError, DataProblem

PathLike = str | os.PathLike | None
REQUIRED_FIELDS = ("title", "author", "year")
# every field an entry may hold: the ones the pool's entries use (a field outside this list is
# reported, so a value that smuggles in a field of its own does not pass unseen)
FIELDS = ("title", "author", "journal", "booktitle", "howpublished", "year", "volume", "number",
          "pages", "doi", "url", "eprint", "archiveprefix", "note")
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
        problems.extend(DataProblem(name, entry.key, field, "unbalanced braces: BibTeX counts "
                                    "every brace, \\{ and \\} included; write "
                                    "\\textbraceleft{} or \\textbraceright{}")
                        for field, value in fields.items() if not _balanced(value))
        problems.extend(DataProblem(name, entry.key, field, "not a field of the pool's entries ("
                                    f"{', '.join(FIELDS)}); a value may have broken out of its "
                                    "field")
                        for field in fields if field not in FIELDS)
        entries[entry.key] = {"ENTRYTYPE": entry.entry_type, **fields}

    pool_keys = [] if papers is None else list(papers["key"])
    urls = {} if papers is None else {
        key: [*cell.split(" ; "), *([f"https://arxiv.org/abs/{arxiv}"] if arxiv else [])]
        for key, cell, arxiv in zip(papers["key"], papers["url"], papers["arxiv_id"])}
    for key, fields in entries.items():
        if (key in urls and _URL.fullmatch(fields.get("url", ""))
                and not _same_url(fields["url"], urls[key])):
            problems.append(DataProblem(name, key, "url", f"{tables.quoted(fields['url'])} is "
                                        f"none of the URLs of the {paths.PAPERS} row (nor its "
                                        "arXiv page)"))
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


def _same_url(value: str, urls: list[str]) -> bool:
    """Whether a bib ``url`` is one of a pool row's URLs (percent-encoding aside)."""
    wanted = urllib.parse.unquote(value)
    return any(urllib.parse.unquote(url) == wanted for url in urls)


# --- writing -------------------------------------------------------------------------------

_LATEX = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
          "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "_": r"\_",
          "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_URL_SAFE = "-._~:/?#[]@!$&'()*+,;=%"  # RFC 3986's characters (and % of an escape already made)


def latex_text(text: str) -> str:
    """Plain text (a title, a name, a venue from a CSV cell) as a BibTeX value: every LaTeX
    special character as its command, so braces always balance and nothing ends the field; line
    breaks as spaces."""
    return "".join(_LATEX.get(c, c) for c in " ".join(text.split()))


def url_text(url: str) -> str:
    """An address as a BibTeX ``url`` value: characters that have no place in a URL (braces,
    backslash, quotes, spaces, non-ASCII) percent-encoded, so the value cannot end its field."""
    return urllib.parse.quote(url.strip(), safe=_URL_SAFE)


def entry_text(entry_type: str, key: str, fields: list[tuple[str, str]]) -> str:
    """One entry as BibTeX text, by bibtexparser's writer: ``fields`` are ``(name, value)``
    with values already escaped (:func:`latex_text`, :func:`url_text`); each value is put
    between braces, and a value whose braces do not balance is refused (a ``ValueError``)."""
    for name, value in fields:
        if not _balanced(value):
            raise ValueError(f"the {name} value {value!r} has unbalanced braces")
    library = bibtexparser.Library([Entry(entry_type, key, [Field(n, v) for n, v in fields])])
    layout = bibtexparser.BibtexFormat()
    layout.indent, layout.trailing_comma, layout.value_column = "  ", True, 0
    return bibtexparser.write_string(library, bibtex_format=layout)


def _balanced(value: str) -> bool:
    depth = 0
    for c in value:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0 and not value.endswith("\\")
