"""Whether our statistics reproduce the survey's published figures, figure by figure."""

from __future__ import annotations

import pandas as pd


def compare(ours: dict, published: dict) -> pd.DataFrame:
    """One row per published figure: ``figure``, ``published``, ``ours``, ``match``.

    ``ours`` is :func:`masrl.analyses.stats.summary`. Every cell of our cross-tabs is compared, so a
    count that appears in our data but not in the snapshot fails as well.
    """
    rows = []
    for name, value in published["totals"].items():
        rows.append((f"totals/{name}", value, ours["totals"].get(name)))
    for section in ("counts", "excluded"):
        for field, values in published.get(section, {}).items():
            for value, n in values.items():
                rows.append((f"{section}/{field}/{value}", n, ours[section][field].get(str(value))))
    for name, table in published["crosstabs"].items():
        ours_table = ours["crosstabs"][name]
        for row_value, row in ours_table.items():
            for col_value, n in row.items():
                expected = table.get(row_value, {}).get(col_value, 0)
                rows.append((f"crosstabs/{name}/{row_value}/{col_value}", expected, n))
        for row_value, row in table.items():  # published cells outside our grid
            for col_value, n in row.items():
                if col_value not in ours_table.get(row_value, {}):
                    rows.append((f"crosstabs/{name}/{row_value}/{col_value}", n, None))
    frame = pd.DataFrame(rows, columns=["figure", "published", "ours"])
    frame["match"] = frame["published"] == frame["ours"]
    return frame
