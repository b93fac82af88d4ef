"""The intake of screened candidates: ``data/candidates.csv`` deduplicated against the pool, the
exclusion log and each other, then moved into the pool or the exclusion log as a dated
screening round.

:func:`plan` computes everything and writes nothing:

* every pair of records that :func:`masrl.data.identity.duplicates` finds to be the same work,
  one of them a candidate, with what matched (an arXiv id without its version, a DOI, a
  normalised title, or a fuzzy title with its score);
* the *conflicts* that stop the intake: a candidate marked for inclusion or exclusion that is
  surely the same work as a record already there or as another candidate; a candidate marked
  ``duplicate`` whose record is not there, or that no test finds to be that record; an
  included candidate whose pool key is taken;
* the rows each screened candidate becomes: an included one a row of ``papers.csv``, its
  entry in ``papers.bib``, its evidence in ``credit_evidence.csv`` and, when its credit is
  message or orchestrator or it anchors a sub-decision, a row of ``audit.csv``; an excluded one
  a row of ``excluded.csv`` with the next free record id, written back into the candidate's
  ``record``. A candidate already recorded (its record is in the pool or the log, of its own
  round) is left as it is, so the intake can run again and change nothing.

:func:`apply` writes a plan: each changed file is written whole into a scratch folder beside
links to the unchanged ones, that folder is validated as ``masrl check-data`` would, and only
then are the files replaced, all together (:class:`masrl.transaction.Transaction`: staged,
then renamed under a journal, so a full disk, a read-only folder or a killed process leaves
the data directory as it was or wholly new, and the next intake completes or rolls back an
interrupted one). A plan with conflicts, or whose result does not validate, writes nothing.

The BibTeX entries are written by bibtexparser's writer with every value escaped
(:func:`masrl.data.bib.entry_text`): a candidate's title, author, venue or URL cannot add a
field to ``papers.bib``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from masrl import files, paths
from masrl.data import bib, identity, reading, tables, trial
from masrl.data.audit import AUDITED_CELLS, MEASURES, SEPARATOR
from masrl.data.candidates import coverage_parts
from masrl.data.dataset import Dataset
from masrl.data.pool import identity_record
from masrl.data.problems import DataError, DataProblem
from masrl.transaction import Transaction


@dataclass
class Plan:
    """What the intake found and would change (see the module docstring)."""

    matches: list[identity.Match] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    recorded: list[str] = field(default_factory=list)  # candidates already moved
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (candidate, record)
    pending: list[str] = field(default_factory=list)
    new_rows: dict[str, list[dict]] = field(default_factory=dict)  # file -> rows to append
    bib_entries: list[str] = field(default_factory=list)
    records: dict[str, str] = field(default_factory=dict)  # candidate -> record it becomes
    rounds: list[int] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return bool(self.records)

    def lines(self) -> list[str]:
        """The plan in words, one line each (what ``masrl intake`` prints)."""
        out = [f"match: {m.describe()}" + ("" if m.sure else " [possible duplicate: check]")
               for m in self.matches]
        out += [f"conflict: {c}" for c in self.conflicts]
        out += [f"duplicate: {cid} repeats {record}; nothing is added" for cid, record in self.duplicates]
        out += [f"recorded: {cid} is already {record}" for cid, record in
                ((c, self._recorded_as.get(c, "")) for c in self.recorded)]
        out += [f"pending: {cid} is not screened yet; left where it is" for cid in self.pending]
        for name, rows in self.new_rows.items():
            for row in rows:
                ident = row.get("key") or row.get("record_id")
                when = f" (round {row['screening_round']})" if "screening_round" in row else ""
                out.append(f"add: {name} {ident}{when}")
        return out

    _recorded_as: dict[str, str] = field(default_factory=dict)


def _csv_rows(rows: list[dict], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writerows(rows)
    return buffer.getvalue()


def _way_out(other: identity.Record) -> str:
    """What to do with a candidate that is the same work as ``other``: a record of the pool or
    the exclusion log is named as the duplicate's ``record``; another candidate has no record yet
    (a duplicate names a pool key or an exclusion id), so one of the two waits."""
    if other.where == "candidates":
        return ("keep one of the two: mark the other 'pending', then, once the one kept is in "
                "the pool or the exclusion log, 'duplicate' with its record")
    return "mark it 'duplicate' with that record, or keep one of the two"


def _waits(match: identity.Match, waiting: set[str]) -> bool:
    """Whether ``match`` pairs two candidates one of which is pending: it is matched once it
    is decided (against the other's record by then), so its twin can be taken in first."""
    first, second = match.first, match.second
    return (first.where == second.where == "candidates"
            and (first.id in waiting or second.id in waiting))


def _candidate_record(row: dict) -> identity.Record:
    return identity.Record("candidates", row["candidate_id"], row["title"],
                           (row["identifier"], row["url"]))


def plan(data: Dataset) -> Plan:
    """The intake of ``data``'s candidates (nothing is written); :class:`DataError` when a file
    it needs does not load."""
    papers, excluded, candidates = data.all_papers, data.all_excluded, data.candidates
    result = Plan()
    pool_keys = set(papers["key"])
    excluded_ids = set(excluded["record_id"])
    round_of = {**dict(zip(papers["key"], papers["screening_round"])),
                **dict(zip(excluded["record_id"], excluded["screening_round"]))}
    rows = tables.records(candidates)

    def recorded(row: dict) -> bool:
        record = row["record"]
        return (row["decision"] in ("include", "exclude") and record in round_of
                and str(round_of[record]) == row["screening_round"])

    done = {row["candidate_id"]: row["record"] for row in rows if recorded(row)}
    records = [identity_record("pool", r) for r in tables.records(papers)]
    records += [identity_record("excluded", r) for r in tables.records(excluded)]
    records += [_candidate_record(r) for r in rows]
    waiting = {r["candidate_id"] for r in rows if r["decision"] == "pending"}
    found = [m for m in identity.duplicates(records)
             if "candidates" in (m.first.where, m.second.where)
             and not _is_own_record(m, done) and not _waits(m, waiting)]
    result.matches = found
    by_candidate: dict[str, list[tuple[identity.Match, identity.Record]]] = {}
    for m in found:
        for this, other in ((m.first, m.second), (m.second, m.first)):
            if this.where == "candidates":
                by_candidate.setdefault(this.id, []).append((m, other))

    next_id = 1 + max((int(r[1:]) for r in excluded_ids), default=0)
    for row in rows:
        cid, decision = row["candidate_id"], row["decision"]
        if cid in done:
            result.recorded.append(cid)
            result._recorded_as[cid] = f"{'pool row' if decision == 'include' else 'exclusion'} {done[cid]}"
            continue
        if decision == "pending":
            result.pending.append(cid)
            continue
        matched = by_candidate.get(cid, [])
        if decision == "duplicate":
            record = row["record"]
            if record not in pool_keys and record not in excluded_ids:
                result.conflicts.append(f"{cid} is marked a duplicate of {record!r}, which is "
                                        "neither a pool key nor an exclusion id")
            elif not any(other.id == record and other.where != "candidates" for _, other in matched):
                result.conflicts.append(f"{cid} is marked a duplicate of {record!r}, but no test "
                                        "finds them to be the same work; check the record")
            else:
                result.duplicates.append((cid, record))
            continue
        sure = [(m, other) for m, other in matched if m.sure]
        if sure:
            for m, other in sure:
                result.conflicts.append(f"{cid} is marked {decision!r} but is the same work as "
                                        f"{other.label} (same {m.how}: {m.detail}); "
                                        + _way_out(other))
            continue
        result.rounds = sorted({*result.rounds, int(row["screening_round"])})
        if decision == "include":
            key = row["record"]
            if key in pool_keys:
                result.conflicts.append(f"{cid}: the pool key {key!r} is taken")
                continue
            pool_keys.add(key)
            result.records[cid] = key
            _include(result, row, data)
        else:
            record_id = f"E{next_id:03d}"
            next_id += 1
            result.records[cid] = record_id
            result.new_rows.setdefault(paths.EXCLUDED, []).append(_exclusion_row(row, record_id))
    return result


def _is_own_record(match: identity.Match, done: dict[str, str]) -> bool:
    """A recorded candidate and the record it became are one work by design, not a duplicate."""
    pair = {match.first.where: match.first.id, match.second.where: match.second.id}
    cid = pair.get("candidates")
    return cid in done and done[cid] in (pair.get("pool"), pair.get("excluded"))


def _arxiv_id(row: dict) -> str:
    ids = sorted(identity.arxiv_ids(row["identifier"], row["url"]))
    return ids[0] if ids else ""


def _include(result: Plan, row: dict, data: Dataset) -> None:
    key, cid = row["record"], row["candidate_id"]
    arxiv = _arxiv_id(row)
    pool_row = {column: "" for column in data.all_papers.columns}
    pool_row.update({column: row[column] for column in pool_row if column in row})
    pool_row.update(key=key, arxiv_id=arxiv, screening_round=row["screening_round"],
                    notes=f"Screening round {row['screening_round']} (candidate {cid}, "
                          f"{row['date_screened']}): {row['reason']}")
    result.new_rows.setdefault(paths.PAPERS, []).append(pool_row)
    result.new_rows.setdefault(paths.CREDIT_EVIDENCE, []).append({
        "key": key, "secondary": "", "credit_comparison": row["credit_comparison"] or "NA",
        "evidence": row["evidence"] or row["summary"],
        "source": f"{row['identifier']} (candidate {cid}, screened {row['date_screened']})"})
    subdecisions = SEPARATOR.join(row["subdecisions"])
    audited = row["credit_granularity"] in AUDITED_CELLS
    if subdecisions or audited:
        result.new_rows.setdefault(paths.AUDIT, []).append({
            "key": key, "subdecisions": subdecisions,
            "credit_reading": row["credit_reading"] if audited else "NA",
            "note": row["evidence"]})
    if row["benchmark_coverage"]:
        parts = coverage_parts(row["benchmark_coverage"])
        result.new_rows.setdefault(paths.BENCHMARK_COVERAGE, []).append({
            "key": key, "benchmark": row["title"].split(":")[0], **parts, "coded_by": "ours",
            "note": f"Coded from the abstract at screening round {row['screening_round']}: "
                    f"{row['evidence']}"})
    result.bib_entries.append(_bib_entry(key, row, arxiv))


def _exclusion_row(row: dict, record_id: str) -> dict:
    return {"record_id": record_id, "title": row["title"], "identifier": row["identifier"],
            "url": row["url"], "first_public": row["first_public"], "source": row["source"],
            "query_family": row["query_family"], "stage": row["stage"],
            "exclusion_rule": row["exclusion_rule"], "screening_round": row["screening_round"],
            "date_screened": row["date_screened"], "reason": row["reason"]}


def _bib_entry(key: str, row: dict, arxiv: str) -> str:
    """The pool row's entry, every value escaped (see the module docstring); the title in a
    second pair of braces, which keeps its capitals."""
    url = row["url"].split(" ; ")[0]
    fields = [("title", "{" + bib.latex_text(row["title"]) + "}"),
              ("author", f"{bib.latex_text(row['first_author'])} and others"),
              ("journal" if arxiv else "howpublished",
               f"arXiv preprint arXiv:{arxiv}" if arxiv else bib.latex_text(row["venue"])),
              ("year", bib.latex_text(row["year"])), ("url", bib.url_text(url))]
    if arxiv:
        fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
    return bib.entry_text("article" if arxiv else "misc", key, fields)


# --- writing -------------------------------------------------------------------------------

def new_texts(result: Plan, data: Dataset) -> dict[str, str]:
    """Every data file the plan changes, with its whole new text."""
    return {name: text for name, (text, _) in _changes(result, data).items()}


def _changes(result: Plan, data: Dataset) -> dict[str, tuple[str, bytes]]:
    """Every data file the plan changes: its whole new text, and the bytes it was made from
    (which the commit insists are still there)."""
    directory = data.directory
    changes: dict[str, tuple[str, bytes]] = {}
    columns = {paths.PAPERS: list(data.all_papers.columns),
               paths.EXCLUDED: list(data.all_excluded.columns),
               paths.AUDIT: ["key", "subdecisions", "credit_reading", "note"],
               paths.CREDIT_EVIDENCE: ["key", "secondary", "credit_comparison", "evidence",
                                       "source"],
               paths.BENCHMARK_COVERAGE: ["key", "benchmark", "domain", "mas_native", *MEASURES,
                                          "coded_by", "note"]}

    def old(name: str) -> tuple[str, bytes]:
        raw = files.read_input(directory / name, reading.data_limit(directory / name))
        return reading.decode(name, raw), raw

    for name, rows in result.new_rows.items():
        text, raw = old(name)
        changes[name] = (_ending(text) + _csv_rows(rows, columns[name]), raw)
    if result.bib_entries:
        text, raw = old(paths.BIBTEX)
        changes[paths.BIBTEX] = (_ending(text) + "".join(f"\n{entry}"
                                                          for entry in result.bib_entries), raw)
    if result.records:
        text, raw = old(paths.CANDIDATES)
        changes[paths.CANDIDATES] = (_with_records(text, result.records), raw)
    return changes


def _ending(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"


def _with_records(text: str, records: dict[str, str]) -> str:
    """``candidates.csv`` with each moved candidate's ``record`` filled in (other cells as read)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns, rows = list(reader.fieldnames or []), list(reader)
    for row in rows:
        if row["candidate_id"] in records:
            row["record"] = records[row["candidate_id"]]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def apply(result: Plan, data: Dataset, transaction: Transaction | None = None) -> list[str]:
    """Write the plan (see the module docstring) within ``transaction`` (one opened on the data
    directory; else one of its own); return the names of the files written.
    :class:`DataError` when the plan has conflicts or its result does not validate (nothing is
    written then); :class:`masrl.files.OutputError` when the files cannot be written (a full
    disk, a read-only folder: the old files are kept)."""
    if result.conflicts:
        raise DataError([DataProblem(paths.CANDIDATES, "-", "-", c) for c in result.conflicts])
    if transaction is None:
        with Transaction(data.directory, "intake") as own:
            return apply(result, data, own)
    changes = _changes(result, data)
    if not changes:
        return []
    _check_result(data.directory, {name: text for name, (text, _) in changes.items()},
                  _added_by(result, changes))
    transaction.reserve(*(data.directory / name for name in sorted(changes)))
    for name in sorted(changes):
        text, raw = changes[name]
        transaction.write_text(data.directory / name, text, based_on=raw)
    transaction.commit()
    return sorted(changes)


def _added_by(result: Plan, changes: dict[str, tuple[str, bytes]]) -> dict[tuple[str, str], str]:
    """``(file, line)`` of each row the intake appends, and the candidate it comes from: the
    rows are not in the files yet, so a problem found in one names its candidate too."""
    owner = {record: cid for cid, record in result.records.items()}
    found = {}
    for name, rows in result.new_rows.items():
        reader = csv.reader(io.StringIO(changes[name][0]))
        starts, line = [], 1
        for _ in reader:  # the line each record starts on (a field may hold line breaks)
            starts.append(line)
            line = reader.line_num + 1
        for row, start in zip(rows, starts[len(starts) - len(rows):]):
            cid = owner.get(row.get("key") or row.get("record_id"))
            if cid is not None:
                found[(name, str(start))] = cid
    return found


def _check_result(directory: Path, texts: dict[str, str],
                  added: dict[tuple[str, str], str]) -> None:
    """Validate the data directory as the plan would leave it, in a scratch folder (the changed
    files written there, links to the others); :class:`DataError` if it has problems, each in
    a row the intake adds naming the candidate it comes from (``added``)."""
    problems = trial.problems_if_written(directory, texts, "the intake")
    if problems:
        raise DataError([DataProblem(p.file, p.row, p.field, "after the intake"
                                     + (f" (the row of candidate {added[p.file, p.row]})"
                                        if (p.file, p.row) in added else "")
                                     + f": {p.message}") for p in problems])


def summary_frame(result: Plan, candidates: pd.DataFrame) -> pd.DataFrame:
    """One row per candidate: its decision, the record it is or becomes, and what matched it."""
    matched: dict[str, list[str]] = {}
    for m in result.matches:
        for this, other in ((m.first, m.second), (m.second, m.first)):
            if this.where == "candidates":
                matched.setdefault(this.id, []).append(f"{other.label} ({m.how})")
    rows = []
    for row in tables.records(candidates):
        cid = row["candidate_id"]
        rows.append({"candidate": cid, "title": row["title"], "decision": row["decision"],
                     "record": result.records.get(cid, row["record"]),
                     "matches": "; ".join(matched.get(cid, [])) or "none"})
    return pd.DataFrame(rows)
