"""What the book's landing page shows (``notebooks/00_intro.md``): its headline figure and the
edition it describes (the package's version, the date the pool was last assessed).
"""

from __future__ import annotations

from typing import NamedTuple

import altair as alt
import pandas as pd

from masrl.data import release
from masrl.data.dataset import Dataset
from masrl.presentation import charts

# the taxonomy's status of a credit unit -> its colour and what the legend says
STATUS = {
    "inherited": ("#a6a6a6", "inherited from single-agent RL or the shared outcome"),
    "established": (charts.OKABE_ITO[0], "established in multi-agent methods"),
    "new": (charts.OKABE_ITO[3], "new: specific to orchestrated teams"),
}


class Edition(NamedTuple):
    version: str  # of the release the book describes (the package's version too)
    assessed: str  # YYYY-MM-DD: the pool was assessed as up to date on this day


def edition(data: Dataset) -> Edition:
    """The edition the book describes: the latest screening round's release and the last day its
    searches cover (:func:`masrl.data.release.current`). The one place the landing page reads
    them."""
    latest = release.releases(data)[-1]
    return Edition(latest.version, latest.assessed)


def headline_chart(units: pd.DataFrame) -> alt.LayerChart:
    """Retained papers per credit-bearing unit, team to token (``axes.credit_units``), each bar
    coloured by the unit's status in the survey's taxonomy: the units the survey calls new are
    the thin ones."""
    frame = units.assign(status=[STATUS[s][1] for s in units["status"]])
    colour = alt.Color("status:N", title="the unit is",
                       scale=alt.Scale(domain=[label for _, label in STATUS.values()],
                                       range=[c for c, _ in STATUS.values()]),
                       legend=alt.Legend(orient="bottom", columns=1))
    wide, narrow = charts.hbars(frame, category="unit", value="papers",
                                order=list(frame["unit"]), x_title="papers in the retained pool",
                                y_title=None, colour=colour)
    description = ("Bar chart of retained papers per credit-bearing unit, team to token: "
                   + ", ".join(f"{r.unit} {r.papers} ({r.status})" for r in units.itertuples())
                   + ".")
    return charts.finish(wide, "Where the pool's methods put credit: papers per credit-bearing "
                         "unit, team to token", description, narrow=narrow)
