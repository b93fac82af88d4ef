"""The living survey: the claims ledger as of a date against the ledger at the survey's cut-off,
the rows of later screening rounds that change each claim, and what each new row changes.

* :func:`new_records` lists the pool rows and exclusions present at a date that were not at
  the cut-off, each with whether it appeared before the cut-off (a record the survey's search
  missed) or after it.
* :func:`compare` evaluates the ledger at the cut-off and at the date; a claim whose computed
  value differs has *changed*, and the rows that change it are those whose addition alone to the
  cut-off pool changes its value (when no single row does, the new rows together are named).
* :func:`impact_table` gives, per new record, the deltas of the near-miss stress test
  (:func:`masrl.analyses.gaps.retention_deltas`: message and orchestrator cells, learned
  stopping, other counts) and the claims it changes on its own.

The survey's statements stay frozen: every claim is checked against its expected value at any
date; a claim that changes fails after the cut-off, and says which rows made it fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from masrl.analyses import claims as ledger
from masrl.analyses.gaps import retention_deltas
from masrl.data import dates
from masrl.data.dataset import Dataset

NEW_RECORD_COLUMNS = ["record", "kind", "title", "first_public", "round", "appeared"]


def cutoff_of(data: Dataset) -> Dataset:
    """The same data seen at the survey's cut-off (round 0)."""
    return data.at(None)


def appeared(first_public: str, cutoff: str) -> str:
    """Whether a record appeared ``before the cut-off`` (its whole date period is on or before
    it), ``after the cut-off`` (its period starts after it), ``around the cut-off`` (a month or
    year that holds the cut-off) or at an ``unknown`` time."""
    bounds = dates.period(first_public)
    if bounds is None:
        return "unknown"
    day = dates.parse_day(cutoff)
    if bounds[1] <= day:
        return "before the cut-off"
    if bounds[0] > day:
        return "after the cut-off"
    return "around the cut-off"


def new_records(data: Dataset) -> pd.DataFrame:
    """The pool rows and exclusions present as of ``data``'s date but not at the cut-off:
    ``record`` (key or record id), ``kind`` (retained or excluded), title, first public date,
    round, and when it :func:`appeared`."""
    then = cutoff_of(data)
    cutoff = data.search_protocol.cutoff
    rows = []
    for kind, frame, before, ident in (
            ("retained", data.papers, then.papers, "key"),
            ("excluded", data.excluded, then.excluded, "record_id")):
        old = set(before[ident])
        for row in frame.to_dict("records"):
            if row[ident] in old:
                continue
            first = row["first_public"]
            rows.append({"record": row[ident], "kind": kind, "title": row["title"],
                         "first_public": first or "unknown", "round": int(row["screening_round"]),
                         "appeared": appeared(first, cutoff)})
    return pd.DataFrame(rows, columns=NEW_RECORD_COLUMNS)


@dataclass(frozen=True)
class Change:
    """One claim at the cut-off and at the date: both results, and the rows that change it."""

    then: ledger.Result
    now: ledger.Result
    rows: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.now.computed != self.then.computed or self.now.status != self.then.status

    @property
    def claim(self):
        return self.now.claim


def compare(data: Dataset, scope: str = "survey") -> list[Change]:
    """Every claim in ``scope`` at the cut-off and as of ``data``'s date, with the new rows
    that change it on their own (or all of them, when only together they do)."""
    then = cutoff_of(data)
    before = ledger.evaluate(then, scope=scope)
    after = ledger.evaluate(data, scope=scope)
    added = list(new_records(data)["record"])
    changed_ids = {b.claim.id for b, a in zip(before, after)
                   if a.computed != b.computed or a.status != b.status}
    blame = _claims_changed_by_each(then, added, changed_ids, scope) if changed_ids else {}
    changes = []
    for b, a in zip(before, after):
        if a.claim.id in changed_ids:
            rows = tuple(r for r in added if a.claim.id in blame.get(r, ()))
            changes.append(Change(b, a, rows or tuple(added)))
        else:
            changes.append(Change(b, a, ()))
    return changes


def _claims_changed_by_each(then: Dataset, added: list[str], ids: set[str] | None,
                            scope: str) -> dict[str, set[str]]:
    """Per new record: the claims (of ``ids``, or all) whose value changes when that record
    alone joins the cut-off data."""
    base = {r.claim.id: r for r in ledger.evaluate(then, scope=scope)}
    claims = [c for c in then.claims if ledger.in_scope(c, scope) and (ids is None or c.id in ids)]
    out = {}
    for record in added:
        view = then.with_records([record])
        out[record] = {c.id for c in claims
                       if ledger.evaluate_claim(c, view).computed != base[c.id].computed}
    return out


def changed_claims(changes: list[Change]) -> pd.DataFrame:
    """The changed claims: id, origin, value at the cut-off, value now, status now, the rows."""
    from masrl.data.claims import ORIGINS

    rows = [{"claim": c.claim.id, "origin": ORIGINS[c.claim.origin],
             "at the cut-off": c.then.computed, "now": c.now.computed,
             "status now": c.now.status, "changed by": ", ".join(c.rows)}
            for c in changes if c.changed]
    return pd.DataFrame(rows, columns=["claim", "origin", "at the cut-off", "now", "status now",
                                       "changed by"])


def impact_table(data: Dataset, scope: str = "survey") -> pd.DataFrame:
    """Per new record of ``data`` (see :func:`new_records`): the stress test's deltas when it
    alone joins the cut-off pool, and the claims it changes on its own."""
    news = new_records(data)
    then = cutoff_of(data)
    retained = news[news["kind"] == "retained"]
    pool = data.papers.set_index("key")
    anchors = data.audit.set_index("key")
    groups = []
    for key in retained["record"]:
        row = pool.loc[key].to_dict()
        row["credit_reading"] = anchors["credit_reading"].get(key, "NA")
        row["learned_subdecisions"] = anchors["subdecisions"].get(key, [])
        groups.append(([row], key, row["title"]))
    deltas = retention_deltas(then.papers, then.audit, groups) if groups else pd.DataFrame(
        columns=["record"])
    deltas = deltas.drop(columns=["title", "learned O5 after"], errors="ignore")
    blame = _claims_changed_by_each(then, list(news["record"]), None, scope)
    table = news.merge(deltas, on="record", how="left")
    for column in deltas.columns:
        if column == "other counts changed":
            table[column] = table[column].fillna("none (an exclusion)")
        elif column != "record":
            table[column] = table[column].fillna(0).astype(int)
    table["claims changed"] = [", ".join(sorted(blame[r])) or "none" for r in table["record"]]
    return table
