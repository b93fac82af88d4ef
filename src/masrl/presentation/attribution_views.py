"""What the failure-attribution chapter quotes of its computations: each figure a name for
``myst_nb.glue`` and its value as a reader sees it (the chapter only glues them), and the
applicability table of the rules.

The computations are in :mod:`masrl.traces.attribution` (``published``, ``baselines``,
``benchmark``); the figures below only select and format their results.
"""

from __future__ import annotations

import pandas as pd

from masrl.analyses import attribution_published as published
from masrl.data.who_and_when_published import Published
from masrl.traces.attribution import baselines, gold
from masrl.traces.attribution.gold import Run


def cell_key(level: str, subset: str) -> str:
    """A level and a subset as one glue-name part: ``agent_hand_crafted``."""
    return f"{level}_{subset}".replace("-", "_")


def exchanged(unequal: pd.DataFrame) -> bool:
    """True when exactly two published Random cells differ from ours, and each holds the other's
    computed value (``published`` against ``as the paper counts``)."""
    if len(unequal) != 2:
        return False
    first, second = unequal.iloc[0], unequal.iloc[1]
    return bool(first["published"] == second["as the paper counts"]
                and second["published"] == first["as the paper counts"])


def random_figures(runs: list[Run], figures: Published) -> dict[str, int | str]:
    """The Random row recomputed (:func:`masrl.analyses.attribution_published.random_comparison`):
    how many published cells equal ours and which (``n_random_equal``,
    ``random_equal_cells``), of how many (``n_random_cells``), how many do not
    (``n_random_other``) and whether those are ``exchanged`` (``random_swapped``); each
    other cell, published and ours (``pub_LEVEL_SUBSET``, ``ours_LEVEL_SUBSET``); the sums
    behind two of them (``hc_speaker_sum``: 1/|C| over the hand-crafted runs' speakers;
    ``ag_step_sum``: 1/n over the algorithm-generated runs' steps); and the hand-crafted
    agent-level expectation under three counts of a run's agents (``hc_random_*``)."""
    compared = published.random_comparison(runs, figures)
    equal, unequal = compared[compared["equal"]], compared[~compared["equal"]]
    parts = gold.by_subset(runs)
    ag, hc = gold.SUBSETS
    definitions = published.random_definitions(runs)
    result: dict[str, int | str] = {
        "n_random_equal": len(equal),
        "n_random_cells": len(compared),
        "n_random_other": len(unequal),
        "random_equal_cells": " and ".join(f"{r['level']}-level {r['subset']} "
                                           f"({r['published']:.2f})"
                                           for _, r in equal.iterrows()),
        "random_swapped": "exchanged" if exchanged(unequal) else "not simply exchanged",
        "hc_speaker_sum": f"{sum(1 / len(r.speakers) for r in parts[hc]):.4f}",
        "ag_step_sum": f"{sum(1 / r.n_steps for r in parts[ag]):.4f}",
        "hc_random_agents": f"{definitions.loc['agents, the human left out', hc]:.2f}",
        "hc_random_exact": f"{definitions.loc['agents, the human left out, label spelled exactly', hc]:.2f}",
        "hc_random_paper": f"{definitions.loc[definitions.index[0], hc]:.2f}",
    }
    for _, r in unequal.iterrows():
        key = cell_key(r["level"], r["subset"])
        result[f"pub_{key}"] = f"{r['published']:.2f}"
        result[f"ours_{key}"] = f"{r['as the paper counts']:.2f}"
    return result


def applicability(runs: list[Run]) -> pd.DataFrame:
    """Per rule with a fallback, per subset: on how many of the subset's runs the rule itself
    applies (``k of n``); the others get the fallback's prediction."""
    parts = gold.by_subset(runs)
    return pd.DataFrame([{"rule": rule, **{subset: f"{baselines.applies(rule, part)} of "
                                                    f"{len(part)}"
                                           for subset, part in parts.items()}}
                         for rule in baselines.RULES]).set_index("rule")


def rule_figures(best: pd.DataFrame) -> dict[str, int | str]:
    """From :func:`masrl.analyses.attribution_benchmark.beaten`: per level and subset the best
    published method and the best rule (``best_pub_LEVEL_SUBSET``, ``best_rule_...``), how
    many such cells (``n_cells``), those where the rule is ahead or level (``n_rule_ahead``)
    and those where the published
    figure lies outside the rule's interval (``n_outside_interval``)."""
    result: dict[str, int | str] = {}
    for _, r in best.iterrows():
        key = cell_key(r["level"], r["subset"])
        result[f"best_pub_{key}"] = r["best published"]
        result[f"best_rule_{key}"] = r["best rule"]
    result["n_cells"] = len(best)
    result["n_rule_ahead"] = int((best["difference"] >= 0).sum())
    result["n_outside_interval"] = int((~best["published inside the rule's interval"]).sum())
    return result
