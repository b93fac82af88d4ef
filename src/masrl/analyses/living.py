"""The living survey: the claims ledger on a view of the pool (as screened on a date, or as
published by a date; :mod:`masrl.data.views`) against the ledger at the survey's cut-off, the
rows that change each claim, and what each new row changes.

* :func:`ledger` gives every claim its status on the view (PASS, CHANGED, FAIL, SKIP; see
  :mod:`masrl.analyses.claims`): a claim that held at the cut-off and differs on the view is
  CHANGED, naming the rows that change it; a claim pinned to the cut-off is evaluated there.
* :func:`differing_records` lists the pool rows and exclusions the view counts that the cut-off
  did not (``added``) and those the cut-off counted that the view does not (``left out``: not yet
  public on an earlier date).
* :func:`new_records` lists the added ones, each with whether it appeared before the cut-off (a
  record the survey's search missed) or after it.
* :func:`compare` sets each claim at the cut-off beside its result on the view.
* :func:`impact_table` gives, per new record, the deltas of the near-miss stress test
  (:func:`masrl.analyses.gaps.retention_deltas`: message and orchestrator cells, learned
  stopping, other counts) and the claims it changes on its own.

The rows that change a claim are those whose addition (or removal) alone changes its value at
the cut-off; when no single row does, every differing row is named. Past :data:`BLAME_LIMIT`
differing rows (a date long before the cut-off), the rows are named together without trying
each alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from masrl.analyses import claims as ledger_checks
from masrl.analyses.gaps import retention_deltas
from masrl.data import dates
from masrl.data.dataset import Dataset

BLAME_LIMIT = 40  # differing rows beyond which they are named together, not tried one by one
NEW_RECORD_COLUMNS = ["record", "kind", "title", "first_public", "round", "appeared"]


def cutoff_of(data: Dataset) -> Dataset:
    """The same data seen at the survey's cut-off (round 0, as screened)."""
    return data.cutoff()


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


def differing_records(data: Dataset) -> tuple[list[str], list[str]]:
    """The records (pool keys, exclusion ids) ``data``'s view counts and the cut-off does not
    (added), and those the cut-off counts and the view does not (left out), in file order."""
    then = cutoff_of(data)
    added, left_out = [], []
    for frame, before, ident in ((data.papers, then.papers, "key"),
                                 (data.excluded, then.excluded, "record_id")):
        now_ids, then_ids = list(frame[ident]), list(before[ident])
        added += [r for r in now_ids if r not in set(then_ids)]
        left_out += [r for r in then_ids if r not in set(now_ids)]
    return added, left_out


def ledger(data: Dataset, scope: str = "all") -> list[ledger_checks.Result]:
    """Every claim in ``scope`` with its status on ``data``'s view (the module docstring)."""
    then = cutoff_of(data)
    at_cutoff = ledger_checks.evaluate(then, scope=scope)
    if data.view.is_cutoff:
        return at_cutoff
    moving = [r.claim for r in at_cutoff if not r.claim.pinned and r.status == ledger_checks.PASS]
    now = {r.claim.id: r for r in ledger_checks.evaluate(data, moving, scope=scope)}
    differs = [now[c.id].claim for c in moving
               if now[c.id].status == ledger_checks.FAIL and now[c.id].computed is not None]
    blame = _blame(then, data, differs)
    results = []
    for before in at_cutoff:
        claim = before.claim
        if claim.id not in now:  # pinned, or not passing at the cut-off: the cut-off decides
            message = before.message or ("pinned to the cut-off" if claim.pinned else "")
            results.append(replace(before, message=message))
            continue
        after = now[claim.id]
        if claim in differs:
            rows, gone = blame[claim.id]
            after = replace(after, status=ledger_checks.CHANGED, at_cutoff=before.computed,
                            changed_by=rows, left_out=gone,
                            message="held at the cut-off; differs on this view")
        results.append(after)
    return results


def _blame(then: Dataset, data: Dataset, claims) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Per claim: the differing records that change it on their own (all of them when none
    does alone), and which of those are left out.

    The records are tried in four groups (pool rows added, exclusions added, pool rows left out,
    exclusions left out): a group that together changes no claim is not tried row by row (the
    exclusions of a later round move no claim but the pinned counts), and a group of more than
    :data:`BLAME_LIMIT` rows that matters is named together."""
    if not claims:
        return {}
    added, left_out = differing_records(data)
    every = tuple(added + left_out)
    keys = set(data.all_papers["key"])
    groups = [(rows, adding) for rows, adding in (
        ([r for r in added if r in keys], True), ([r for r in added if r not in keys], True),
        ([r for r in left_out if r in keys], False), ([r for r in left_out if r not in keys], False))
        if rows]
    base = {r.claim.id: r.computed for r in ledger_checks.evaluate(then, claims)}

    def moved(records: list[str], adding: bool, among) -> set[str]:
        view = then.with_records(records) if adding else then.without_records(records)
        return {c.id for c in among if ledger_checks.evaluate_claim(c, view).computed != base[c.id]}

    alone: dict[str, list[str]] = {c.id: [] for c in claims}
    for rows, adding in groups:
        matters = moved(rows, adding, claims)
        if not matters:
            continue
        among = [c for c in claims if c.id in matters]
        if len(rows) > BLAME_LIMIT:
            for cid in matters:
                alone[cid] += rows
            continue
        for record in rows:
            for cid in moved([record], adding, among):
                alone[cid].append(record)
    return {cid: (tuple(rows) or every, tuple(r for r in (rows or every) if r in left_out))
            for cid, rows in alone.items()}


@dataclass(frozen=True)
class Change:
    """One claim at the cut-off and on the view: both results, and the rows that change it."""

    then: ledger_checks.Result
    now: ledger_checks.Result

    @property
    def rows(self) -> tuple[str, ...]:
        return self.now.changed_by

    @property
    def changed(self) -> bool:
        return self.now.changed

    @property
    def claim(self):
        return self.now.claim


def compare(data: Dataset, scope: str = "survey") -> list[Change]:
    """Every claim in ``scope`` at the cut-off and on ``data``'s view (:func:`ledger`)."""
    before = ledger_checks.evaluate(cutoff_of(data), scope=scope)
    return [Change(b, a) for b, a in zip(before, ledger(data, scope))]


def claims_changed_by_each(data: Dataset, scope: str = "survey") -> dict[str, list[str]]:
    """Per record added or left out on ``data``'s view: the claims (in ``scope``, changed on the
    view) that it changes on its own (:func:`ledger`'s rows, the other way round)."""
    added, left_out = differing_records(data)
    out: dict[str, list[str]] = {r: [] for r in added + left_out}
    for result in ledger(data, scope):
        if result.changed:
            for record in result.changed_by:
                out[record].append(result.claim.id)
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
    alone joins the headline rows of the cut-off pool (a record of a category set apart, a
    classical MARL foundation, moves no headline cell and says so), and the claims it changes
    on its own."""
    news = new_records(data)
    then = cutoff_of(data)
    apart = set(data.foundations["key"])
    pool = data.papers.set_index("key")
    anchors = data.audit.set_index("key")
    groups = []
    for key in news.loc[news["kind"] == "retained", "record"]:
        row = pool.loc[key].to_dict()
        row["credit_reading"] = anchors["credit_reading"].get(key, "NA")
        row["learned_subdecisions"] = anchors["subdecisions"].get(key, [])
        groups.append(([row], key, row["title"]))
    headline_groups = [g for g in groups if g[1] not in apart]
    base = then.headline_papers
    base_audit = then.audit[then.audit["key"].isin(set(base["key"]))]
    deltas = (retention_deltas(base, base_audit, headline_groups) if headline_groups
              else pd.DataFrame(columns=["record"]))
    deltas = deltas.drop(columns=["title", "learned O5 after", "other counts changed"],
                         errors="ignore")
    if groups:  # the other tag counts are the whole pool's, as published
        whole = retention_deltas(then.papers, then.audit, groups)[["record", "other counts changed"]]
        whole["other counts changed"] = [
            f"{text} (set apart from the headline cells: a classical MARL foundation)"
            if record in apart else text
            for record, text in zip(whole["record"], whole["other counts changed"])]
        deltas = whole.merge(deltas, on="record", how="left")
    blame = claims_changed_by_each(data, scope)
    table = news.merge(deltas, on="record", how="left")
    for column in deltas.columns:
        if column == "other counts changed":
            table[column] = table[column].fillna("none (an exclusion)")
        elif column != "record":
            table[column] = table[column].fillna(0).astype(int)
    table["claims changed"] = [", ".join(sorted(blame[r])) or "none" for r in table["record"]]
    last = [c for c in ("other counts changed", "claims changed") if c in table.columns]
    return table[[c for c in table.columns if c not in last] + last]
