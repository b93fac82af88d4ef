"""The tables of a replayed trace for the book's worked examples (chapter 21), in the book's
table style (:mod:`masrl.presentation.tables`): the topologies side by side, the coalitions of
counterfactual credit, and :func:`replay_tabs`, the tables of one replay as tabs.

The tabs show what the trace report shows (:mod:`masrl.presentation.report.sections`: the
figures in words, the critical path folded by agent, the credit tables), from the same
builders. ``None`` or ``NaN`` (a value that does not apply) shows as a dash.
"""

from __future__ import annotations

from collections.abc import Mapping

from masrl.presentation import tables
from masrl.presentation import trace_views as views
from masrl.presentation.blocks import Tabs
from masrl.presentation.report import sections
from masrl.presentation.report.facts import Facts
from masrl.traces.replay import Replay

CREDIT = "number:3"  # shares of a reward: three decimals


def coalitions_table(replay: Replay, caption: str = "The coalitions and their values v(S)",
                     limit: int | None = None) -> tables.Table:
    frame = views.coalitions_frame(replay) if limit is None \
        else views.coalitions_frame(replay, limit)
    return tables.table(frame, caption, {"size": "count", "v(S)": CREDIT}, index=True)


def comparison_table(replays: Mapping[str, Replay],
                     caption: str = "The topologies side by side") -> tables.Table:
    frame = views.comparison_frame(replays)
    return tables.table(frame, caption,
                        {"trace": "code", "events": "count", "critical steps": "count",
                         "parallelism": "number:2", "spawn depth": "count",
                         "max concurrency": "count", "wall clock (s)": "seconds",
                         "speedup": "number:2", "tokens": "tokens", "team reward": CREDIT},
                        index=True)


def agents_table(replay: Replay) -> tables.Table:
    """The agents as the trace report lists them (:func:`sections.agents_table`)."""
    return sections.agents_table(Facts(replay))


def replay_tabs(name: str, replay: Replay, unit: str = "agent") -> Tabs:
    """The tables of one replay as tabs: the critical path folded by agent, the figures in
    words, credit by unit, credit per item of ``unit`` (with leave-one-out and Shapley values
    when the trace records counterfactual outcomes for it), and then the coalitions."""
    facts = Facts(replay)
    tabs: dict[str, object] = {
        "Critical path": sections.path_table(facts),
        "Figures": sections.numbers_table(facts),
        "Credit by unit": sections.units_table(facts),
        f"Credit per {unit}": sections.items_table(facts, unit),
    }
    if len(views.coalitions_frame(replay)):
        tabs["Coalitions"] = coalitions_table(replay)
    return Tabs(name, tabs)
