"""Records of a reference export (:mod:`masrl.data.reference_files`) added to
``data/candidates.csv`` as pending candidates, deduplicated as the intake deduplicates
(:func:`masrl.data.identity.duplicates`: arXiv id without its version, DOI, normalised title,
fuzzy title) against the pool, the exclusion log, the candidates already there and each other.

:func:`plan_import` computes and writes nothing: a record that is surely a record already held
is *skipped* (with what matched), so importing the same export twice adds nothing the second
time; a record only fuzzily like one is added and flagged for a person to check; every other
record becomes a ``pending`` candidate with the next free id, its identifier, title, first
author, year, venue, URL and first public date, the query family it was found by and its source
(from its identifier or URL: arXiv, ACL Anthology, OpenReview, a repository; else the source
given). :func:`apply_import` appends the rows to ``candidates.csv``, after checking the whole
result as ``masrl check-data`` would, atomically; nothing is written otherwise.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from masrl import files, paths
from masrl.data import identity, trial
from masrl.data.dataset import Dataset
from masrl.data.pool import identity_record
from masrl.data.problems import DataError, DataProblem
from masrl.data.reference_files import Reference, ReferenceError

SOURCES_BY_ADDRESS = (("arxiv.org", "arXiv"), ("aclanthology.org", "ACL Anthology"),
                      ("openreview.net", "OpenReview"), ("github.com", "GitHub/project page"))


@dataclass
class ImportPlan:
    """What importing an export would do (see the module docstring)."""

    rows: list[dict] = field(default_factory=list)  # the candidates to append
    skipped: list[tuple[Reference, identity.Match]] = field(default_factory=list)
    to_check: list[tuple[str, identity.Match]] = field(default_factory=list)  # (candidate, fuzzy)

    def lines(self) -> list[str]:
        out = [f"skip: entry {ref.entry} ({ref.title}) is already {m.second.label} (same "
               f"{m.how}: {m.detail})" for ref, m in self.skipped]
        out += [f"import: {row['candidate_id']} {row['title']} (pending; found by "
                f"{row['query_family']} in {row['source']})" for row in self.rows]
        out += [f"check: {cid} may repeat {m.second.label} (fuzzy title: {m.detail}); "
                "mark it 'duplicate' if it does" for cid, m in self.to_check]
        return out


def source_of(reference: Reference, default: str | None) -> str:
    """The vocabulary ``source`` of a record: from its arXiv id or its address, else
    ``default``; a :class:`ReferenceError` when neither says."""
    if reference.arxiv_id:
        return "arXiv"
    for address, source in SOURCES_BY_ADDRESS:
        if address in reference.url:
            return source
    if default:
        return default
    raise ReferenceError(f"entry {reference.entry} ({reference.title}): its source is not known "
                         "from its identifier or address; give --source")


def plan_import(data: Dataset, references: list[Reference], query_family: str,
                source: str | None = None) -> ImportPlan:
    """The import of ``references`` found by ``query_family`` (a value of the vocabulary's
    ``query_family``); ``source`` for the records whose source their address does not give."""
    vocab = data.vocabulary
    if query_family not in vocab.values("query_family"):
        raise ReferenceError(f"--query-family {query_family!r} is not a query_family of "
                             f"{paths.VOCABULARY}: one of {', '.join(vocab.values('query_family'))}")
    if source is not None and source not in vocab.values("source"):
        raise ReferenceError(f"--source {source!r} is not a source of {paths.VOCABULARY}: one of "
                             f"{', '.join(vocab.values('source'))}")
    candidates = data.candidates
    held = [identity_record("pool", r) for r in data.all_papers.to_dict("records")]
    held += [identity_record("excluded", r) for r in data.all_excluded.to_dict("records")]
    held += [identity.Record("candidates", r["candidate_id"], r["title"], (r["identifier"], r["url"]))
             for r in candidates.to_dict("records")]
    imported = [identity.Record("import", str(ref.entry), ref.title, (ref.identifier, ref.url))
                for ref in references]
    matches = [m for m in identity.duplicates([*held, *imported])
               if "import" in (m.first.where, m.second.where)]
    plan = ImportPlan()
    next_id = 1 + max((int(c[1:]) for c in candidates["candidate_id"]), default=0)
    taken: dict[str, str] = {}  # entry -> candidate id given
    for ref in references:
        entry = str(ref.entry)
        mine = [m for m in matches if entry in _entries(m)]
        sure = [m for m in mine if m.sure and _other(m, entry) is not None
                and (_other(m, entry).where != "import" or _other(m, entry).id in taken)]
        if sure:
            plan.skipped.append((ref, _pointing(sure[0], entry, taken)))
            continue
        if not ref.url:
            raise ReferenceError(f"entry {ref.entry} ({ref.title}): no address (URL, DOI or arXiv "
                                 "id); a candidate needs one")
        if ref.year and not re.fullmatch(r"[0-9]{4}", ref.year, re.ASCII):
            raise ReferenceError(f"entry {ref.entry} ({ref.title}): year {ref.year!r} is not a "
                                 "year (four digits); correct it in the export or leave it empty")
        cid = f"C{next_id:03d}"
        next_id += 1
        taken[entry] = cid
        plan.rows.append({
            "candidate_id": cid, "identifier": ref.identifier or ref.url, "title": ref.title,
            "first_author": ref.first_author, "year": ref.year, "venue": ref.venue,
            "url": ref.url, "first_public": ref.first_public,
            "source": source_of(ref, source), "query_family": query_family,
            "decision": "pending"})
        plan.to_check += [(cid, _pointing(m, entry, taken)) for m in mine if not m.sure]
    return plan


def _entries(match: identity.Match) -> set[str]:
    return {r.id for r in (match.first, match.second) if r.where == "import"}


def _other(match: identity.Match, entry: str) -> identity.Record | None:
    if match.first.where == "import" and match.first.id == entry:
        return match.second
    if match.second.where == "import" and match.second.id == entry:
        return match.first
    return None


def _pointing(match: identity.Match, entry: str, taken: dict[str, str]) -> identity.Match:
    """The match with the other record named as held (an earlier entry of the same export by
    the candidate id it was given), the imported entry first."""
    other = _other(match, entry)
    if other is not None and other.where == "import":
        other = identity.Record("candidates", taken.get(other.id, other.id), other.title,
                                other.identifiers)
    this = identity.Record("import", entry, "", ())
    return identity.Match(this, other, match.how, match.detail)


def apply_import(plan: ImportPlan, data: Dataset) -> list[str]:
    """Append the plan's rows to ``candidates.csv``, checked first on a copy of the data
    directory; the names of the files written (none for an empty plan). :class:`DataError` when
    the result would not validate (nothing is written then)."""
    text = checked_text(plan, data)
    if text is None:
        return []
    files.write_text_atomically(data.directory / paths.CANDIDATES, text)
    return [paths.CANDIDATES]


def checked_text(plan: ImportPlan, data: Dataset) -> str | None:
    """``candidates.csv`` with the plan's rows appended, validated on a copy of the data
    directory (what ``--dry-run`` checks too, so that it says what the import would say);
    ``None`` for an empty plan; :class:`DataError` when the result would not validate."""
    if not plan.rows:
        return None
    path = data.directory / paths.CANDIDATES
    old = path.read_text(encoding="utf-8-sig")
    columns = next(csv.reader(io.StringIO(old)))
    buffer = io.StringIO()
    csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n").writerows(
        [{c: row.get(c, "") for c in columns} for row in plan.rows])
    text = (old if old.endswith("\n") or not old else old + "\n") + buffer.getvalue()
    problems = trial.problems_if_written(data.directory, {paths.CANDIDATES: text}, "the import")
    if problems:
        raise DataError([DataProblem(p.file, p.row, p.field, f"after the import: {p.message}")
                         for p in problems])
    return text
