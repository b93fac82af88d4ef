"""Gap analyses: pure functions over the validated pool, audit, spot-check, near-miss and
benchmark-coverage tables (nothing here reads a file).

* sparse and empty cells of the reward x credit and orchestration x credit grids, with credit
  units that no row uses marked as inherited (per the taxonomy's status) rather than missing;
* coverage of the orchestration sub-decisions O1-O5;
* three readings of the credit tags (``broad``, ``strict``, ``spotcheck``) and the stress test
  of near-miss exclusions;
* the benchmark gap over the evaluation measures E1-E4.

Counts are retained-pool counts, not estimates of how common anything is in the field.
"""

from __future__ import annotations

import pandas as pd

from masrl.analyses import stats
from masrl.data.audit import AUDITED_CELLS, MEASURES
from masrl.data.taxonomy import Taxonomy
from masrl.data.vocabulary import Vocabulary

THIN = 2  # a populated cell with at most this many rows is "thin"
READINGS = ("broad", "strict", "spotcheck")
MARKS = ["populated", "thin", "empty", "inherited", "not applicable"]


# --- sparse and empty cells -------------------------------------------------------------------

def unit_status(taxonomy: Taxonomy) -> dict[str, str]:
    """credit_granularity value -> the taxonomy's status of its unit (inherited, established, new)."""
    return {u.credit_granularity: u.status for u in taxonomy.credit_units}


def mark(n: int, *, applicable: bool, inherited: bool, thin: int = THIN) -> str:
    """The mark of one grid cell holding ``n`` rows."""
    if not applicable:
        return "not applicable"
    if n == 0:
        return "inherited" if inherited else "empty"
    return "thin" if n <= thin else "populated"


def marked_cells(table: pd.DataFrame, taxonomy: Taxonomy, *, thin: int = THIN) -> pd.DataFrame:
    """A cross-tab with credit units as columns, in long form with each cell's mark.

    A cell in an ``NA`` row or column is not applicable; a zero cell in the column of a credit
    unit that no row of the pool uses at all, and that the taxonomy marks as inherited, is
    ``inherited``; other zero cells are ``empty``; cells with 1 to ``thin`` rows are ``thin``.
    """
    status = unit_status(taxonomy)
    unused = {c for c in table.columns if table[c].sum() == 0}
    row_name, column_name = table.index.name, table.columns.name
    rows = []
    for r in table.index:
        for c in table.columns:
            n = int(table.at[r, c])
            rows.append({row_name: r, column_name: c, "papers": n,
                         "mark": mark(n, applicable="NA" not in (r, c), thin=thin,
                                      inherited=c in unused and status.get(c) == "inherited")})
    return pd.DataFrame(rows)


def marked_table(cells: pd.DataFrame) -> pd.DataFrame:
    """The long form of :func:`marked_cells` back as a grid whose cells read like ``2 (thin)``;
    populated cells show their count alone and not-applicable cells a plain count."""
    row_name, column_name = cells.columns[:2]
    text = [f"{n}" if m in ("populated", "not applicable") else f"{n} ({m})"
            for n, m in zip(cells["papers"], cells["mark"])]
    grid = cells.assign(cell=text).pivot(index=row_name, columns=column_name, values="cell")
    return grid.reindex(index=cells[row_name].unique(), columns=cells[column_name].unique())


def mark_counts(cells: pd.DataFrame) -> pd.Series:
    """How many cells carry each mark (every mark listed, zeros kept)."""
    return cells["mark"].value_counts().reindex(MARKS, fill_value=0).rename_axis("mark").rename("cells")


def credit_units(pool: pd.DataFrame, taxonomy: Taxonomy, *, thin: int = THIN) -> pd.DataFrame:
    """The eight credit units from team to token: rows in the pool, the taxonomy's status, and
    the reading of the count (a zero-row unit the taxonomy calls inherited is not missing)."""
    rows = []
    for unit in taxonomy.credit_units:
        n = int((pool["credit_granularity"] == unit.credit_granularity).sum())
        reading = mark(n, applicable=True, inherited=unit.status == "inherited", thin=thin)
        if n == 0 and unit.status != "inherited":
            reading = "missing"
        rows.append({"unit": unit.name, "credit_granularity": unit.credit_granularity,
                     "status": unit.status, "papers": n, "reading": reading})
    return pd.DataFrame(rows)


# --- orchestration sub-decisions O1-O5 ----------------------------------------------------------

def subdecision_coverage(audit: pd.DataFrame, pool: pd.DataFrame,
                         taxonomy: Taxonomy) -> pd.DataFrame:
    """O1-O5: how many pool rows the audit marks as anchors of each, and how many of those train
    the decision with RL (``is_rl`` yes) or in part (``partial``). A sub-decision no row anchors
    shows zeros rather than disappearing."""
    is_rl = pool.set_index("key")["is_rl"]
    rows = []
    for d in taxonomy.subdecisions:
        keys = [k for k, ids in zip(audit["key"], audit["subdecisions"]) if d.id in ids]
        rows.append({"id": d.id, "sub-decision": d.name, "anchors": len(keys),
                     "RL-trained": sum(is_rl[k] == "yes" for k in keys),
                     "partly RL": sum(is_rl[k] == "partial" for k in keys),
                     "anchor rows": ", ".join(keys)})
    return pd.DataFrame(rows)


def subdecision_matrix(audit: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """Anchor rows x O1-O5, ``yes`` where the row anchors the sub-decision (a claim-level
    audit: one system may touch several), with a last row counting each column."""
    ids = [d.id for d in taxonomy.subdecisions]
    anchors = audit[audit["subdecisions"].map(len) > 0]
    grid = pd.DataFrame([["yes" if i in marked else "" for i in ids]
                         for marked in anchors["subdecisions"]],
                        index=pd.Index(anchors["key"], name="key"), columns=ids)
    totals = pd.DataFrame([[str(int((grid[i] == "yes").sum())) for i in ids]],
                          index=pd.Index(["anchors"], name="key"), columns=ids)
    return pd.concat([grid, totals])


# --- readings of the credit tags ---------------------------------------------------------------

def check_reading(reading: str) -> str:
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; expected one of {', '.join(READINGS)}")
    return reading


def with_readings(pool: pd.DataFrame, audit: pd.DataFrame) -> pd.DataFrame:
    """The pool with each row's ``credit_reading`` from the audit (``NA`` when not audited)."""
    readings = audit.set_index("key")["credit_reading"]
    return pool.assign(credit_reading=pool["key"].map(readings).fillna("NA"))


def effective_credit(pool: pd.DataFrame, audit: pd.DataFrame, spotcheck: pd.DataFrame,
                     reading: str) -> pd.Series:
    """Per pool key, the credit unit a row counts under in one reading, or ``None`` when the
    row drops out of the grid.

    * ``broad``: the pool's credit_granularity tag;
    * ``strict``: as broad, but rows of the message and orchestrator cells count only if the
      audit reads their credit as strict (or near-strict); the others drop out. The other cells
      were not audited for strictness and keep their rows;
    * ``spotcheck``: the second reader's credit tag for the rows it re-coded, the pool's tag
      for the others.
    """
    check_reading(reading)
    credit = pool.set_index("key")["credit_granularity"].astype(object)
    if reading == "strict":
        readings = with_readings(pool, audit).set_index("key")["credit_reading"]
        drop = credit.isin(AUDITED_CELLS) & (readings != "strict")
        credit = credit.where(~drop, None)
    elif reading == "spotcheck":
        recoded = spotcheck.set_index("key")["ann_credit_granularity"]
        credit.update(recoded)
    return credit.rename("credit_granularity")


def reading_pool(pool: pd.DataFrame, audit: pd.DataFrame, spotcheck: pd.DataFrame,
                 reading: str) -> pd.DataFrame:
    """The pool as one reading sees it: credit replaced by :func:`effective_credit`, dropped
    rows removed."""
    credit = effective_credit(pool, audit, spotcheck, reading)
    frame = pool.assign(credit_granularity=pool["key"].map(credit))
    return frame[frame["credit_granularity"].notna()].reset_index(drop=True)


def reading_counts(pool: pd.DataFrame, audit: pd.DataFrame, spotcheck: pd.DataFrame,
                   vocab: Vocabulary) -> pd.DataFrame:
    """Rows per credit unit under each reading, side by side (vocabulary order, zeros kept),
    and whether the unit was audited for strictness."""
    table = pd.DataFrame({
        reading: stats.count(reading_pool(pool, audit, spotcheck, reading),
                             "credit_granularity", vocab)
        for reading in READINGS})
    table["strictness audited"] = ["yes" if v in AUDITED_CELLS else "no" for v in table.index]
    return table


def cell_counts(pool: pd.DataFrame, audit: pd.DataFrame, spotcheck: pd.DataFrame,
                vocab: Vocabulary) -> pd.DataFrame:
    """:func:`reading_counts` restricted to the two audited cells (message, orchestrator)."""
    return reading_counts(pool, audit, spotcheck, vocab).loc[list(AUDITED_CELLS), list(READINGS)]


def reading_changes(pool: pd.DataFrame, audit: pd.DataFrame, spotcheck: pd.DataFrame,
                    reading: str) -> pd.DataFrame:
    """Rows whose credit differs from the broad reading: key, broad tag, this reading's tag
    (``dropped`` when the row leaves the grid)."""
    broad = effective_credit(pool, audit, spotcheck, "broad")
    this = effective_credit(pool, audit, spotcheck, reading).fillna("dropped")
    changed = broad != this
    return pd.DataFrame({"key": broad.index[changed], "broad": broad[changed].values,
                         reading: this[changed].values}).reset_index(drop=True)


def cell_rows(pool: pd.DataFrame, audit: pd.DataFrame, cell: str) -> dict[str, list[str]]:
    """The keys of one audited cell, split into strict and broad-only, in pool order."""
    frame = with_readings(pool, audit)
    in_cell = frame[frame["credit_granularity"] == cell]
    return {"strict": list(in_cell.loc[in_cell["credit_reading"] == "strict", "key"]),
            "broad_only": list(in_cell.loc[in_cell["credit_reading"] != "strict", "key"])}


def cell_tally(frame: pd.DataFrame) -> dict[str, int]:
    """Broad and strict counts of the audited cells in a frame holding ``credit_granularity``
    and ``credit_reading``: ``{"message broad": 2, "message strict": 1, ...}``."""
    tally = {}
    for cell in AUDITED_CELLS:
        in_cell = frame["credit_granularity"] == cell
        tally[f"{cell} broad"] = int(in_cell.sum())
        tally[f"{cell} strict"] = int((in_cell & (frame["credit_reading"] == "strict")).sum())
    return tally


def strict_against_spotcheck(audit: pd.DataFrame, spotcheck: pd.DataFrame) -> pd.DataFrame:
    """Rows read strict or broad by the audit that the second reader also judged: the audit's
    reading, the reader's strict_explicit_credit, and whether they agree (strict = yes)."""
    judged = audit[audit["credit_reading"] != "NA"].merge(
        spotcheck[["key", "strict_explicit_credit"]], on="key", how="inner")
    judged["agree"] = (judged["credit_reading"] == "strict") == (judged["strict_explicit_credit"] == "yes")
    return judged[["key", "credit_reading", "strict_explicit_credit", "agree"]].reset_index(drop=True)


# --- the near-miss stress test -----------------------------------------------------------------

def learned_o5(pool: pd.DataFrame, audit: pd.DataFrame, stop: str = "O5") -> int:
    """Pool rows that anchor the stopping decision and train it with RL."""
    is_rl = pool.set_index("key")["is_rl"]
    return sum(stop in ids and is_rl[k] == "yes" for k, ids in zip(audit["key"], audit["subdecisions"]))


def stress_test(pool: pd.DataFrame, audit: pd.DataFrame, near_misses: pd.DataFrame,
                excluded: pd.DataFrame, *, stop: str = "O5") -> pd.DataFrame:
    """For each near-miss exclusion: what retaining it (with the tags it would get) would change
    in the message and orchestrator cells (broad and strict), in learned stopping (O5), and in
    other counts. A last row retains all of them at once."""
    titles = excluded.set_index("record_id")["title"]
    records = near_misses.to_dict("records")
    groups = [([r], r["record_id"], titles[r["record_id"]]) for r in records]
    groups.append((records, "all", "all near misses retained together"))
    return retention_deltas(pool, audit, groups, stop=stop)


def retention_deltas(pool: pd.DataFrame, audit: pd.DataFrame,
                     groups: list[tuple[list[dict], str, str]], *,
                     stop: str = "O5") -> pd.DataFrame:
    """What adding each group of coded records to the pool changes: one row per group
    (``record``, ``title``) with the change of each audited cell's broad and strict counts, the
    learned-stopping rows added and the total after, and the other tag counts that change.
    Each record holds the recoded tags, ``credit_reading`` and ``learned_subdecisions`` (the
    sub-decisions it learns, which count for O5 when its ``is_rl`` is yes). The near-miss stress
    test and the impact of a screening round's new rows both use it."""
    base = with_readings(pool, audit)
    base_tally, base_o5 = cell_tally(base), learned_o5(pool, audit, stop)
    rows = []
    for records, rid, title in groups:
        added = pd.DataFrame(records, columns=None if records else
                             [*base.columns, "learned_subdecisions"])  # no record: adds nothing
        coded = [c for c in added.columns if c in base.columns]  # the tags and the reading
        combined = pd.concat([base, added[coded]], ignore_index=True)
        tally = cell_tally(combined)
        row = {"record": rid, "title": title}
        row.update({f"{name} +": tally[name] - base_tally[name] for name in base_tally})
        row["learned O5 +"] = sum(stop in ids and is_rl == "yes"
                                  for ids, is_rl in zip(added["learned_subdecisions"], added["is_rl"]))
        row["learned O5 after"] = base_o5 + row["learned O5 +"]
        row["other counts changed"] = _count_changes(base, combined)
        rows.append(row)
    return pd.DataFrame(rows)


def _count_changes(before: pd.DataFrame, after: pd.DataFrame) -> str:
    """Non-NA tag counts that change, as ``field value a->b``; ``none`` if nothing does."""
    changes = []
    for field in ("category", "reward_type", "credit_granularity", "orchestration_form"):
        b, a = before[field].value_counts(), after[field].value_counts()
        for value in a.index:
            if value != "NA" and a[value] != b.get(value, 0):
                changes.append(f"{field} {value} {b.get(value, 0)}->{a[value]}")
    return "; ".join(changes) or "none"


# --- the benchmark gap -------------------------------------------------------------------------

def coverage_matrix(coverage: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """Benchmarks x measures: domain, MAS-native status and E1-E4 coverage, columns named by the
    taxonomy's measure ids."""
    ids = [m.id for m in taxonomy.evaluation_measures]
    frame = coverage.set_index("benchmark")[["domain", "mas_native", *MEASURES]]
    return frame.rename(columns=dict(zip(MEASURES, ids)))


NOT_OPEN = ("closed", "unreleased")  # MAS-native statuses of benchmarks others cannot run


def open_benchmarks(coverage: pd.DataFrame) -> pd.DataFrame:
    """The benchmarks anyone can run: neither internal to a company nor still unreleased."""
    return coverage[~coverage["mas_native"].isin(NOT_OPEN)]


def covering_all(coverage: pd.DataFrame, levels: tuple[str, ...] = ("full",)) -> list[str]:
    """Open benchmarks whose coverage of every measure E1-E4 is one of ``levels``."""
    frame = open_benchmarks(coverage)
    return list(frame.loc[frame[MEASURES].isin(levels).all(axis=1), "benchmark"])


def measure_summary(coverage: pd.DataFrame, taxonomy: Taxonomy, vocab: Vocabulary) -> pd.DataFrame:
    """Per measure, how many open benchmarks cover it fully, partly, not at all, or unknown."""
    frame = open_benchmarks(coverage)
    levels = vocab.values("measure_coverage")
    table = pd.DataFrame({m.id: frame[c].value_counts().reindex(levels, fill_value=0)
                          for m, c in zip(taxonomy.evaluation_measures, MEASURES)}).T
    table.insert(0, "measure", [m.name for m in taxonomy.evaluation_measures])
    return table.rename_axis("id")


def measures_covered(coverage: pd.DataFrame) -> pd.Series:
    """Per benchmark, how many of E1-E4 it covers fully."""
    return (coverage.set_index("benchmark")[MEASURES] == "full").sum(axis=1).rename("full measures")
