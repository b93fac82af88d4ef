"""Reference lists exported by the tools people search with, read into one shape
(:class:`Reference`) for ``masrl intake --from FILE``.

Three formats, each read by a well-kept library, recognised by the file's suffix or else its
first characters (:func:`detect`):

* **RIS** (``.ris``; Zotero, EndNote, Mendeley, most databases), read by ``rispy``. Zotero's
  quirks are understood: a date written ``2026/05/14/``, an arXiv preprint known by its arXiv
  DOI (``10.48550/arXiv.NNNN.NNNNN``), its URL or an ``arXiv:NNNN.NNNNN`` note;
* **BibTeX** (``.bib``; Zotero, Google Scholar, arXiv's "Export BibTeX"), read by
  ``bibtexparser``: ``eprint`` with ``archivePrefix = {arXiv}``, ``doi``, ``url``;
* **CSV** (``.csv``; Zotero's CSV export, or any table with a ``title`` column), read by the
  standard library: Zotero's column names (``Title``, ``Author``, ``Publication Year``,
  ``Date``, ``DOI``, ``Url``, ``Publication Title``) or lower-case ones (``title``,
  ``authors``, ``year``, ``date``, ``doi``, ``url``, ``arxiv_id``, ``venue``).

A record's first public date keeps the precision the file gives (a day, a month or a year;
:mod:`masrl.data.dates`); for an arXiv id without a date, the month its identifier encodes.
An entry without a title, or a file that is none of the three, is a :class:`ReferenceError`
naming the file and the entry, in one line.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from masrl import files
from masrl.data import identity

FORMATS = ("ris", "bibtex", "csv")
SUFFIXES = {".ris": "ris", ".bib": "bibtex", ".bibtex": "bibtex", ".csv": "csv"}


class ReferenceError(ValueError):
    """An export that cannot be read: ``FILE: entry N: why`` (a usage error for the command)."""


@dataclass(frozen=True)
class Reference:
    """One exported record, in the candidates' terms."""

    entry: int  # 1-based position in the file
    title: str
    first_author: str  # "Family, Given" (or an organisation), "" when none is given
    year: str
    first_public: str  # YYYY-MM-DD, YYYY-MM or YYYY; "" unknown
    identifier: str  # arXiv:ID, doi:DOI, or "" (then the URL identifies it)
    url: str
    venue: str

    @property
    def arxiv_id(self) -> str:
        found = sorted(identity.arxiv_ids(self.identifier, self.url))
        return found[0] if found else ""


def detect(path: str | os.PathLike, text: str) -> str:
    """``ris``, ``bibtex`` or ``csv``: by the suffix, else by the first non-blank characters."""
    suffix = Path(path).suffix.lower()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    start = text.lstrip("\ufeff \t\r\n")
    if re.match(r"TY {2}- ", start):
        return "ris"
    if start.startswith("@"):
        return "bibtex"
    if start and "," in start.splitlines()[0]:
        return "csv"
    raise ReferenceError(f"{path}: not a RIS, BibTeX or CSV export (name it .ris, .bib or .csv)")


def read_references(path: str | os.PathLike) -> list[Reference]:
    """Every record of the export at ``path``, in file order (see the module docstring)."""
    try:
        raw = files.read_input(path)
    except files.InputError as exc:
        raise ReferenceError(str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReferenceError(f"{path}: byte {exc.start} is not UTF-8; export as UTF-8") from None
    kind = detect(path, text)
    raw_records = {"ris": _ris, "bibtex": _bibtex, "csv": _csv}[kind](path, text)
    out = []
    for entry, record in enumerate(raw_records, start=1):
        title = " ".join(record.get("title", "").split())
        if not title:
            raise ReferenceError(f"{path}: entry {entry}: no title; every record needs one")
        out.append(_reference(entry, title, record))
    return out


# --- the three formats, each to plain dicts ------------------------------------------------------

def _ris(path, text: str) -> list[dict]:
    import rispy

    try:
        entries = rispy.loads(text.replace("\r\n", "\n"))
    except (OSError, ValueError, KeyError) as exc:
        raise ReferenceError(f"{path}: not a readable RIS file: {exc}") from None
    records = []
    for e in entries:
        authors = e.get("authors") or e.get("first_authors") or []
        notes = [*(e.get("notes") or []), e.get("note", ""), e.get("accession_number", "")]
        records.append({
            "title": e.get("title") or e.get("primary_title") or "",
            "authors": authors,
            "year": str(e.get("year") or e.get("publication_year") or ""),
            "date": e.get("date", ""),
            "doi": e.get("doi", ""),
            "urls": e.get("urls") or [],
            "venue": (e.get("journal_name") or e.get("secondary_title")
                      or e.get("publisher") or ""),
            "extra": " ".join(str(n) for n in notes if n),
        })
    return records


def _bibtex(path, text: str) -> list[dict]:
    import bibtexparser

    library = bibtexparser.parse_string(text)
    if library.failed_blocks:
        block = library.failed_blocks[0]
        raise ReferenceError(f"{path}: line {block.start_line + 1}: not a readable BibTeX entry")
    records = []
    for entry in library.entries:
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        eprint = fields.get("eprint", "")
        prefix = fields.get("archiveprefix", fields.get("eprinttype", "")).lower()
        records.append({
            "title": fields.get("title", "").replace("{", "").replace("}", ""),
            "authors": [a.strip() for a in fields.get("author", "").split(" and ") if a.strip()],
            "year": fields.get("year", ""),
            "date": fields.get("date", ""),
            "doi": fields.get("doi", ""),
            "urls": [fields["url"]] if fields.get("url") else [],
            "venue": (fields.get("journal") or fields.get("booktitle")
                      or fields.get("howpublished") or ""),
            "extra": f"arXiv:{eprint}" if eprint and prefix in ("arxiv", "") else "",
        })
    return records


# CSV column names: Zotero's export first, then plain lower-case ones
_CSV_COLUMNS = {
    "title": ("Title", "title"),
    "authors": ("Author", "authors", "author"),
    "year": ("Publication Year", "year"),
    "date": ("Date", "date", "published"),
    "doi": ("DOI", "doi"),
    "urls": ("Url", "URL", "url"),
    "venue": ("Publication Title", "venue", "journal"),
    "extra": ("Extra", "arxiv_id", "arXiv ID", "id"),
}


def _csv(path, text: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    if not any(name in header for name in _CSV_COLUMNS["title"]):
        raise ReferenceError(f"{path}: line 1: no title column (Zotero's 'Title', or 'title')")
    records = []
    for row in reader:
        record = {}
        for key, names in _CSV_COLUMNS.items():
            value = next((row[n] for n in names if n in row and row[n]), "") or ""
            record[key] = value
        record["authors"] = [a.strip() for a in record["authors"].split(";") if a.strip()]
        record["urls"] = [record["urls"]] if record["urls"] else []
        records.append(record)
    return records


# --- one shape ----------------------------------------------------------------------------------

def _reference(entry: int, title: str, record: dict) -> Reference:
    urls = [u for u in record.get("urls", []) if str(u).startswith(("http://", "https://"))]
    doi_text = str(record.get("doi", "")).strip()
    texts = (doi_text, *urls, str(record.get("extra", "")))
    arxiv = sorted(identity.arxiv_ids(*texts))
    dois = sorted(identity.dois(doi_text, *urls))
    if arxiv:
        identifier = f"arXiv:{arxiv[0]}"
        url = next((u for u in urls if "arxiv.org" in u), f"https://arxiv.org/abs/{arxiv[0]}")
    elif dois:
        identifier = f"doi:{dois[0]}"
        url = urls[0] if urls else f"https://doi.org/{dois[0]}"
    else:
        identifier, url = "", urls[0] if urls else ""
    url = url.replace("http://arxiv.org", "https://arxiv.org")
    year = str(record.get("year", "")).strip()[:4]
    first_public = _date(str(record.get("date", "")), year, arxiv[0] if arxiv else "")
    authors = [a for a in record.get("authors", []) if str(a).strip()]
    venue = " ".join(str(record.get("venue", "")).split()) or ("arXiv" if arxiv else "")
    return Reference(entry, title, _family_given(str(authors[0])) if authors else "", year
                     or first_public[:4], first_public, identifier, url, venue)


def _date(text: str, year: str, arxiv: str) -> str:
    """The most precise date the record gives: ``2026/05/14/``, ``2026-05-14``, ``2026-05``,
    ``May 2026`` are read; else the year; else the month an arXiv identifier encodes."""
    found = re.match(r"\s*(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?", text)
    if found:
        y, m, d = found.groups()
        if d:
            return f"{y}-{int(m):02d}-{int(d):02d}"
        if m:
            return f"{y}-{int(m):02d}"
        return y
    month = f"20{arxiv[:2]}-{arxiv[2:4]}" if re.fullmatch(r"\d{4}\.\d{4,5}", arxiv) else ""
    if month and year in ("", month[:4]):
        return month  # the identifier's month: more precise than the year, never in conflict
    return year if re.fullmatch(r"\d{4}", year) else ""


def _family_given(name: str) -> str:
    """``Family, Given`` whether the export wrote that or ``Given Family``."""
    name = " ".join(name.split())
    if "," in name or " " not in name:
        return name
    given, _, family = name.rpartition(" ")
    return f"{family}, {given}"
