"""What a written corpus holds, read back from its Parquet tables: totals, groups, errors.

The summary is computed from the files on disk, so a resumed run summarises the whole corpus,
the shards of earlier runs included.

* ``traces``: traces read; ``valid`` / ``invalid``: with no error / with one at least, of which
  ``unreadable``: traces whose bytes could not be read; ``events``: events of the valid traces.
* A *group* (``--group-by FIELD``) gathers the traces with the same value of FIELD: a column of
  the ``traces`` table (``file``, ``task_id``, ``topology``...) or one entry of its recorded
  numbers (``rewards.team``, ``costs.tokens``, ``metrics.NAME``). Per group: traces, invalid,
  events, and the means over its valid traces of ``team_reward``, ``parallelism``, ``speedup``,
  ``tokens`` (means skip nulls; null when nothing is left).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from masrl.terminal import printable
from masrl.traces.corpus.tables import COLUMNS, SCHEMAS

MAPS = ("rewards", "costs", "metrics")
GROUP_MEANS = ("team_reward", "parallelism", "speedup", "tokens")
SCALAR_COLUMNS = [name for name, kind, _ in COLUMNS["traces"]
                  if not pa.types.is_struct(kind) and not pa.types.is_map(kind)]


class TablesUnreadable(ValueError):
    """A table file of the output folder cannot be read (``FILE: why``)."""


def read_table(out: str | Path, name: str, columns: list[str] | None = None) -> pa.Table:
    """Every shard of table ``name`` in the output folder ``out``, in shard order.

    Each file is read as one Parquet file (``ParquetFile.read``), not as a dataset
    (``read_table``): the same columns, without pyarrow looking for pandas (about 0.4 s to
    import, more than summarising a corpus takes)."""
    files = sorted((Path(out) / name).glob("part-*.parquet"))
    if not files:
        return SCHEMAS[name].empty_table().select(columns or SCHEMAS[name].names)
    return pa.concat_tables([_read(f, columns) for f in files])


def _read(path: Path, columns: list[str] | None) -> pa.Table:
    """One table file; :class:`TablesUnreadable` naming it when it cannot be read."""
    try:
        return pq.ParquetFile(path).read(columns=columns)
    except (OSError, pa.ArrowException) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise TablesUnreadable(f"{path}: cannot be read as a table of masrl corpus ({first}); "
                               "run the same command again to write it anew") from None


def check_group_field(field: str) -> str | None:
    """``None`` if FIELD can group traces, else why not."""
    head, _, key = field.partition(".")
    if field in SCALAR_COLUMNS or (head in MAPS and key):
        return None
    return (f"cannot group by {field!r}: use a column of the traces table "
            f"({', '.join(SCALAR_COLUMNS[:6])}...) or rewards.NAME, costs.NAME, metrics.NAME")


def _group_values(table: pa.Table, field: str) -> pa.Array:
    head, _, key = field.partition(".")
    if field in table.column_names:
        return table[field]
    return pc.map_lookup(table[head], pa.scalar(key, pa.string()), "first")


def summarise(out: str | Path, group_by: str | None = None) -> dict:
    """Totals of the corpus in ``out`` and, with ``group_by``, one entry per group."""
    columns = ["valid", "events", *GROUP_MEANS, *MAPS]
    if group_by and group_by in SCALAR_COLUMNS and group_by not in columns:
        columns.append(group_by)
    traces = read_table(out, "traces", columns)
    problems = read_table(out, "problems", ["severity", "code"])
    valid = pc.sum(traces["valid"]).as_py() or 0
    summary = {  # (counted in Python: comparing with a string scalar makes pyarrow load pandas)
        "traces": traces.num_rows, "valid": valid, "invalid": traces.num_rows - valid,
        "unreadable": problems["code"].to_pylist().count("unreadable"),
        "events": pc.sum(traces["events"]).as_py() or 0,
        "warnings": problems["severity"].to_pylist().count("warning"),
    }
    if group_by:
        summary["group_by"] = group_by
        summary["groups"] = groups(traces, group_by)
    return summary


def groups(traces: pa.Table, field: str) -> list[dict]:
    """One entry per value of ``field``, in sorted order (nulls last)."""
    keyed = pa.table({
        "group": _group_values(traces, field),
        "invalid": pc.invert(traces["valid"]).cast(pa.int64()),
        "events": traces["events"],
        **{name: traces[name] for name in GROUP_MEANS},
    })
    aggregated = keyed.group_by("group", use_threads=False).aggregate(
        [([], "count_all"), ("invalid", "sum"), ("events", "sum"),
         *[(name, "mean") for name in GROUP_MEANS]])
    order = pc.sort_indices(aggregated, sort_keys=[("group", "ascending", "at_end")])
    rows = []
    for row in aggregated.take(order).to_pylist():
        entry = {"group": row["group"], "traces": row["count_all"],
                 "invalid": row["invalid_sum"], "events": row["events_sum"] or 0}
        entry.update({f"mean_{name}": row[f"{name}_mean"] for name in GROUP_MEANS})
        rows.append(entry)
    return rows


def error_lines(out: str | Path) -> list[str]:
    """``SOURCE: where: error: message`` for every error recorded, in source order, as a
    terminal may show it (:func:`masrl.terminal.printable`: the source, the place and the
    message come from the inputs)."""
    problems = read_table(out, "problems").to_pylist()
    return [printable(f"{r['source']}: {r['where']}: error: {r['message']}" if r["where"]
                      else f"{r['source']}: error: {r['message']}")
            for r in problems if r["severity"] == "error"]
